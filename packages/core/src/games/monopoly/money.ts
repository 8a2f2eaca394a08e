/**
 * Paying, raising money and bankruptcy (docs/spec/monopoly.md §7).
 *
 * Every payment is a debt in a queue, paid in order. A debtor short of cash
 * is asked to raise money (sell buildings, mortgage) until it can pay; the
 * safe default, also what a missed deadline does, is the automatic
 * liquidation written here. A debtor who cannot pay even after selling every
 * building and mortgaging every deed is bankrupt: to a player, who receives
 * its cash, deeds (mortgages included, paying 10% interest on each) and Get
 * Out of Jail Free cards, its buildings sold to the bank first; or to the
 * bank, whose deeds return unowned and unmortgaged, buildings to the bank's
 * stock, and cards to their piles.
 */
import { deedAt, HOTEL, interestOf, mortgageValue, type Street } from './board.js';
import { sell, whyNotSell } from './building.js';
import { mortgage, whyNotMortgage } from './mortgage.js';
import { returnCard, giveCard } from './cards.js';
import type { Draft } from './state.js';
import { ownedBy } from './state.js';

/** Money owed to the bank, which the Free Parking house rule diverts to the pot. */
export function oweBank(d: Draft, from: string, amount: number, why: string): void {
  if (amount > 0) d.debts.push({ from, to: d.rules.freeParkingPot ? 'pot' : 'bank', amount, why });
}

export function owe(d: Draft, from: string, to: string, amount: number, why: string): void {
  if (amount > 0 && from !== to) d.debts.push({ from, to, amount, why });
}

/** Cash plus everything a player could raise: half the cost of each building, the mortgage value of each unmortgaged deed. */
export function liquidationValue(d: Pick<Draft, 'deeds' | 'cash'>, player: string): number {
  let total = d.cash[player] ?? 0;
  for (const q of ownedBy(d, player)) {
    const h = d.deeds[q]!;
    const deed = deedAt(q)!;
    if (deed.kind === 'street') total += (deed.house / 2) * (h.houses === HOTEL ? 5 : h.houses);
    if (!h.mortgaged) total += mortgageValue(deed);
  }
  return total;
}

/**
 * The automatic liquidation: one building at a time from the street with the most buildings (the
 * highest square on a tie, which is always an even sale), then mortgages from the lowest square up,
 * stopping as soon as the player holds `target`.
 */
export function liquidate(d: Draft, player: string, target: number): boolean {
  for (;;) {
    if (d.cash[player]! >= target) return true;
    const built = ownedBy(d, player).filter((q) => (d.deeds[q]!.houses ?? 0) > 0 && whyNotSell(d, player, q) === null);
    if (built.length === 0) break;
    const most = built.reduce((a, b) => (d.deeds[b]!.houses >= d.deeds[a]!.houses ? b : a));
    const paid = sell(d, player, most);
    d.log.push({ sold: most, by: player, paid });
  }
  for (const q of ownedBy(d, player)) {
    if (d.cash[player]! >= target) return true;
    if (whyNotMortgage(d, player, q) === null) {
      mortgage(d, player, q);
      d.log.push({ mortgaged: q, by: player });
    }
  }
  return d.cash[player]! >= target;
}

function receive(d: Draft, to: string, amount: number): void {
  if (to === 'pot') d.pot += amount;
  else if (to !== 'bank' && d.cash[to] !== undefined && d.players.includes(to)) d.cash[to]! += amount;
}

/**
 * Pays the queue in order; stops at the first debtor short of cash (the caller asks it to raise money).
 * Returns true when the queue is empty.
 */
export function payDebts(d: Draft): boolean {
  while (d.debts.length > 0) {
    const debt = d.debts[0]!;
    if (!d.players.includes(debt.from)) {
      d.debts.shift();
      continue;
    }
    if (d.cash[debt.from]! < debt.amount) {
      if (liquidationValue(d, debt.from) >= debt.amount) return false;
      // Nothing it could sell would pay: bankrupt at once, no question asked.
      bankrupt(d, debt.from, debt.to === 'pot' ? 'bank' : debt.to);
      continue;
    }
    d.debts.shift();
    d.cash[debt.from]! -= debt.amount;
    receive(d, debt.to, debt.amount);
    d.log.push({ paid: debt.amount, from: debt.from, to: debt.to, for: debt.why });
  }
  return true;
}

/** Removes a player from the game, passing what it has to `creditor` (a player) or back to the bank. */
export function bankrupt(d: Draft, player: string, creditor: string): void {
  const toPlayer = creditor !== 'bank' && creditor !== 'pot' && d.players.includes(creditor) && creditor !== player;
  // Buildings go back to the bank at half their cost first; that money is part of what the creditor receives.
  for (const q of ownedBy(d, player)) {
    const h = d.deeds[q]!;
    if (h.houses === 0) continue;
    const deed = deedAt(q) as Street;
    const hotel = h.houses === HOTEL;
    d.bank = { houses: d.bank.houses + (hotel ? 0 : h.houses), hotels: d.bank.hotels + (hotel ? 1 : 0) };
    d.cash[player]! += (deed.house / 2) * (hotel ? 5 : h.houses);
    d.deeds[q] = { ...h, houses: 0 };
  }
  const cash = d.cash[player]!;
  const deeds = ownedBy(d, player);
  const cards = d.cards[player] ?? [];
  delete d.cards[player];
  if (toPlayer) {
    d.cash[creditor]! += cash;
    for (const q of deeds) {
      const h = d.deeds[q]!;
      d.deeds[q] = { ...h, owner: creditor };
      if (h.mortgaged) d.debts.push({ from: creditor, to: d.rules.freeParkingPot ? 'pot' : 'bank', amount: interestOf(deedAt(q)!), why: `interest on ${q}` });
    }
    for (const c of cards) giveCard(d, creditor, c);
  } else {
    for (const q of deeds) delete d.deeds[q];
    for (const c of cards) returnCard(d, c);
  }
  d.cash[player] = 0;
  d.players = d.players.filter((p) => p !== player);
  d.out.push(player);
  delete d.jail[player];
  d.debts = d.debts.filter((x) => x.from !== player);
  d.log.push({ bankrupt: player, to: toPlayer ? creditor : 'bank', cash, deeds });
}
