/**
 * Power assignment without a GameMaster (seed 003; docs/spec/diplomacy.md §9).
 *
 * Each player writes a preference list in the seed's notation: `1 AE(GI)R` (player 1: Austria, then
 * England, then Germany or Italy equally, then Russia), `5` (no preference), `8 %REG` (a reserve player,
 * left out of the first assignment). Two methods:
 * - `weighted`, as the seed describes: in each pass every player whose first remaining choice nobody
 *   else wants first gets it; then one contested power is decided by a lottery in which a player whose
 *   first choice is that power alone has one full share and a player whose first choice is a bracket of
 *   k powers has 1/k of a share (kept for the rest of that bracket, even after losing one of its powers),
 *   shares scaled to whole outcomes numbered in ascending player order; the power leaves every list and
 *   the next pass begins.
 * - `serial`: random serial dictatorship: one joint random order of the players; each in turn takes its
 *   best remaining power.
 * Every lottery takes a number in [0, outcomes) from the caller: in a game, a joint random number from
 * the beacon reduced with `below` (never a sum mod k); on the command line, given with `--numbers`.
 */
import { FairtableError } from '@fairtable/core/errors.js';

/** The seven powers and their letters, in the canonical order that breaks every tie. */
export const POWER_LETTERS: Readonly<Record<string, string>> = { A: 'austria', E: 'england', F: 'france', G: 'germany', I: 'italy', R: 'russia', T: 'turkey' };
const POWERS = Object.values(POWER_LETTERS);
const rank = (power: string): number => POWERS.indexOf(power);

export interface Preferences {
  /** The player's number as written. */
  readonly player: number;
  readonly reserve: boolean;
  /** Groups of equally preferred powers, best first; a single power is a group of one. */
  readonly groups: readonly (readonly string[])[];
}

export interface Contest {
  readonly pass: number;
  readonly power: string;
  /** Outcomes per player, by player number. */
  readonly chances: Readonly<Record<string, number>>;
  readonly outcomes: number;
  readonly number: number;
  readonly winner: number;
}

export interface Assignment {
  readonly method: 'weighted' | 'serial';
  readonly contests: readonly Contest[];
  /** Power by player number; reserve players and players left without a power are absent. */
  readonly assignment: Readonly<Record<string, string>>;
  /** Serial dictatorship: the order the players chose in. */
  readonly order?: readonly number[];
}

const bad = (message: string, field = 'prefs'): never => {
  throw new FairtableError('bad_input', message, { field });
};

/** Reads preference lists, one player a line (`#` starts a comment; blank lines are skipped). */
export function parsePreferences(text: string): Preferences[] {
  const out: Preferences[] = [];
  const seen = new Set<number>();
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    const m = /^(\d{1,3})\s*(%?)\s*([A-Za-z()\s]*)$/.exec(line);
    if (m === null) bad(`line ${i + 1}: "${raw.trim()}" is not "N LIST" (e.g. "3 (EFG)TI(AR)", "8 %REG")`, `line ${i + 1}`);
    const player = Number(m![1]);
    if (seen.has(player)) bad(`line ${i + 1}: player ${player} has two lists`, `line ${i + 1}`);
    seen.add(player);
    const groups: string[][] = [];
    const used = new Set<string>();
    let open: string[] | null = null;
    for (const ch of m![3]!.replace(/\s+/g, '').toUpperCase()) {
      if (ch === '(') {
        if (open !== null) bad(`line ${i + 1}: brackets do not nest`, `line ${i + 1}`);
        open = [];
      } else if (ch === ')') {
        if (open === null || open.length === 0) bad(`line ${i + 1}: ")" without an open bracket of powers`, `line ${i + 1}`);
        groups.push(open!);
        open = null;
      } else {
        const power = POWER_LETTERS[ch];
        if (power === undefined) bad(`line ${i + 1}: "${ch}" is not a power (A E F G I R T)`, `line ${i + 1}`);
        if (used.has(power!)) bad(`line ${i + 1}: ${power} is listed twice`, `line ${i + 1}`);
        used.add(power!);
        if (open !== null) open.push(power!);
        else groups.push([power!]);
      }
    }
    if (open !== null) bad(`line ${i + 1}: a bracket is not closed`, `line ${i + 1}`);
    out.push({ player, reserve: m![2] === '%', groups });
  });
  if (out.filter((p) => !p.reserve).length > POWERS.length) bad(`more than ${POWERS.length} players who are not reserves`);
  return out.sort((a, b) => a.player - b.player);
}

