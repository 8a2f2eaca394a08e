/**
 * Diplomacy by mail (docs/spec/mail.md §11): the game in plain text for a message's readable part and for
 * `mail status`, the orders file a player fills in (`orders-S1901M.txt` in the game folder), and the
 * player's answers read from an orders file or a preference list. The orders file is read by the
 * diplomacy package's orders-file.ts (the reader `play --orders` uses too), a file with any problem
 * refused at its first; what is committed is the
 * machine's canonical orders file made from the answer, exactly as for a player answering in the browser.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FairtableError } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Decision } from '@fairtable/core/protocols/machine.js';
import { legalOrdersText, lineText, phaseName, positionText, readOrdersFileOrThrow, standardMap } from '@fairtable/diplomacy/index.js';
import { phaseLabel, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { progressText } from './diplomacy-results.js';
import { writeAtomic } from './files.js';

const map = standardMap;
const title = (power: string): string => power.charAt(0).toUpperCase() + power.slice(1);

/** A state that looks like the diplomacy machine's (a folder's referee state is `unknown`). */
export function diplomacyState(state: unknown): DiplomacyState | null {
  const s = state as Partial<DiplomacyState> | null;
  return s !== null && typeof s === 'object' && typeof s.round === 'number' && s.position !== undefined && typeof s.powers === 'object'
    ? (s as DiplomacyState)
    : null;
}

const STEP_WORDS: Readonly<Record<string, string>> = {
  commit: 'every player commits to its orders (sealed: the recorder holds each commitment until all are in)',
  claim: 'every player claims its commitment on the published set',
  reveal: 'every player reveals its orders',
  open: 'the others open a withheld reveal from its escrow shares',
  sign: 'every player adjudicates and signs the resulting position',
  done: 'the game is over',
};

/** Who must still act in this step (the machine's view, read from its state). */
function waitingFor(s: DiplomacyState): string[] {
  const live = (p: string): boolean => {
    if (s.stage === 'assign') return true;
    const power = s.powers[p];
    if (power === undefined) return false;
    const pos = s.position;
    return pos.units.some((u) => u.power === power) || pos.dislodged.some((d) => d.power === power) || pos.supplyCenterOwners.some((o) => o.power === power);
  };
  switch (s.phase) {
    case 'commit':
      return s.active.filter((p) => live(p) && s.commits[p] === undefined && s.excused[p] !== true);
    case 'claim':
      return s.active.filter((p) => s.commits[p] !== undefined && s.claims[p] === undefined && s.excused[p] !== true);
    case 'reveal':
      return s.active.filter((p) => s.claims[p] !== undefined && s.reveals[p] === undefined && s.excused[p] !== true);
    case 'sign':
      return s.active.filter((p) => s.signs[p] === undefined);
    default:
      return [];
  }
}

/**
 * The game as text (docs/spec/mail.md §11): the round and its step, who it waits for, the powers and their
 * players, the position, and, while orders are being committed, every order each playing power is offered.
 */
export function diplomacyText(state: unknown): string {
  const s = diplomacyState(state);
  if (s === null) return '';
  const out: string[] = [];
  const holders: Record<string, string> = {};
  for (const [player, power] of Object.entries(s.powers)) holders[power] = player;
  const waiting = waitingFor(s);
  if (s.stage === 'assign') {
    out.push(`Diplomacy: round ${s.round}, the power assignment (${s.method}): ${STEP_WORDS[s.phase] ?? s.phase}.`);
    if (s.phase === 'commit')
      out.push(
        "Each player sends a preference list in seed 003's notation: powers best first (A E F G I R T), a bracket for equal",
        'preference, % first for a reserve, nothing for no preference. Answer with: fairtable mail decide --dir DIR --prefs "AE(GI)R"',
      );
  } else {
    out.push(`Diplomacy: round ${s.round}, ${phaseName(s.position)} (${phaseLabel(s.position)}): ${STEP_WORDS[s.phase] ?? s.phase}.`);
    out.push(
      `Powers: ${
        Object.entries(s.powers)
          .map(([player, power]) => `${player} ${power}`)
          .join(', ') || 'none'
      }`,
    );
  }
  // At the commit step this is what the log shows: a sealed game's recorder holds commitments out of it, so
  // nobody (the recorder's own mail included) says who has committed already.
  if (waiting.length > 0) out.push(`${s.phase === 'commit' ? 'Commitments due from' : 'Waiting for'}: ${waiting.join(', ')}`);
  out.push(...progressText(s));
  if (s.forfeits.length > 0) out.push(`Out of the game: ${s.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}`);
  out.push('', positionText(map, s.position, holders).trimEnd());
  if (s.stage === 'play' && s.phase === 'commit') {
    for (const player of waiting) {
      const power = s.powers[player]!;
      out.push('', `${title(power)}'s orders (${player}) for ${phaseName(s.position)}: one a line, a unit with no order holds; offered:`);
      out.push(legalOrdersText(map, s.position, power).trimEnd());
    }
    if (waiting.length > 0) out.push('', 'Answer with: fairtable mail decide --dir DIR --orders FILE (the folder holds a file to fill in: orders-PHASE.txt)');
  }
  return out.join('\n') + '\n';
}

