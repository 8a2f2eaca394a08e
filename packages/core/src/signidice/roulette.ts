/**
 * What players bet on and what a lucky number pays (docs/spec/signidice.md §5).
 * European roulette (0–36): straight (35 to 1), red/black, odd/even (1 to 1;
 * zero loses), dozens (2 to 1). A dice game: a face of one d6 (5 to 1).
 */
export const RED = new Set([1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);

export type BetKind = 'straight' | 'red' | 'black' | 'odd' | 'even' | 'dozen' | 'face';

export interface Bet {
  readonly kind: BetKind;
  readonly pick: number | null;
  readonly amount: number;
}

export type Wheel = 'roulette' | 'dice';

/** Why a bet is not a bet on this wheel, or null. */
export function betError(wheel: Wheel, value: unknown): string | null {
  const b = value as Partial<Bet> | null;
  if (b === null || typeof b !== 'object') return 'bet must be {kind, pick, amount}';
  if (typeof b.amount !== 'number' || !Number.isSafeInteger(b.amount) || b.amount < 1) return 'amount must be a positive integer';
  const pick = b.pick;
  if (wheel === 'dice')
    return b.kind === 'face' && typeof pick === 'number' && Number.isInteger(pick) && pick >= 1 && pick <= 6
      ? null
      : 'a dice bet is {kind: "face", pick: 1..6}';
  switch (b.kind) {
    case 'straight':
      return typeof pick === 'number' && Number.isInteger(pick) && pick >= 0 && pick <= 36 ? null : 'straight: pick 0..36';
    case 'dozen':
      return typeof pick === 'number' && Number.isInteger(pick) && pick >= 1 && pick <= 3 ? null : 'dozen: pick 1..3';
    case 'red':
    case 'black':
    case 'odd':
    case 'even':
      return pick === null ? null : `${b.kind}: pick must be null`;
    default:
      return `unknown bet kind ${String(b.kind)}`;
  }
}

/** Winnings multiple for a lucky number: 0 when the bet loses, else what each unit staked wins (stake returned too). */
export function payout(bet: Bet, lucky: number): number {
  switch (bet.kind) {
    case 'straight':
      return bet.pick === lucky ? 35 : 0;
    case 'red':
      return RED.has(lucky) ? 1 : 0;
    case 'black':
      return lucky !== 0 && !RED.has(lucky) ? 1 : 0;
    case 'odd':
      return lucky % 2 === 1 ? 1 : 0;
    case 'even':
      return lucky !== 0 && lucky % 2 === 0 ? 1 : 0;
    case 'dozen':
      return lucky >= 1 && Math.ceil(lucky / 12) === bet.pick ? 2 : 0;
    case 'face':
      return bet.pick === lucky ? 5 : 0;
  }
}

/** The size of the wheel: the lucky number is below(size) (+1 for dice). */
export const wheelSize = (wheel: Wheel): number => (wheel === 'dice' ? 6 : 37);
