/**
 * The lobby's press choice (docs/spec/press.md §2, docs/spec/web.md §2): the press rule and mode, each with its
 * one sentence; kept apart from the talk panel (chat.tsx), which the game page loads only when it shows one.
 */
import {
  DEFAULT_PRESS,
  PRESS_MODES,
  PRESS_RULES,
  pressModeWords,
  pressRuleWords,
  type PressMode,
  type PressRule,
  type PressRules,
} from '@fairtable/core/press/index.js';

/** The lobby's press choice: rule and mode, each with its one sentence. Diplomacy offers full press by default, other games table chat. */
export function PressChoice({ value, onChange }: { value: PressRules; onChange: (p: PressRules) => void }) {
  return (
    <fieldset class="press">
      <legend>Table talk</legend>
      <label class="field">
        Press
        <select value={value.rule} onChange={(e) => onChange({ ...value, rule: (e.target as HTMLSelectElement).value as PressRule })}>
          {PRESS_RULES.map((r) => (
            <option key={r} value={r}>
              {r === 'full' ? 'Full press (private messages too)' : r === 'public' ? 'Public press only' : 'No press'}
            </option>
          ))}
        </select>
      </label>
      <p class="hint">{pressRuleWords(value.rule)}</p>
      {value.rule === 'none' ? null : (
        <>
          <label class="field">
            Messages are
            <select value={value.mode} onChange={(e) => onChange({ ...value, mode: (e.target as HTMLSelectElement).value as PressMode })}>
              {PRESS_MODES.map((m) => (
                <option key={m} value={m}>
                  {m === 'signed' ? 'Signed' : 'Deniable'}
                </option>
              ))}
            </select>
          </label>
          <p class="hint">{pressModeWords(value.mode)}</p>
        </>
      )}
    </fieldset>
  );
}

/** The press a new game of `protocol` starts with in the lobby form. */
export const defaultPressFor = (protocol: string): PressRules => (protocol === 'diplomacy' ? { rule: 'full', mode: 'signed' } : DEFAULT_PRESS);

/** The offer's `press` member: absent for table chat, signed (the default every setup without it has). */
export const offerPress = (p: PressRules): { press?: PressRules } => (p.rule === DEFAULT_PRESS.rule && p.mode === DEFAULT_PRESS.mode ? {} : { press: p });
