/**
 * Why a game ended as it did, in the game's own terms (docs/spec/web.md §4, "The table"): the sentence under the
 * headline. It is read from the outcome's summary (the machine's own) and the observer's state.
 */
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Outcome } from '@fairtable/core/protocols/machine.js';
import { netWorth, type MonopolyState } from '@fairtable/core/games/monopoly/index.js';
import { names } from './labels.js';

type Rec = Record<string, JsonValue>;
const rec = (v: unknown): Rec => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Rec) : {});
const money = (n: number): string => `$${n.toLocaleString('en-US')}`;

/** "ann 23, bob 19": each player's figure, highest first. */
function ranked(values: Record<string, number>, show: (n: number) => string = String): string {
  return Object.entries(values)
    .sort((a, b) => b[1] - a[1])
    .map(([p, v]) => `${p} ${show(v)}`)
    .join(', ');
}

function gone(outcome: Outcome): string {
  if (outcome.forfeits.length === 0) return '';
  const timed = outcome.forfeits.filter((f) => f.code === 'withheld').map((f) => f.player);
  const broke = outcome.forfeits.filter((f) => !timed.includes(f.player)).map((f) => f.player);
  return [
    timed.length > 0 ? ` ${names(timed)} ran out of time and left the game.` : '',
    broke.length > 0 ? ` ${names(broke)} broke a rule and left the game.` : '',
  ]
    .join('')
    .trimEnd();
}

/** The sentence that says why the game ended as it did, or null where the game's summary says nothing more. */
export function endingWhy(protocol: string, game: string | null, outcome: Outcome, state: unknown): string | null {
  const s = rec(outcome.summary);
  const inner = rec(s.state);
  const out = gone(outcome);
  if (protocol === 'chain' || protocol === 'keyed-stream') {
    if (game === 'monopoly') {
      const m = (rec(state).game ?? s.state) as unknown as MonopolyState | undefined;
      if (m === undefined || !Array.isArray(m.players)) return out || null;
      if (m.players.length <= 1) return `Everyone else went bankrupt.${out}`;
      const worth = Object.fromEntries(m.players.map((p) => [p, netWorth(m, p)]));
      return `The richest after ${m.rules.rounds} rounds wins: net worth ${ranked(worth, money)}.${out}`;
    }
    if (game === 'snakes') {
      const positions = rec(inner.positions) as Record<string, number>;
      const first = Object.entries(positions).find(([, v]) => v === 100);
      return `${first !== undefined ? `${first[0]} reached square 100 first.` : `Nobody reached square 100 in the rounds played: the furthest along wins.`} Squares: ${ranked(positions)}.${out}`;
    }
    const scores = rec(inner.scores) as Record<string, number>;
    if (Object.keys(scores).length > 0) return `The highest total wins: ${ranked(scores)}.${out}`;
    return out || null;
  }
  if (protocol === 'rochambeau') {
    const rounds = Array.isArray(s.rounds) ? s.rounds.length : Number(s.rounds);
    const n = Number.isFinite(rounds) && rounds > 0 ? rounds : 1;
    return `Decided by the draft after ${n} round${n === 1 ? '' : 's'} of ${String(s.N)} states.${out}`;
  }
  if (protocol === 'signidice') {
    const balances = rec(s.balances) as Record<string, number>;
    return `After ${String(s.rounds)} rounds the balances are ${ranked(balances)}.${out}`;
  }
  if (protocol === 'diplomacy') {
    const centres = rec(s.centres) as Record<string, number>;
    const how =
      s.winner !== null && s.winner !== undefined
        ? `${String(s.winner)} holds a majority of the supply centres`
        : 'the game years ran out: every power still standing shares the win';
    return `${String(s.phase)}: ${how}. Centres: ${ranked(centres)}.${out}`;
  }
  if (protocol === 'holdem') {
    const stacks = rec(s.stacks) as Record<string, number>;
    const hands = Number(s.hands);
    const why = typeof s.ended === 'string' ? ` The game ended early: ${s.ended}.` : '';
    return `After ${hands} hand${hands === 1 ? '' : 's'} the most chips win: ${ranked(stacks, (n) => n.toLocaleString('en-US'))}.${why}${out}`;
  }
  return out || null;
}
