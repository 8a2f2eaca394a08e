/**
 * The players' decisions (docs/spec/monopoly.md §10): who is asked what in
 * each stage, the legal answers (as `Choices` a user interface renders and a
 * list with names in the players' language), the safe default a missed
 * deadline takes, whether an answer is legal, and what each answer does.
 *
 *   stage    asked          answers                                   default
 *   turn     the mover      roll; bail; card; build, sell, mortgage,  roll
 *                           unmortgage a square; offer a trade
 *   buy      the mover      buy; decline                              decline
 *   auction  every player   a sealed bid, 0 to pass                    0 (pass)
 *   trade    the offeree    accept; decline                           decline
 *   raise    the debtor     sell, mortgage a square; auto             auto
 */
import type { JsonValue } from '../../jcs.js';
import type { Choices } from '../../protocols/machine.js';
import { deedAt, DEED_SQUARES, squareName, unmortgageCost, mortgageValue, HOTEL } from './board.js';
import { build, groupBuilt, sell, whyNotBuild, whyNotSell } from './building.js';
import { mortgage, unmortgage, whyNotMortgage, whyNotUnmortgage } from './mortgage.js';
import { returnCard, takeCard } from './cards.js';
import { bankrupt, liquidate } from './money.js';
import { settleAuction, whyNotBid } from './auction.js';
import { carryOut, isEmptyOffer, whyNotOffer } from './trade.js';
import { proceed } from './turn.js';
import { ownedBy, type Draft, type MonopolyState, type Offer, type Pile } from './state.js';

export interface Question {
  readonly kind: 'turn' | 'buy' | 'bid' | 'trade' | 'raise';
  readonly prompt: string;
  readonly choices: Choices;
  /** What a missed deadline answers. */
  readonly fallback: JsonValue;
}

/** One legal answer with its name in the players' language; a form (a bid, a trade) stands for many. */
export interface Legal {
  readonly label: string;
  readonly choice: JsonValue;
  /** Set when `choice` is a template whose blanks the player fills in (`choices` says how). */
  readonly form?: Choices;
}

const MANAGE = ['build', 'sell', 'mortgage', 'unmortgage'] as const;
type Manage = (typeof MANAGE)[number];

function whyNotManage(s: MonopolyState, player: string, action: Manage, square: number): string | null {
  switch (action) {
    case 'build':
      return whyNotBuild(s, player, square);
    case 'sell':
      return whyNotSell(s, player, square);
    case 'mortgage':
      return whyNotMortgage(s, player, square);
    case 'unmortgage':
      return whyNotUnmortgage(s, player, square);
  }
}

function manageLabel(s: MonopolyState, action: Manage, square: number): string {
  const deed = deedAt(square)!;
  const name = squareName(square);
  switch (action) {
    case 'build':
      return `Build ${(s.deeds[square]?.houses ?? 0) === 4 ? 'a hotel' : 'a house'} on ${name} ($${deed.kind === 'street' ? deed.house : 0})`;
    case 'sell':
      return `Sell ${(s.deeds[square]?.houses ?? 0) === HOTEL ? 'the hotel' : 'a house'} on ${name} to the bank`;
    case 'mortgage':
      return `Mortgage ${name} (receive $${mortgageValue(deed)})`;
    case 'unmortgage':
      return `Lift the mortgage on ${name} ($${unmortgageCost(deed)})`;
  }
}

function manageList(s: MonopolyState, player: string, actions: readonly Manage[]): Legal[] {
  const out: Legal[] = [];
  for (const action of actions)
    for (const q of ownedBy(s, player))
      if (whyNotManage(s, player, action, q) === null) out.push({ label: manageLabel(s, action, q), choice: { do: action, square: q } });
  return out;
}

const tradable = (s: MonopolyState, player: string): number[] => ownedBy(s, player).filter((q) => !groupBuilt(s, q));

function sideForm(s: MonopolyState, player: string): Choices {
  const squares = tradable(s, player);
  const cards = [...new Set(s.cards[player] ?? [])];
  return {
    type: 'record',
    fields: {
      squares: { type: 'list', of: { type: 'one-of', values: squares }, max: squares.length },
      cash: { type: 'integer', min: '0', max: String(s.cash[player] ?? 0) },
      cards: { type: 'list', of: { type: 'one-of', values: cards }, max: (s.cards[player] ?? []).length },
    },
  };
}

export function tradeForm(s: MonopolyState, from: string, to: string): Choices {
  return {
    type: 'record',
    fields: { do: { type: 'one-of', values: ['trade'] }, to: { type: 'one-of', values: [to] }, give: sideForm(s, from), get: sideForm(s, to) },
  };
}

