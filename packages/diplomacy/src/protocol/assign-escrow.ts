/**
 * Escrow in the power-assignment round (docs/spec/diplomacy.md §10.5.1): seed 003 designs its layers
 * against the last revealer of the lottery numbers. One commitment covers every lottery, so a withholder
 * who saw the others' values knows the whole assignment before choosing; a rerun would hand it (or an ally)
 * a second draw. With escrow the values of everyone who claimed are final once the reveal step ends:
 * a withheld or broken reveal is opened from its escrow (shares, or peels) and enters the lottery as
 * committed. Only an escrow that cannot be opened falls back to the rerun.
 */
import { FairtableError } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Stepper } from '@fairtable/core/protocols/machine.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { parsePreferences, type Preferences } from '../assign.js';
import { escrowed } from './escrow.js';
import type { DiplomacyState } from './machine.js';

/** A checked assignment value: the player's list (numbered by its seat) and its 32 random bytes. */
export interface AssignValue {
  readonly prefs: Preferences;
  readonly random: string;
}

/** `{prefs, random}` as committed, read: null when it is not a list in the seed's notation with 32 random bytes. */
export function readAssignValue(s: DiplomacyState, player: string, value: unknown): AssignValue | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return null;
  const v = value as { prefs?: unknown; random?: unknown };
  if (typeof v.prefs !== 'string' || typeof v.random !== 'string' || !/^[0-9a-f]{64}$/.test(v.random)) return null;
  const number = s.players.indexOf(player) + 1;
  try {
    const [prefs] = parsePreferences(`${number} ${v.prefs}`);
    return prefs === undefined ? null : { prefs, random: v.random };
  } catch (e) {
    if (e instanceof FairtableError) return null;
    throw e;
  }
}

/** Whether this assignment round's values are escrowed: then no failure after the claims reruns it while its escrow opens. */
export const assignEscrow = (s: DiplomacyState): boolean => s.stage === 'assign' && (s.escrow !== null || s.layered);

/**
 * The players whose value must be opened from escrow when the reveal step ends: every one who claimed
 * (forfeited since or not) and whose value is not checked, with an escrow to open.
 */
export const unrevealed = (s: DiplomacyState): string[] => s.players.filter((p) => s.claims[p] !== undefined && s.reveals[p] === undefined && escrowed(s, p));

/**
 * A value opened from `player`'s escrow: it enters the lottery as a reveal would have (true), or, committed
 * in no notation, it is named as a reveal of it would be and the round reruns (false: the caller forfeits it).
 */
export function takeOpened(s: DiplomacyState, st: Stepper, msg: Accepted | { line: number }, player: string, value: unknown): boolean {
  const read = readAssignValue(s, player, value);
  if (read === null) {
    st.emit({ type: 'escrow-opened', player, round: s.round });
    st.violation(
      'unexpected_message',
      player,
      msg,
      `the preferences ${player} committed to in round ${s.round}, opened from its escrow, are not a list in the seed's notation with 32 random bytes`,
    );
    return false;
  }
  s.reveals[player] = read as unknown as JsonValue;
  st.emit({ type: 'escrow-opened', player, round: s.round, prefs: (value as { prefs: string }).prefs });
  return true;
}
