/**
 * The movement-phase adjudicator (docs/spec/diplomacy.md §3.2–3.4).
 *
 * Each move, support and convoy has one yes/no decision: the move succeeds,
 * the support is given, the convoying fleet stays. A decision is computed from
 * strengths, which ask for other decisions; `resolve` asks recursively, and
 * where decisions depend on each other in a cycle its head guesses: first
 * "no", then "yes". One consistent answer is taken; where both or neither are
 * consistent the cycle is either circular movement (every move in it
 * succeeds) or a convoy paradox, settled by the Szykman rule (the convoyed
 * moves in it fail and have no effect). Orders reach this module already
 * checked for legality (adjudicate.ts); an illegal order arrives as a hold.
 */
import type { GameMap } from './map.js';

/** A unit's order as the adjudicator sees it: one per unit, already legal. */
export type MoveOrder =
  | { readonly kind: 'hold' }
  | { readonly kind: 'move'; readonly to: string; readonly toLocation: string; readonly viaConvoy: boolean }
  /** `toLocation`: the destination as written, with a coast only when the writer gave one for a fleet. */
  | { readonly kind: 'support'; readonly from: string; readonly to: string | null; readonly toLocation: string | null }
  | { readonly kind: 'convoy'; readonly from: string; readonly to: string };

export interface BoardUnit {
  readonly power: string;
  readonly type: 'army' | 'fleet';
  readonly at: string;
  readonly province: string;
  readonly order: MoveOrder;
}

export interface MovementOutcome {
  /** Per unit: the decision (moves: moved; supports: given; convoys: not disrupted; holds: true). */
  readonly success: readonly boolean[];
  /** Per unit: whether a convoyed move had a route through fleets that stayed. */
  readonly hasPath: readonly boolean[];
  /** Per unit: whether a move or support counted (a support matching an order; a convoy matching a convoyed move). */
  readonly matched: readonly boolean[];
  /** Per unit: the index of the unit that dislodged it, or -1. */
  readonly dislodgedBy: readonly number[];
  /** Per unit: for a move that failed, a short reason. */
  readonly reason: readonly (string | null)[];
}

const UNRESOLVED = 0;
const GUESSING = 1;
const RESOLVED = 2;

/**
 * `selfCheck` (tests only) re-decides every decision against the final ones
 * and throws if any differs: the outcome must be a consistent resolution.
 */