/** Every legal answer of `player` now, named; empty when the game asks it nothing. */
export function legalDecisions(s: MonopolyState, player: string): Legal[] {
  const st = s.stage;
  switch (st.kind) {
    case 'turn': {
      if (player !== s.mover) return [];
      const inJail = s.jail[player] !== undefined;
      const out: Legal[] = [{ label: inJail ? 'Roll for doubles to leave jail' : 'Roll the dice', choice: { do: 'roll' } }];
      if (inJail && (s.cash[player] ?? 0) >= s.rules.bail) out.push({ label: `Pay $${s.rules.bail} bail, then roll`, choice: { do: 'bail' } });
      if (inJail && (s.cards[player] ?? []).length > 0) out.push({ label: 'Use a Get Out of Jail Free card, then roll', choice: { do: 'card' } });
      out.push(...manageList(s, player, MANAGE));
      if (s.offers < s.rules.offersPerTurn)
        for (const other of s.players)
          if (other !== player)
            out.push({
              label: `Offer ${other} a trade`,
              choice: { do: 'trade', to: other, give: { squares: [], cash: 0, cards: [] }, get: { squares: [], cash: 0, cards: [] } },
              form: tradeForm(s, player, other),
            });
      return out;
    }
    case 'buy': {
      if (player !== s.mover) return [];
      const deed = deedAt(st.square)!;
      const out: Legal[] = [];
      if ((s.cash[player] ?? 0) >= deed.price) out.push({ label: `Buy ${deed.name} for $${deed.price}`, choice: { do: 'buy' } });
      out.push({ label: `Decline ${deed.name} (it goes to auction)`, choice: { do: 'decline' } });
      return out;
    }
    case 'auction':
      if (!st.bidders.includes(player)) return [];
      return [
        {
          label: `Bid for ${squareName(st.square)} (sealed; 0 passes)`,
          choice: 0,
          form: { type: 'integer', min: '0', max: String(s.cash[player] ?? 0) },
        },
      ];
    case 'trade': {
      if (player !== st.offer.to) return [];
      return [
        { label: `Accept ${st.offer.from}'s offer: ${describeOffer(st.offer)}`, choice: { do: 'accept' } },
        { label: `Decline ${st.offer.from}'s offer`, choice: { do: 'decline' } },
      ];
    }
    case 'raise': {
      const debt = s.debts[0];
      if (debt === undefined || debt.from !== player) return [];
      return [
        { label: `Raise the money automatically (sell buildings, then mortgage), or go bankrupt if you cannot`, choice: { do: 'auto' } },
        ...manageList(s, player, ['sell', 'mortgage']),
      ];
    }
    default:
      return [];
  }
}

function describeSide(side: Offer['give']): string {
  const parts = [...side.squares.map(squareName), ...(side.cash > 0 ? [`$${side.cash}`] : []), ...side.cards.map((c) => `a Get Out of Jail Free card (${c})`)];
  return parts.length === 0 ? 'nothing' : parts.join(', ');
}

export function describeOffer(o: Offer): string {
  return `${o.from} gives ${describeSide(o.give)} for ${describeSide(o.get)}`;
}

/** Who must answer now, and whether the answers are sealed (committed, then revealed together). */
export function askedNow(s: MonopolyState): { players: string[]; sealed: boolean } | null {
  const st = s.stage;
  switch (st.kind) {
    case 'turn':
    case 'buy':
      return { players: [s.mover], sealed: false };
    case 'auction':
      return { players: st.bidders.filter((p) => s.players.includes(p)), sealed: true };
    case 'trade':
      return { players: [st.offer.to], sealed: false };
    case 'raise':
      return { players: [s.debts[0]!.from], sealed: false };
    default:
      return null;
  }
}

const FALLBACK: Record<string, JsonValue> = { turn: { do: 'roll' }, buy: { do: 'decline' }, auction: 0, trade: { do: 'decline' }, raise: { do: 'auto' } };

export function question(s: MonopolyState, player: string): Question | null {
  const legal = legalDecisions(s, player);
  if (legal.length === 0) return null;
  const kind = s.stage.kind === 'auction' ? 'bid' : (s.stage.kind as Question['kind']);
  const plain = legal.filter((l) => l.form === undefined).map((l) => l.choice);
  const forms = legal.flatMap((l) => (l.form === undefined ? [] : [l.form]));
  const choices: Choices =
    forms.length === 0
      ? { type: 'one-of', values: plain }
      : plain.length === 0 && forms.length === 1
        ? forms[0]!
        : { type: 'any-of', options: [...(plain.length > 0 ? [{ type: 'one-of' as const, values: plain }] : []), ...forms] };
  return { kind, prompt: `${player}: ${promptOf(s)}`, choices, fallback: FALLBACK[s.stage.kind]! };
}

function promptOf(s: MonopolyState): string {
  const st = s.stage;
  switch (st.kind) {
    case 'turn':
      return s.jail[s.mover] !== undefined
        ? 'you are in jail: roll, pay bail or use a card (or manage your property first)'
        : 'your turn: roll (or manage your property first)';
    case 'buy':
      return `buy ${squareName(st.square)} for $${deedAt(st.square)!.price}, or decline and it goes to auction`;
    case 'auction':
      return `sealed bid for ${squareName(st.square)}`;
    case 'trade':
      return `${describeOffer(st.offer)}: accept or decline`;
    case 'raise':
      return `you owe $${s.debts[0]!.amount} (${s.debts[0]!.why}) and have $${s.cash[s.debts[0]!.from] ?? 0}: raise the money`;
    default:
      return '';
  }
}

