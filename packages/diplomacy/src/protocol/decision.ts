/**
 * What the machine asks the local player for (docs/spec/diplomacy.md §10): a preference list in the assignment
 * round, else the power's orders with an optional vote to end the game, while the commit set is open to it.
 */
import type { Decision } from '@fairtable/core/protocols/machine.js';
import { POWER_LETTERS } from '../assign.js';
import { phaseName } from '../phase-names.js';
import { voteValues } from './endings.js';
import { orderChoices } from './options.js';
import * as revise from './revise.js';
import { alive, map, phaseLabel, required, type DiplomacyState } from './state.js';

/** A preference list as a player types it, without its number: `AE(GI)R`, `%REG`, or nothing. */
const PREFERENCE_PATTERN = '%?[AEFGIRTaefgirt() ]*';

/** Example lists an automatic player draws from: each power first once, a bracket, a reserve and no preference. */
function preferenceExamples(seat: number): string[] {
  const letters = Object.keys(POWER_LETTERS);
  const rotated = (k: number): string => [...letters.slice(k), ...letters.slice(0, k)].join('');
  const examples = letters.map((_, k) => rotated((k + seat) % letters.length).slice(0, 3));
  examples.push(`(${rotated(seat % 7).slice(0, 3)})${rotated((seat + 3) % 7).slice(0, 2)}`, '');
  return examples;
}

export function decision(s: DiplomacyState): Decision | null {
  if (s.me === null || s.phase !== 'commit') return null;
  if (!revise.mayRevise(s) && (s.commits[s.me] !== undefined || (s.mine !== null && s.mine.round === s.round))) return null;
  if (!required(s).includes(s.me)) return null;
  const deadline = s.phaseStart + s.timeoutMs;
  if (s.stage === 'assign') {
    return {
      kind: 'preferences',
      prompt:
        'Your preference list in the seed-003 notation: powers best first (A E F G I R T), a bracket for equal preference, % first for a reserve, or nothing',
      choices: { type: 'text', pattern: PREFERENCE_PATTERN, maxLength: 40, examples: preferenceExamples(s.players.indexOf(s.me)) },
      deadline,
    };
  }
  const power = s.powers[s.me]!;
  const onBoard = map.powers.filter((p) => alive(s.position, p));
  return {
    kind: 'orders',
    prompt: `Your orders for ${power}, ${phaseName(s.position)} (${phaseLabel(s.position)}): one per unit${s.position.phase.type === 'adjustment' ? ' (or build, removal, waive)' : ''}, and a vote to end the game if you wish`,
    choices: { ...orderChoices(map, s.position, power), optional: { vote: { type: 'one-of', values: voteValues(power, onBoard) }, ...revise.readyMember(s) } },
    deadline,
  };
}