export function adjudicateMovement(map: GameMap, units: readonly BoardUnit[], options: { readonly selfCheck?: boolean } = {}): MovementOutcome {
  const n = units.length;
  const at = new Map<string, number>();
  units.forEach((u, i) => at.set(u.province, i));

  // Moves into each province, and supports and convoys for each move.
  const movesInto = new Map<string, number[]>();
  const supportsOf: number[][] = Array.from({ length: n }, () => []);
  const convoysOf: number[][] = Array.from({ length: n }, () => []);
  const matched: boolean[] = new Array<boolean>(n).fill(true);
  for (let i = 0; i < n; i++) {
    const o = (units[i] as BoardUnit).order;
    if (o.kind === 'move') {
      const list = movesInto.get(o.to) ?? [];
      list.push(i);
      movesInto.set(o.to, list);
    }
  }
  for (let i = 0; i < n; i++) {
    const o = (units[i] as BoardUnit).order;
    if (o.kind === 'support') {
      const t = at.get(o.from);
      const target = t === undefined ? undefined : (units[t] as BoardUnit).order;
      const ok =
        t !== undefined &&
        target !== undefined &&
        (o.to === null
          ? target.kind !== 'move'
          : target.kind === 'move' && target.to === o.to && (o.toLocation === o.to || o.toLocation === target.toLocation));
      matched[i] = ok;
      if (ok) (supportsOf[t as number] as number[]).push(i);
    } else if (o.kind === 'convoy') {
      const t = at.get(o.from);
      const target = t === undefined ? undefined : (units[t] as BoardUnit).order;
      const ok = t !== undefined && target !== undefined && target.kind === 'move' && target.viaConvoy && target.to === o.to;
      matched[i] = ok;
      if (ok) (convoysOf[t as number] as number[]).push(i);
    }
  }

  // Head-to-head partner of each land move.
  const opponent: number[] = new Array<number>(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const o = (units[i] as BoardUnit).order;
    if (o.kind !== 'move' || o.viaConvoy) continue;
    const j = at.get(o.to);
    if (j === undefined) continue;
    const p = (units[j] as BoardUnit).order;
    if (p.kind === 'move' && !p.viaConvoy && p.to === (units[i] as BoardUnit).province) opponent[i] = j;
  }

  const state = new Uint8Array(n);
  const result: boolean[] = new Array<boolean>(n).fill(false);
  const paradox: boolean[] = new Array<boolean>(n).fill(false);
  // When each decision began to be guessed; a decision that reads a guess
  // begun earlier than its own depends on a cycle it does not head.
  const started = new Float64Array(n);
  let clock = 0;
  // Per decision being computed: the earliest guess it has read so far.
  const lows: number[] = [];
  // Decisions left unresolved because they depend on a guess further out; the head of their cycle settles them.
  const pending: number[] = [];
  const note = (low: number): void => {
    const top = lows.length - 1;
    if (top >= 0 && low < (lows[top] as number)) lows[top] = low;
  };
  const run = (i: number): { value: boolean; low: number } => {
    lows.push(Infinity);
    const value = decide(i);
    return { value, low: lows.pop() as number };
  };

  const resolve = (i: number): boolean => {
    if (state[i] === RESOLVED) return result[i] as boolean;
    if (state[i] === GUESSING) {
      note(started[i] as number);
      return result[i] as boolean;
    }
    const mark = pending.length;
    const mine = ++clock;
    started[i] = mine;
    state[i] = GUESSING;
    result[i] = false;
    const first = run(i);
    if (first.low === Infinity) {
      state[i] = RESOLVED;
      result[i] = first.value;
      return first.value;
    }
    if (first.low < mine) {
      // Part of a bigger cycle: leave it to that cycle's head.
      pending.push(i);
      result[i] = first.value;
      note(first.low);
      return first.value;
    }
    // This decision heads a cycle: try the other guess.
    for (let k = mark; k < pending.length; k++) state[pending[k] as number] = UNRESOLVED;
    pending.length = mark;
    result[i] = true;
    const second = run(i);
    if (second.low < mine) {
      pending.push(i);
      result[i] = second.value;
      note(second.low);
      return second.value;
    }
    const cycle = [i, ...pending.slice(mark)];
    for (let k = mark; k < pending.length; k++) state[pending[k] as number] = UNRESOLVED;
    pending.length = mark;
    if (first.value === second.value) {
      state[i] = RESOLVED;
      result[i] = first.value;
      return first.value;
    }
    // Both guesses hold, or neither does.
    backup(cycle);
    return resolve(i);
  };

  const backup = (cycle: readonly number[]): void => {
    const convoyed = new Set<number>();
    for (const k of cycle) {
      const o = (units[k] as BoardUnit).order;
      if (o.kind === 'convoy' && matched[k] === true) {
        const army = at.get(o.from);
        if (army !== undefined) convoyed.add(army);
      }
    }
    if (convoyed.size > 0) {
      // Szykman: every army convoyed through the paradox stays where it is and has no effect.
      for (const k of convoyed) paradox[k] = true;
      for (const k of cycle) state[k] = UNRESOLVED;
    } else {
      // Circular movement: every move in the cycle succeeds.
      for (const k of cycle) {
        if ((units[k] as BoardUnit).order.kind === 'move') {
          result[k] = true;
          state[k] = RESOLVED;
        } else state[k] = UNRESOLVED;
      }
    }
  };

  /** Whether move i reaches its destination: by land always; by convoy through fleets that stay. */
  const path = (i: number): boolean => {
    const u = units[i] as BoardUnit;
    const o = u.order;
    if (o.kind !== 'move') return false;
    if (!o.viaConvoy) return true;
    if (paradox[i] === true) return false;
    const fleets = convoysOf[i] as number[];
    const reached = new Set<number>();
    const queue: number[] = [];
    for (const f of fleets) {
      const fu = units[f] as BoardUnit;
      if (map.reaches('fleet', fu.at, u.province) && resolve(f)) {
        reached.add(f);
        queue.push(f);
      }
    }
    for (let q = 0; q < queue.length; q++) {
      const fu = units[queue[q] as number] as BoardUnit;
      if (map.reaches('fleet', fu.at, o.to)) return true;
      for (const g of fleets) {
        if (reached.has(g)) continue;
        const gu = units[g] as BoardUnit;
        if (map.reaches('fleet', fu.at, gu.province) && resolve(g)) {
          reached.add(g);
          queue.push(g);
        }
      }
    }
    return false;
  };

  const supportCount = (i: number, excludePower: string | null): number => {
    let count = 0;
    for (const s of supportsOf[i] as number[]) {
      if (excludePower !== null && (units[s] as BoardUnit).power === excludePower) continue;
      if (resolve(s)) count++;
    }
    return count;
  };

  const attackStrength = (i: number): number => {
    if (!path(i)) return 0;
    const u = units[i] as BoardUnit;
    const o = u.order as Extract<MoveOrder, { kind: 'move' }>;
    const d = at.get(o.to);
    if (d === undefined) return 1 + supportCount(i, null);
    const du = units[d] as BoardUnit;
    if (du.order.kind === 'move' && opponent[i] !== d && resolve(d)) return 1 + supportCount(i, null);
    if (du.power === u.power) return 0;
    return 1 + supportCount(i, du.power);
  };

  const holdStrength = (province: string): number => {
    const d = at.get(province);
    if (d === undefined) return 0;
    if ((units[d] as BoardUnit).order.kind === 'move') return resolve(d) ? 0 : 1;
    return 1 + supportCount(d, null);
  };

  const preventStrength = (i: number): number => {
    if (!path(i)) return 0;
    const h = opponent[i] as number;
    if (h >= 0 && resolve(h)) return 0;
    return 1 + supportCount(i, null);
  };

  const decide = (i: number): boolean => {
    const u = units[i] as BoardUnit;
    const o = u.order;
    if (o.kind === 'move') {
      const attack = attackStrength(i);
      const h = opponent[i] as number;
      if (h >= 0) {
        if (attack <= 1 + supportCount(h, null)) return false;
      } else if (attack <= holdStrength(o.to)) return false;
      for (const other of movesInto.get(o.to) ?? []) {
        if (other !== i && attack <= preventStrength(other)) return false;
      }
      return true;
    }
    if (o.kind === 'support') {
      for (const m of movesInto.get(u.province) ?? []) {
        const mu = units[m] as BoardUnit;
        if (mu.power === u.power) continue;
        if (o.to !== null && mu.province === o.to) {
          if (resolve(m)) return false;
          continue;
        }
        if (path(m)) return false;
      }
      return true;
    }
    if (o.kind === 'convoy') {
      for (const m of movesInto.get(u.province) ?? []) if (resolve(m)) return false;
      return true;
    }
    return true;
  };

  for (let i = 0; i < n; i++) {
    const o = (units[i] as BoardUnit).order;
    if (o.kind === 'move' || (o.kind === 'support' && matched[i] === true) || (o.kind === 'convoy' && matched[i] === true)) resolve(i);
  }
  if (options.selfCheck === true) {
    for (let i = 0; i < n; i++) {
      if (state[i] === RESOLVED && decide(i) !== result[i]) throw new Error(`inconsistent decision for the unit at ${(units[i] as BoardUnit).at}`);
    }
  }

  const success = units.map((u, i) =>
    u.order.kind === 'hold' ? true : (u.order.kind === 'support' || u.order.kind === 'convoy') && matched[i] !== true ? false : (result[i] as boolean),
  );
  const hasPath = units.map((_, i) => path(i));
  const dislodgedBy: number[] = new Array<number>(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const o = (units[i] as BoardUnit).order;
    if (o.kind !== 'move' || result[i] !== true) continue;
    const d = at.get(o.to);
    if (d === undefined) continue;
    const du = units[d] as BoardUnit;
    if (du.order.kind === 'move' && result[d] === true) continue;
    dislodgedBy[d] = i;
  }
  const reason = units.map((u, i): string | null => {
    const o = u.order;
    if (o.kind === 'move') {
      if (result[i] === true) return null;
      if (o.viaConvoy && !(hasPath[i] as boolean)) return paradox[i] === true ? 'convoy paradox' : 'convoy disrupted';
      return 'bounced';
    }
    if (o.kind === 'support') return matched[i] !== true ? 'no matching order' : result[i] === true ? null : dislodgedBy[i] !== -1 ? 'dislodged' : 'cut';
    if (o.kind === 'convoy') return matched[i] !== true ? 'no matching order' : result[i] === true ? null : 'dislodged';
    return null;
  });
  return { success, hasPath, matched, dislodgedBy, reason };
}

/** Provinces a standoff left empty: no retreat may go there (docs/spec/diplomacy.md §3.5). */
export function standoffs(units: readonly BoardUnit[], outcome: MovementOutcome): string[] {
  const occupied = new Set<string>();
  units.forEach((u, i) => {
    const o = u.order;
    if (o.kind === 'move' && outcome.success[i] === true) occupied.add(o.to);
    else if (outcome.dislodgedBy[i] === -1) occupied.add(u.province);
  });
  const at = new Map<string, number>();
  units.forEach((u, i) => at.set(u.province, i));
  const contested = new Set<string>();
  units.forEach((u, i) => {
    const o = u.order;
    if (o.kind !== 'move' || outcome.success[i] === true || outcome.hasPath[i] !== true || occupied.has(o.to)) return;
    // Losing a head-to-head to the unit from there is not a standoff.
    const d = at.get(o.to);
    if (d !== undefined && outcome.dislodgedBy[i] === d) return;
    contested.add(o.to);
  });
  return [...contested].sort();
}
