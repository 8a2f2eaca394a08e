/**
 * A roll and what follows it (docs/spec/monopoly.md §2, §10, §11): movement,
 * Go, the square landed on (rent, taxes, cards, Go to Jail, Free Parking),
 * doubles and the third double, jail rolls, then the debts, the offer to buy,
 * and the passing of the turn. All the chance a roll needs is drawn here, in
 * one go, so a decision never waits between two draws.
 */
import type { Chance } from '../../chance.js';
import { BOARD, deedAt, JAIL, RAILROADS, UTILITIES } from './board.js';
import { buildingsOf } from './building.js';
import { draw, giveCard } from './cards.js';
import { owe, oweBank, payDebts } from './money.js';
import { rentFor, type RentCase } from './rent.js';
import type { Draft, Pile } from './state.js';

export function moveTo(d: Draft, player: string, to: number, passGo: boolean): void {
  const from = d.position[player]!;
  if (passGo && to < from) {
    d.cash[player]! += d.rules.goSalary;
    d.log.push({ passedGo: player });
  }
  d.position[player] = to;
}

export function toJail(d: Draft, player: string): void {
  d.position[player] = JAIL;
  d.jail[player] = 0;
  if (player === d.mover) d.again = false;
  d.log.push({ jail: player });
}

/** Resolves the square the mover stands on after a roll of `sum`. */
function land(d: Draft, chance: Chance, sum: number, rentCase: RentCase = 'normal', depth = 0): void {
  const p = d.mover;
  const at = d.position[p]!;
  const square = BOARD[at]!;
  switch (square.kind) {
    case 'go-to-jail':
      toJail(d, p);
      return;
    case 'tax':
      oweBank(d, p, square.amount, square.name);
      return;
    case 'free-parking':
      if (d.rules.freeParkingPot && d.pot > 0) {
        d.log.push({ pot: d.pot, to: p });
        d.cash[p]! += d.pot;
        d.pot = 0;
      }
      return;
    case 'chance':
    case 'chest':
      if (depth < 2) applyCard(d, chance, square.kind, sum, depth);
      return;
    case 'street':
    case 'railroad':
    case 'utility': {
      const h = d.deeds[at];
      if (h === undefined) {
        d.buy = at;
        return;
      }
      if (h.owner === p || h.mortgaged) return;
      // The nearest-utility card's rent is ten times a fresh throw of the dice.
      const dice = rentCase === 'ten' ? chance.dice(2, 6) : null;
      if (dice !== null) d.log.push({ utilityRoll: dice });
      const rent = rentFor(d.deeds, at, dice === null ? sum : dice[0]! + dice[1]!, rentCase);
      owe(d, p, h.owner, rent, `rent on ${at}`);
      return;
    }
    default:
      return;
  }
}

function applyCard(d: Draft, chance: Chance, pile: Pile, sum: number, depth: number): void {
  const p = d.mover;
  const card = draw(d, pile, chance);
  d.log.push({ card: card.text, pile });
  const e = card.effect;
  switch (e.kind) {
    case 'advance':
      moveTo(d, p, e.to, true);
      land(d, chance, sum, 'normal', depth + 1);
      return;
    case 'nearest': {
      const targets = e.of === 'railroad' ? RAILROADS : UTILITIES;
      const at = d.position[p]!;
      moveTo(d, p, targets.find((t) => t > at) ?? targets[0]!, true);
      land(d, chance, sum, e.of === 'railroad' ? 'double' : 'ten', depth + 1);
      return;
    }
    case 'back':
      d.position[p] = (d.position[p]! - e.by + 40) % 40;
      land(d, chance, sum, 'normal', depth + 1);
      return;
    case 'jail':
      toJail(d, p);
      return;
    case 'cash':
      if (e.amount > 0) d.cash[p]! += e.amount;
      else oweBank(d, p, -e.amount, card.text);
      return;
    case 'each':
      for (const other of d.players) {
        if (other === p) continue;
        if (e.amount > 0) owe(d, other, p, e.amount, card.text);
        else owe(d, p, other, -e.amount, card.text);
      }
      return;
    case 'repairs': {
      const b = buildingsOf(d, p);
      oweBank(d, p, b.houses * e.house + b.hotels * e.hotel, card.text);
      return;
    }
    case 'keep':
      giveCard(d, p, pile);
      return;
  }
}

/** The mover's roll (stage 'roll'). */
export function roll(d: Draft, chance: Chance): void {
  const p = d.mover;
  const dice = chance.dice(2, 6);
  const sum = dice[0]! + dice[1]!;
  const isDouble = dice[0] === dice[1];
  d.lastRoll = dice;
  d.log.push({ roll: dice, player: p });
  d.resume = 'roll';
  d.again = false;
  if (d.jail[p] !== undefined) {
    const tries = d.jail[p]! + 1;
    if (!isDouble && tries < 3) {
      d.jail[p] = tries;
      d.log.push({ stays: p, tries });
      proceed(d);
      return;
    }
    // Out: on doubles (no roll again), or after the third failure, paying bail first.
    delete d.jail[p];
    if (!isDouble) oweBank(d, p, d.rules.bail, 'bail');
    moveTo(d, p, (d.position[p]! + sum) % 40, true);
    land(d, chance, sum);
    proceed(d);
    return;
  }
  if (isDouble) d.doubles++;
  if (d.doubles === 3) {
    toJail(d, p);
    proceed(d);
    return;
  }
  moveTo(d, p, (d.position[p]! + sum) % 40, true);
  d.again = isDouble;
  land(d, chance, sum);
  proceed(d);
}

/** After anything that may have left debts: pay them (or ask for money), offer the square, then pass on. */
export function proceed(d: Draft): void {
  if (!payDebts(d)) {
    d.stage = { kind: 'raise' };
    return;
  }
  if (d.players.length <= 1) {
    d.stage = { kind: 'over' };
    return;
  }
  if (!d.players.includes(d.mover)) {
    nextTurn(d);
    return;
  }
  if (d.resume === 'turn') {
    d.stage = { kind: 'turn' };
    return;
  }
  if (d.buy !== null) {
    const square = d.buy;
    if (d.deeds[square] === undefined && deedAt(square) !== null) {
      d.stage = { kind: 'buy', square };
      return;
    }
    d.buy = null;
  }
  if (d.again && d.jail[d.mover] === undefined) {
    d.stage = { kind: 'turn' };
    return;
  }
  nextTurn(d);
}

export function nextTurn(d: Draft): void {
  d.doubles = 0;
  d.again = false;
  d.offers = 0;
  d.buy = null;
  d.resume = 'roll';
  if (d.players.length <= 1) {
    d.stage = { kind: 'over' };
    return;
  }
  const from = d.seats.indexOf(d.mover);
  let next = from;
  for (let i = 1; i <= d.seats.length; i++) {
    const cand = (from + i) % d.seats.length;
    if (d.players.includes(d.seats[cand]!)) {
      next = cand;
      break;
    }
  }
  if (next <= from) d.round++;
  d.turns++;
  d.mover = d.seats[next]!;
  d.stage = d.rules.rounds > 0 && d.round >= d.rules.rounds ? { kind: 'over' } : { kind: 'turn' };
}