/** The preference lists in the seed's notation (the canonical text that is committed to and revealed). */
export function formatPreferences(prefs: readonly Preferences[]): string {
  const letter = (power: string): string => Object.keys(POWER_LETTERS).find((k) => POWER_LETTERS[k] === power)!;
  return prefs
    .map(
      (p) =>
        `${p.player}${p.reserve || p.groups.length > 0 ? ' ' : ''}${p.reserve ? '%' : ''}${p.groups.map((g) => (g.length === 1 ? letter(g[0]!) : `(${g.map(letter).join('')})`)).join('')}`,
    )
    .join('\n');
}

/** Lottery numbers: given ones (replayed in order, each checked against its range), or drawn as needed. */
export type LotteryNumbers = readonly number[] | ((outcomes: number) => number);

class Numbers {
  private next = 0;
  readonly used: number[] = [];
  constructor(private readonly numbers: LotteryNumbers) {}
  take(outcomes: number, what: string): number {
    // A lottery with one outcome has nothing to decide and takes no number.
    if (outcomes === 1) return 0;
    const n = typeof this.numbers === 'function' ? this.numbers(outcomes) : this.numbers[this.next];
    if (n === undefined) bad(`too few lottery numbers: number ${this.next + 1} is needed for ${what}`, 'numbers');
    if (!Number.isSafeInteger(n) || n! < 0 || n! >= outcomes) bad(`lottery number ${this.next + 1} is ${n}; ${what} needs one in [0, ${outcomes})`, 'numbers');
    this.next++;
    this.used.push(n!);
    return n!;
  }
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

interface Seat {
  readonly player: number;
  groups: string[][];
  /** 1/k of a share while the player works through a bracket first met with k powers. */
  share: { readonly bracket: readonly string[]; readonly k: number } | null;
}

/**
 * The seed's weighted lotteries. Choices where the seed is silent (docs/spec/diplomacy.md §9): the
 * contests of a pass are taken one at a time, most contenders first, then in the canonical power order,
 * and each is followed by a new pass; a bracket nobody else wants first gives its first power in the
 * canonical order; players with no preference left draw, in ascending player order, one of the powers
 * left (outcomes numbered in the canonical order).
 */
function weighted(prefs: readonly Preferences[], numbers: Numbers): Assignment {
  const seats: Seat[] = prefs.filter((p) => !p.reserve).map((p) => ({ player: p.player, groups: p.groups.map((g) => [...g]), share: null }));
  const assignment: Record<string, string> = {};
  const contests: Contest[] = [];
  const taken = new Set<string>();
  const open = (): Seat[] => seats.filter((s) => assignment[s.player] === undefined && s.groups.length > 0);
  const drop = (power: string): void => {
    taken.add(power);
    for (const s of seats) s.groups = s.groups.map((g) => g.filter((p) => p !== power)).filter((g) => g.length > 0);
  };
  const give = (s: Seat, power: string): void => {
    assignment[s.player] = power;
    drop(power);
  };
  for (let pass = 1; open().length > 0; pass++) {
    // Unopposed first choices.
    for (let changed = true; changed;) {
      changed = false;
      for (const s of open()) {
        const first = s.groups[0]!;
        const rivals = open().filter((o) => o !== s && o.groups[0]!.some((p) => first.includes(p)));
        if (rivals.length === 0) {
          give(s, [...first].sort((a, b) => rank(a) - rank(b))[0]!);
          changed = true;
        }
      }
    }
    const contenders = new Map<string, Seat[]>();
    for (const s of open()) for (const p of s.groups[0]!) contenders.set(p, [...(contenders.get(p) ?? []), s]);
    const contested = [...contenders.entries()].filter(([, ss]) => ss.length > 1).sort((a, b) => b[1].length - a[1].length || rank(a[0]) - rank(b[0]));
    const next = contested[0];
    if (next === undefined) {
      if (open().length > 0) bad('internal: a pass decided nothing'); // unreachable: an uncontested first choice is taken above
      continue;
    }
    const [power, ss] = next;
    // Shares: 1 for a single first choice, 1/k for a bracket first met with k powers.
    const denominators = ss.map((s) => {
      const first = s.groups[0]!;
      if (first.length === 1 && s.share === null) return 1;
      if (s.share === null || !first.every((p) => s.share!.bracket.includes(p))) s.share = { bracket: [...first], k: first.length };
      return s.share.k;
    });
    const lcm = denominators.reduce((a, b) => (a * b) / gcd(a, b), 1);
    const ordered = ss.map((s, i) => ({ s, outcomes: lcm / denominators[i]! })).sort((a, b) => a.s.player - b.s.player);
    const outcomes = ordered.reduce((a, o) => a + o.outcomes, 0);
    const number = numbers.take(outcomes, `the lottery for ${power}`);
    let at = number;
    const winner = ordered.find((o) => (at -= o.outcomes) < 0)!.s;
    contests.push({ pass, power, chances: Object.fromEntries(ordered.map((o) => [String(o.s.player), o.outcomes])), outcomes, number, winner: winner.player });
    give(winner, power);
    // A loser keeps its fraction for the rest of that bracket; a bracket it leaves behind resets it.
    for (const s of seats) if (s.share !== null && (s.groups.length === 0 || !s.groups[0]!.every((p) => s.share!.bracket.includes(p)))) s.share = null;
  }
  // Players with no preference left.
  for (const s of seats) {
    if (assignment[s.player] !== undefined) continue;
    const left = POWERS.filter((p) => !taken.has(p));
    if (left.length === 0) break;
    const number = numbers.take(left.length, `player ${s.player}'s draw among the powers left`);
    contests.push({ pass: 0, power: left[number]!, chances: { [String(s.player)]: left.length }, outcomes: left.length, number, winner: s.player });
    give(s, left[number]!);
  }
  return { method: 'weighted', contests, assignment };
}

/** Random serial dictatorship: a joint random order (Fisher–Yates on the given numbers), then each takes its best remaining power. */
function serial(prefs: readonly Preferences[], numbers: Numbers): Assignment {
  const order = prefs.filter((p) => !p.reserve).map((p) => p.player);
  for (let i = order.length - 1; i > 0; i--) {
    const j = numbers.take(i + 1, `place ${order.length - i} of the order`);
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const byPlayer = new Map(prefs.map((p) => [p.player, p]));
  const assignment: Record<string, string> = {};
  const taken = new Set<string>();
  for (const player of order) {
    const wanted = byPlayer.get(player)!.groups.flatMap((g) => [...g].sort((a, b) => rank(a) - rank(b)));
    const power = wanted.find((p) => !taken.has(p)) ?? POWERS.find((p) => !taken.has(p));
    if (power === undefined) break;
    assignment[String(player)] = power;
    taken.add(power);
  }
  return { method: 'serial', contests: [], assignment, order };
}

export function assignPowers(
  prefs: readonly Preferences[],
  method: 'weighted' | 'serial',
  numbers: LotteryNumbers,
): Assignment & { readonly numbers: readonly number[] } {
  const n = new Numbers(numbers);
  const result = method === 'weighted' ? weighted(prefs, n) : serial(prefs, n);
  return { ...result, numbers: n.used };
}
