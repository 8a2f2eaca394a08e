/**
 * What a person reads (docs/spec/monopoly.md §13): a plain-text board summary
 * for mail and terminals, and net worth, the rule that ranks players when a
 * game ends after its set number of rounds.
 */
import { BOARD, deedAt, HOTEL, mortgageValue, squareName } from './board.js';
import { legalDecisions } from './decisions.js';
import { ownedBy, type MonopolyState } from './state.js';

/** Cash, plus each deed at its price (less the mortgage when mortgaged), plus buildings at what they cost. */
export function netWorth(s: Pick<MonopolyState, 'cash' | 'deeds'>, player: string): number {
  let total = s.cash[player] ?? 0;
  for (const q of ownedBy(s, player)) {
    const deed = deedAt(q)!;
    const h = s.deeds[q]!;
    total += h.mortgaged ? deed.price - mortgageValue(deed) : deed.price;
    if (deed.kind === 'street') total += deed.house * (h.houses === HOTEL ? 5 : h.houses);
  }
  return total;
}

const money = (n: number): string => `$${n.toLocaleString('en-US')}`;

function buildings(houses: number): string {
  if (houses === HOTEL) return 'hotel';
  return houses === 0 ? '' : `${houses} house${houses === 1 ? '' : 's'}`;
}

function stageText(s: MonopolyState): string {
  const st = s.stage;
  switch (st.kind) {
    case 'turn':
      return `${s.mover} to decide, then roll`;
    case 'roll':
      return `${s.mover} to roll`;
    case 'buy':
      return `${s.mover} may buy ${squareName(st.square)}`;
    case 'auction':
      return `sealed auction of ${squareName(st.square)} among ${st.bidders.join(', ')}`;
    case 'trade':
      return `${st.offer.to} to answer ${st.offer.from}'s trade offer`;
    case 'raise':
      return `${s.debts[0]?.from ?? '?'} must raise ${money(s.debts[0]?.amount ?? 0)}`;
    case 'over':
      return 'the game is over';
  }
}

/** The board as plain text; with `player`, ends with that player's legal decisions, numbered. */
export function boardSummary(s: MonopolyState, player?: string): string {
  const lines: string[] = [];
  lines.push(`Monopoly, round ${s.round + 1}${s.rules.rounds > 0 ? ` of ${s.rules.rounds}` : ''}: ${stageText(s)}.`);
  if (s.lastRoll !== null) lines.push(`Last roll: ${s.lastRoll.join(' + ')} = ${s.lastRoll.reduce((a, b) => a + b, 0)}.`);
  lines.push('', 'Players:');
  for (const p of s.seats) {
    if (!s.players.includes(p)) {
      lines.push(`  ${p}: out`);
      continue;
    }
    const at = s.position[p]!;
    const jail = s.jail[p] !== undefined ? `, in jail (${s.jail[p]} failed ${s.jail[p] === 1 ? 'try' : 'tries'})` : '';
    const cards = (s.cards[p] ?? []).length > 0 ? `, Get Out of Jail Free: ${(s.cards[p] ?? []).join(', ')}` : '';
    lines.push(
      `  ${p}${p === s.mover ? ' (to move)' : ''}: ${money(s.cash[p]!)}, on ${BOARD[at]!.name} (${at})${jail}${cards}; net worth ${money(netWorth(s, p))}`,
    );
  }
  lines.push('', 'Deeds:');
  const owned = Object.keys(s.deeds)
    .map(Number)
    .sort((a, b) => a - b);
  if (owned.length === 0) lines.push('  none owned');
  for (const q of owned) {
    const h = s.deeds[q]!;
    const extra = [buildings(h.houses), h.mortgaged ? 'mortgaged' : ''].filter((x) => x !== '').join(', ');
    lines.push(`  ${squareName(q)} (${q}): ${h.owner}${extra === '' ? '' : `, ${extra}`}`);
  }
  lines.push('', `Bank: ${s.bank.houses} houses, ${s.bank.hotels} hotels.${s.rules.freeParkingPot ? ` Free Parking pot: ${money(s.pot)}.` : ''}`);
  if (player !== undefined) {
    const legal = legalDecisions(s, player);
    lines.push('', legal.length === 0 ? `Nothing for ${player} to decide now.` : `${player}, your choices:`);
    legal.forEach((l, i) => lines.push(`  ${i + 1}. ${l.label}: ${JSON.stringify(l.choice)}${l.form === undefined ? '' : ' (fill in)'}`));
  }
  return lines.join('\n') + '\n';
}
