/**
 * An automatic Monopoly player (docs/spec/monopoly.md §14), for simulations
 * and the bench: it reads the game from the decision's `view` and plays a
 * plain, legal game. It buys what it can afford above a cash reserve, bids up
 * to a random share of the price, builds evenly while it keeps the reserve,
 * lifts mortgages when rich, offers cash for the one street that would
 * complete a colour group, accepts an offer worth half again what it gives,
 * and raises money with the automatic liquidation. Random draws go through
 * an unbiased `below`.
 */
import type { JsonValue } from '../jcs.js';
import { deedAt, groupSquares, unmortgageCost } from '../games/monopoly/board.js';
import { monopolyGame, legalDecisions } from '../games/monopoly/index.js';
import type { MonopolyState, TradeSide } from '../games/monopoly/state.js';
import { ownedBy } from '../games/monopoly/state.js';
import type { Decision } from '../protocols/machine.js';
import { RandomStream } from '../stream.js';
import { randomChoice, type Strategy } from './strategies.js';

const RESERVE = 150;

function sideValue(s: MonopolyState, side: TradeSide): number {
  return side.cash + side.squares.reduce((sum, q) => sum + (deedAt(q)?.price ?? 0) / (s.deeds[q]?.mortgaged ? 2 : 1), 0);
}

/** The street `me` lacks to complete a group, held alone and unbuilt by one other player. */
function wantedStreet(s: MonopolyState, me: string): { square: number; owner: string } | null {
  const groups = new Set(ownedBy(s, me).map((q) => deedAt(q)!.group));
  for (const g of groups) {
    if (g === 'railroad' || g === 'utility') continue;
    const squares = groupSquares(g);
    const missing = squares.filter((q) => s.deeds[q]?.owner !== me);
    if (missing.length !== 1) continue;
    const owner = s.deeds[missing[0]!]?.owner;
    if (owner === undefined || owner === me || squares.some((q) => (s.deeds[q]?.houses ?? 0) > 0)) continue;
    return { square: missing[0]!, owner };
  }
  return null;
}

function turnChoice(s: MonopolyState, me: string, stream: RandomStream, trade: boolean): JsonValue {
  const cash = s.cash[me] ?? 0;
  const legal = legalDecisions(s, me);
  const has = (c: JsonValue): boolean => legal.some((l) => JSON.stringify(l.choice) === JSON.stringify(c));
  if (s.jail[me] !== undefined) {
    if (has({ do: 'card' })) return { do: 'card' };
    // Early on, leaving jail to buy is worth the bail; later, jail is a safe place.
    if (has({ do: 'bail' }) && s.round < 15 && cash > 400) return { do: 'bail' };
  }
  const builds = legal.filter((l) => (l.choice as { do?: string }).do === 'build');
  for (const b of builds) {
    const deed = deedAt((b.choice as { square: number }).square);
    if (deed?.kind === 'street' && cash - deed.house >= RESERVE) return b.choice;
  }
  for (const l of legal) {
    const c = l.choice as { do?: string; square?: number };
    if (c.do === 'unmortgage' && cash - unmortgageCost(deedAt(c.square!)!) >= 3 * RESERVE) return l.choice;
  }
  const want = trade ? wantedStreet(s, me) : null;
  if (want !== null && s.offers === 0 && stream.below(3) === 0) {
    const price = deedAt(want.square)!.price * 2;
    if (cash - price >= RESERVE) {
      const offer = { do: 'trade', to: want.owner, give: { squares: [], cash: price, cards: [] }, get: { squares: [want.square], cash: 0, cards: [] } };
      if (monopolyGame.whyIllegal(s, me, offer) === null) return offer;
    }
  }
  return { do: 'roll' };
}

export interface MonopolyStyle {
  /** Offer cash for the street that completes a group (default true); without trades, games run long. */
  readonly trade?: boolean;
}

export function monopolyStrategy(me: string, seed: Uint8Array, style: MonopolyStyle = {}): Strategy {
  const trade = style.trade ?? true;
  const stream = new RandomStream(seed, 'monopoly-strategy');
  return (decision: Decision): JsonValue => {
    const s = decision.view as MonopolyState | undefined;
    if (s === undefined || typeof s !== 'object' || s === null || !('stage' in s)) return randomChoice(decision.choices, stream);
    const cash = s.cash[me] ?? 0;
    const st = s.stage;
    let choice: JsonValue;
    switch (st.kind) {
      case 'turn':
        choice = turnChoice(s, me, stream, trade);
        break;
      case 'buy':
        choice = cash - deedAt(st.square)!.price >= RESERVE ? { do: 'buy' } : { do: 'decline' };
        break;
      case 'auction': {
        const price = deedAt(st.square)!.price;
        const share = 50 + stream.below(71);
        choice = Math.max(0, Math.min(cash - RESERVE, Math.floor((price * share) / 100)));
        break;
      }
      case 'trade': {
        const o = st.offer;
        choice = sideValue(s, o.give) >= 1.5 * sideValue(s, o.get) ? { do: 'accept' } : { do: 'decline' };
        break;
      }
      default:
        choice = { do: 'auto' };
    }
    return monopolyGame.whyIllegal(s, me, choice) === null ? choice : (legalDecisions(s, me)[0]?.choice ?? null);
  };
}
