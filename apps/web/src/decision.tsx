/**
 * The player's decision as a form (docs/spec/web.md §4; docs/SPEC.md §7.5): the machine's `Choices` rendered as
 * inputs, the answer checked with the core's `checkChoice` before it is handed to the seat.
 */
import { useState } from 'preact/hooks';
import { checkChoice, type Choices, type Decision } from '@fairtable/core/protocols/machine.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { orderMenu } from '@fairtable/diplomacy/order-menu.js';
import { BetForm, HandForm, isBetDecision } from './table-forms.js';

/** A first answer for a choice: the smallest integer, the first value, each field's first, the first option's, an empty list. */
export function initial(c: Choices): JsonValue {
  switch (c.type) {
    case 'integer':
      return Number(c.min);
    case 'one-of':
      return c.values[0] ?? null;
    case 'record':
      return Object.fromEntries(Object.entries(c.fields).map(([k, f]) => [k, initial(f)]));
    case 'any-of':
      return c.options[0] === undefined ? null : initial(c.options[0]);
    case 'list':
      return [];
    case 'text':
      return c.examples[0] ?? '';
  }
}

/** The labels of the optional members the machines offer (docs/spec/diplomacy.md §10.12, §10.14). */
const OPTIONAL_LABELS: Readonly<Record<string, string>> = { vote: 'Vote to end the game (sealed with your orders)', ready: 'Send as' };

/** An optional member's values in words: a vote, a draft or final orders. */
function optionalWords(v: JsonValue): string {
  if (v === true) return 'final orders';
  if (v === false) return 'a draft (I may change it until the deadline)';
  if (typeof v !== 'string') return String(v);
  if (v === 'none') return 'no vote';
  if (v.startsWith('concede:')) return `concede to ${v.slice('concede:'.length).replace(/^./, (c) => c.toUpperCase())}`;
  return { draw: 'a draw', cancel: 'cancel the game', pause: 'pause the game' }[v] ?? v;
}

/** A few words naming one option of an any-of, for its radio button. */
function optionName(c: Choices): string {
  if (c.type === 'one-of') return c.values.length === 1 && c.values[0] === null ? 'pass' : c.values.map((v) => String(v)).join(' / ');
  if (c.type === 'record') {
    const kind = c.fields.kind;
    if (kind?.type === 'one-of') return kind.values.map((v) => String(v)).join(' / ');
    return Object.keys(c.fields).join(', ');
  }
  return c.type;
}

/** How a value is named on the page (a square number by its name); plain `String` unless the game says. */
export type Namer = (v: JsonValue) => string;