function isRecord(v: JsonValue): v is { [k: string]: JsonValue } {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/** Why `choice` is not a legal answer of `player` now, or null when it is. */
export function whyIllegal(s: MonopolyState, player: string, choice: JsonValue): string | null {
  const asked = askedNow(s);
  if (asked === null || !asked.players.includes(player)) return `${player} is not asked anything now`;
  const st = s.stage;
  if (st.kind === 'auction') return whyNotBid(s.cash[player] ?? 0, choice);
  if (!isRecord(choice) || typeof choice.do !== 'string') return 'expected {"do": …}';
  const action = choice.do;
  if (st.kind === 'turn' && action === 'trade') {
    if (s.offers >= s.rules.offersPerTurn) return `at most ${s.rules.offersPerTurn} offers a turn`;
    const offer = { from: player, to: choice.to, give: choice.give, get: choice.get } as unknown as Offer;
    if (typeof offer.to !== 'string') return 'a trade names the player it is offered to';
    return whyNotOffer(s, offer);
  }
  if ((MANAGE as readonly string[]).includes(action) && (st.kind === 'turn' || (st.kind === 'raise' && (action === 'sell' || action === 'mortgage')))) {
    const q = choice.square;
    if (typeof q !== 'number' || !DEED_SQUARES.includes(q)) return 'expected a deed square';
    return whyNotManage(s, player, action as Manage, q);
  }
  const legal = legalDecisions(s, player).some((l) => l.form === undefined && JSON.stringify(l.choice) === JSON.stringify({ do: action }));
  return legal && Object.keys(choice).length === 1 ? null : `"${action}" is not a legal answer now`;
}

/** Applies the answers of everyone asked (an illegal or missing answer is the default), on a draft. */
export function applyAnswers(d: Draft, s: MonopolyState, answers: Readonly<Record<string, JsonValue>>): void {
  const asked = askedNow(s);
  if (asked === null) return;
  const fallback = FALLBACK[s.stage.kind]!;
  const pick = (p: string): JsonValue => {
    const a = answers[p];
    if (a === undefined) return fallback;
    const why = whyIllegal(s, p, a);
    if (why !== null) {
      d.log.push({ illegal: p, why, answer: a });
      return fallback;
    }
    return a;
  };
  const st = s.stage;
  if (st.kind === 'auction') {
    const bids: Record<string, number> = {};
    for (const p of asked.players) bids[p] = pick(p) as number;
    d.buy = null;
    settleAuction(d, st.square, asked.players, bids);
    proceed(d);
    return;
  }
  const player = asked.players[0]!;
  const choice = pick(player) as { do: string; square?: number; to?: string };
  d.log.push({ decided: player, choice: choice as JsonValue });
  switch (st.kind) {
    case 'turn':
      switch (choice.do) {
        case 'roll':
          d.stage = { kind: 'roll' };
          return;
        case 'bail':
          d.cash[player]! -= d.rules.bail;
          if (d.rules.freeParkingPot) d.pot += d.rules.bail;
          delete d.jail[player];
          d.stage = { kind: 'roll' };
          return;
        case 'card':
          returnCard(d, takeCard(d, player) as Pile);
          delete d.jail[player];
          d.stage = { kind: 'roll' };
          return;
        case 'trade': {
          d.offers++;
          const offer: Offer = { from: player, to: choice.to!, give: (choice as never as Offer).give, get: (choice as never as Offer).get };
          if (isEmptyOffer(offer)) d.log.push({ withdrawn: 'an empty offer' });
          else d.stage = { kind: 'trade', offer };
          return;
        }
        default:
          manage(d, player, choice.do as Manage, choice.square!);
          return;
      }
    case 'buy':
      if (choice.do === 'buy') {
        const deed = deedAt(st.square)!;
        d.cash[player]! -= deed.price;
        d.deeds[st.square] = { owner: player, houses: 0, mortgaged: false };
        d.buy = null;
        proceed(d);
      } else {
        d.stage = { kind: 'auction', square: st.square, bidders: [...d.players] };
      }
      return;
    case 'trade':
      if (choice.do === 'accept') {
        carryOut(d, st.offer);
        d.resume = 'turn';
        proceed(d);
      } else d.stage = { kind: 'turn' };
      return;
    case 'raise': {
      if (choice.do === 'auto') {
        const debt = d.debts[0]!;
        if (!liquidate(d, player, debt.amount)) bankrupt(d, player, debt.to === 'pot' ? 'bank' : debt.to);
      } else manage(d, player, choice.do as Manage, choice.square!);
      proceed(d);
      return;
    }
    default:
      return;
  }
}

function manage(d: Draft, player: string, action: Manage, square: number): void {
  switch (action) {
    case 'build':
      build(d, player, square);
      break;
    case 'sell':
      sell(d, player, square);
      break;
    case 'mortgage':
      mortgage(d, player, square);
      break;
    case 'unmortgage':
      unmortgage(d, player, square);
      break;
  }
  d.log.push({ [action]: square, by: player });
}
