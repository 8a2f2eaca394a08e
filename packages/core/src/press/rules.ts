/**
 * A game's press rules (docs/spec/press.md §2): who may be written to, and whether what is written can be proven
 * to a third party. Chosen once, in the setup's `params.press`; a game whose setup says nothing has table chat,
 * signed.
 *
 *   params.press = { "rule": "full" | "public" | "none", "mode": "signed" | "deniable" }
 */
import * as z from 'zod/mini';
import type { JsonValue } from '../jcs.js';

export const PRESS_RULES = ['full', 'public', 'none'] as const;
export const PRESS_MODES = ['signed', 'deniable'] as const;
export type PressRule = (typeof PRESS_RULES)[number];
export type PressMode = (typeof PRESS_MODES)[number];

export interface PressRules {
  /** `full`: to the table, to observers or privately to any seats; `public`: to the table and observers only; `none`: no talk. */
  readonly rule: PressRule;
  /** `signed`: every message carries its author's signature; `deniable`: each recipient alone can tell who wrote it. */
  readonly mode: PressMode;
}

export const pressRulesSchema = z.strictObject({ rule: z.enum(PRESS_RULES), mode: z.enum(PRESS_MODES) });

/** Table chat, signed: what a game gets when its setup names no press rules. */
export const DEFAULT_PRESS: PressRules = { rule: 'public', mode: 'signed' };

/** The press rules of a setup's params; `null` when `params.press` is present but not press rules (such a game has no talk). */
export function pressRulesOf(params: { readonly [key: string]: JsonValue | undefined }): PressRules | null {
  const press = params.press;
  if (press === undefined) return DEFAULT_PRESS;
  const r = pressRulesSchema.safeParse(press);
  return r.success ? r.data : null;
}

/** The rule in one sentence, for players. */
export function pressRuleWords(rule: PressRule): string {
  switch (rule) {
    case 'full':
      return 'Full press: you may write to the whole table, to observers, or privately to any powers you choose.';
    case 'public':
      return 'Public press only: everything written goes to the whole table, and nobody can write privately.';
    case 'none':
      return 'No press: this game has no talk at all.';
  }
}

/** The mode in one sentence, for players. */
export function pressModeWords(mode: PressMode): string {
  return mode === 'signed'
    ? 'Signed: every message carries its author’s signature, so anyone you show it to can check who wrote it, and a lie can be shown later.'
    : 'Deniable: only the recipients can tell who wrote a message, and none of them can prove it to anyone else.';
}