export function ChoiceInput(props: { choices: Choices; value: JsonValue; onChange: (v: JsonValue) => void; label: string; id: string; nameOf?: Namer }) {
  const { choices: c, value, onChange, label, id } = props;
  const nameOf = props.nameOf ?? ((v: JsonValue) => String(v));
  switch (c.type) {
    case 'list': {
      const picked = Array.isArray(value) ? value : [];
      const has = (v: JsonValue): boolean => picked.some((x) => JSON.stringify(x) === JSON.stringify(v));
      if (c.of.type !== 'one-of')
        return (
          <label class="field">
            {label} (a JSON list)
            <input
              type="text"
              value={JSON.stringify(picked)}
              onInput={(e) => {
                try {
                  onChange(JSON.parse((e.target as HTMLInputElement).value) as JsonValue);
                } catch {
                  // Left as it was until the text is JSON again.
                }
              }}
            />
          </label>
        );
      if (c.of.values.length === 0) return null;
      // Distinct answers, at most `max`: one checkbox a value, ticked in the order the values are listed.
      return (
        <fieldset class="choice">
          <legend>{label}</legend>
          {c.of.values.map((v) => (
            <label key={JSON.stringify(v)} class="pill">
              <input
                type="checkbox"
                checked={has(v)}
                onChange={() => onChange(has(v) ? picked.filter((x) => JSON.stringify(x) !== JSON.stringify(v)) : [...picked, v])}
              />{' '}
              {nameOf(v)}
            </label>
          ))}
        </fieldset>
      );
    }
    case 'integer': {
      const small = BigInt(c.max) - BigInt(c.min) < 12n;
      if (small) {
        const values: number[] = [];
        for (let n = Number(c.min); n <= Number(c.max); n++) values.push(n);
        return (
          <fieldset class="choice">
            <legend>{label}</legend>
            {values.map((n) => (
              <label key={n} class="pill">
                <input type="radio" name={id} checked={value === n} onChange={() => onChange(n)} /> {n}
              </label>
            ))}
          </fieldset>
        );
      }
      return (
        <label class="field">
          {label} ({c.min}–{c.max})
          <input
            type="number"
            inputMode="numeric"
            min={c.min}
            max={c.max}
            value={String(value)}
            onInput={(e) => {
              const t = (e.target as HTMLInputElement).value;
              onChange(/^-?\d+$/.test(t) && Number.isSafeInteger(Number(t)) ? Number(t) : t);
            }}
          />
        </label>
      );
    }
    case 'text':
      return (
        <label class="field">
          {label}
          <input
            type="text"
            value={typeof value === 'string' ? value : ''}
            maxLength={c.maxLength}
            list={`${id}-examples`}
            onInput={(e) => onChange((e.target as HTMLInputElement).value)}
          />
          <datalist id={`${id}-examples`}>
            {c.examples.map((x) => (
              <option key={x} value={x} />
            ))}
          </datalist>
        </label>
      );
    case 'one-of':
      if (c.values.length <= 1) return null;
      return (
        <label class="field">
          {label}
          <select value={JSON.stringify(value)} onChange={(e) => onChange(JSON.parse((e.target as HTMLSelectElement).value) as JsonValue)}>
            {/* A Diplomacy unit's orders under headings: hold, moves, supports and convoys by the unit they help. */}
            {(orderMenu(c.values)?.map((g) => ({ label: g.label, values: g.orders as JsonValue[] })) ?? [{ label: null, values: c.values }]).map((g) => {
              const options = g.values.map((v) => (
                <option key={JSON.stringify(v)} value={JSON.stringify(v)}>
                  {v === null ? '—' : nameOf(v)}
                </option>
              ));
              return g.label === null ? (
                options
              ) : (
                <optgroup key={g.label} label={g.label}>
                  {options}
                </optgroup>
              );
            })}
          </select>
        </label>
      );
    case 'record': {
      const record = (value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {}) as Record<string, JsonValue>;
      return (
        <div class="record">
          {Object.entries(c.fields).map(([name, f]) => (
            <ChoiceInput
              key={name}
              id={`${id}-${name}`}
              label={name}
              choices={f}
              value={record[name] ?? null}
              onChange={(v) => onChange({ ...record, [name]: v })}
              {...(props.nameOf === undefined ? {} : { nameOf: props.nameOf })}
            />
          ))}
          {c.optional === undefined ? null : (
            // Members the player may leave out (a Diplomacy vote to end the game, a draft): absent until chosen.
            <fieldset class="optional">
              <legend>Beside your answer</legend>
              {Object.entries(c.optional).map(([name, f]) => (
                <ChoiceInput
                  key={name}
                  id={`${id}-${name}`}
                  label={OPTIONAL_LABELS[name] ?? `${name} (may be left out)`}
                  choices={f}
                  value={record[name] ?? (f.type === 'one-of' ? (f.values[0] ?? null) : null)}
                  onChange={(v) => onChange({ ...record, [name]: v })}
                  nameOf={optionalWords}
                />
              ))}
            </fieldset>
          )}
        </div>
      );
    }
    case 'any-of': {
      const at = Math.max(
        0,
        c.options.findIndex((o) => {
          try {
            checkChoice(o, value);
            return true;
          } catch {
            return (
              o.type === 'record' &&
              value !== null &&
              typeof value === 'object' &&
              !Array.isArray(value) &&
              optionMatches(o, value as Record<string, JsonValue>)
            );
          }
        }),
      );
      const chosen = c.options[at]!;
      return (
        <div>
          <fieldset class="choice">
            <legend>{label}</legend>
            {c.options.map((o, i) => (
              <label key={i} class="pill">
                <input type="radio" name={id} checked={i === at} onChange={() => onChange(initial(o))} /> {optionName(o)}
              </label>
            ))}
          </fieldset>
          <ChoiceInput id={`${id}-${at}`} label={optionName(chosen)} choices={chosen} value={value} onChange={onChange} />
        </div>
      );
    }
  }
}

function optionMatches(o: Choices & { type: 'record' }, value: Record<string, JsonValue>): boolean {
  const kind = o.fields.kind;
  return kind?.type === 'one-of' && kind.values.some((v) => v === value.kind);
}

const VERB: Record<string, string> = {
  move: 'Roll',
  hand: 'Play this state',
  bet: 'Place the bet',
  orders: 'Commit these orders',
  preferences: 'Commit this list',
  bid: 'Seal the bid',
};

/**
 * The decision's form: roulette's bet and Rochambeau's hand have their own (table-forms.tsx), the rest the generic one.
 * `value` and `onChange`, when given, hold the answer outside the form (Diplomacy's board fills the same orders).
 */
export function DecisionForm(props: {
  decision: Decision;
  onDecide: (choice: JsonValue) => string | null;
  value?: JsonValue;
  onChange?: (choice: JsonValue) => void;
}) {
  if (isBetDecision(props.decision)) return <BetForm {...props} />;
  if (props.decision.kind === 'hand' && props.decision.choices.type === 'integer') return <HandForm {...props} />;
  return <ChoicesForm {...props} />;
}

function ChoicesForm(props: { decision: Decision; onDecide: (choice: JsonValue) => string | null; value?: JsonValue; onChange?: (choice: JsonValue) => void }) {
  const { decision } = props;
  const [own, setOwn] = useState<JsonValue>(() => initial(decision.choices));
  const value = props.value === undefined ? own : props.value;
  const setValue = props.onChange ?? setOwn;
  const [error, setError] = useState<string | null>(null);
  const fixed = decision.choices.type === 'one-of' && decision.choices.values.length === 1;
  return (
    <form
      class="decision"
      aria-label="Your decision"
      onSubmit={(e) => {
        e.preventDefault();
        try {
          checkChoice(decision.choices, value);
        } catch (err) {
          setError((err as Error).message);
          return;
        }
        setError(props.onDecide(value));
      }}
    >
      <p class="prompt">{decision.prompt}</p>
      {fixed ? null : <ChoiceInput id="decision" label={decision.kind} choices={decision.choices} value={value} onChange={setValue} />}
      <button type="submit" class="primary">
        {fixed && decision.kind === 'move' ? 'Roll the dice' : (VERB[decision.kind] ?? 'Send')}
      </button>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