/** The orders file to fill in for the folder's current orders decision, written once per phase; its name. */
export function writeOrdersTemplate(dir: string, state: unknown, decision: Decision | null): string | null {
  const s = diplomacyState(state);
  if (s === null || decision === null || decision.kind !== 'orders' || s.me === null) return null;
  const power = s.powers[s.me]!;
  const name = `orders-${phaseLabel(s.position)}.txt`;
  const path = join(dir, name);
  if (existsSync(path)) return name;
  const comment = (text: string): string[] =>
    text
      .trimEnd()
      .split('\n')
      .map((l) => `# ${l}`.trimEnd());
  const lines = [
    `# ${title(power)}'s orders for ${phaseName(s.position)} (${phaseLabel(s.position)}), game ${s.gameId.slice(0, 16)}…`,
    '# One order a line, as you would write it: A Par-Bur, F Bre-MAO, A Mar S A Par-Bur, F Nth C A Lon-Nwy;',
    '# retreats A Mun-Boh or A Mun D; in winter Build A Par, Remove F Kie, Waive. A # starts a comment.',
    '# A unit with no order holds, a dislodged unit with none disbands, a build not written is waived,',
    `# a removal not written is made by civil disorder. The game's typo rule: ${s.typos}.`,
    '# When done: fairtable mail decide --dir THE-GAME-FOLDER --orders THIS-FILE',
    '#',
    ...comment(positionText(map, s.position)),
    '#',
    '# The orders offered:',
    ...comment(legalOrdersText(map, s.position, power)),
    '',
  ];
  // Each unit's default, ready to be changed (builds and removals are left to the player; unwritten, they take the defaults).
  if (s.position.phase.type !== 'adjustment')
    for (const field of Object.values(decision.choices.type === 'record' ? decision.choices.fields : {}))
      if (field.type === 'one-of' && typeof field.values[0] === 'string') lines.push(field.values[0]);
  writeAtomic(path, lines.join('\n') + '\n');
  return name;
}

/** The answer to an orders decision from an orders file, with notes on what was read differently or left to the defaults. */
export function ordersAnswer(state: unknown, decision: Decision | null, text: string): { choice: JsonValue; notes: readonly string[] } {
  const s = diplomacyState(state);
  if (s === null) throw new FairtableError('illegal_choice', 'this is not a Diplomacy game: --orders is for Diplomacy', { field: 'orders' });
  if (decision === null || decision.kind !== 'orders')
    throw new FairtableError(
      'illegal_choice',
      decision === null
        ? 'there are no orders to give now'
        : `the game asks for ${decision.kind} now, not orders${decision.kind === 'preferences' ? ' (use --prefs)' : ''}`,
      { field: 'orders' },
    );
  const power = s.powers[s.me!]!;
  const read = readOrdersFileOrThrow(map, s.position, power, text, s.typos);
  const notes = read.notes.map(lineText);
  if (read.defaulted.length > 0) notes.push(`not written, so the default: ${read.defaulted.map((d) => d.order).join('; ')}`);
  if (read.vote !== null) notes.push(`your vote to end the game: ${read.vote} (sealed with your orders until every vote is in)`);
  return { choice: read.vote === null ? read.answer : { ...read.answer, vote: read.vote }, notes };
}

/** The answer to the preference decision: the list as the player wrote it (the machine checks it against the notation). */
export function prefsAnswer(state: unknown, decision: Decision | null, list: string): JsonValue {
  if (diplomacyState(state) === null) throw new FairtableError('illegal_choice', 'this is not a Diplomacy game: --prefs is for Diplomacy', { field: 'prefs' });
  if (decision === null || decision.kind !== 'preferences')
    throw new FairtableError(
      'illegal_choice',
      decision === null ? 'there is no preference list to give now' : `the game asks for ${decision.kind} now, not preferences`,
      {
        field: 'prefs',
      },
    );
  return list.trim();
}
