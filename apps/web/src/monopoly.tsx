/**
 * Monopoly, the whole game, in the page (docs/spec/web.md §4.1; docs/spec/monopoly.md): the board with each deed's
 * owner, buildings and mortgage and each player's token, the players' cash, deeds and Get Out of Jail Free cards,
 * the history of every step in words, and the player's decisions as buttons (a sealed bid and a trade as forms).
 * The state drawn is the observer referee's, the one the auditor computes.
 */
import { useState } from 'preact/hooks';
import { BOARD, describeOffer, legalDecisions, netWorth, type Legal, type MonopolyState } from '@fairtable/core/games/monopoly/index.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { checkChoice, type Decision, type GameEvent } from '@fairtable/core/protocols/machine.js';
import { ChoiceInput, DecisionForm, initial } from './decision.js';
import { History } from './history.js';
import { GROUP_COLOUR, money, squareName as nameOf, TradeForm } from './monopoly-trade.js';

const COLORS = ['#1b5e20', '#0d47a1', '#b71c1c', '#4a148c', '#e65100', '#006064'];
// The board's colour bands: the streets' groups only (railroads and utilities have none).
const GROUP: Readonly<Record<string, string>> = Object.fromEntries(Object.entries(GROUP_COLOUR).filter(([g]) => g !== 'railroad' && g !== 'utility'));
const HOTEL = 5;

/** "1 round", "5 rounds". */
function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** Where square n sits on an 11 × 11 ring, Go in the bottom right corner, play running clockwise. */
function ringCell(n: number): { gridRow: number; gridColumn: number } {
  if (n <= 10) return { gridRow: 11, gridColumn: 11 - n };
  if (n <= 20) return { gridRow: 21 - n, gridColumn: 1 };
  if (n <= 30) return { gridRow: 1, gridColumn: n - 19 };
  return { gridRow: n - 29, gridColumn: 11 };
}

/** Which side of the board a square is on: its name runs along the square's long side. */
function sideOf(n: number): string {
  if (n % 10 === 0) return 'corner';
  return n < 10 || (n > 20 && n < 30) ? 'across' : 'along';
}

const FACES = ['⚀', '⚁', '⚂', '⚃', '⚄', '⚅'];
const face = (n: number): string => FACES[n - 1] ?? String(n);

/** The game's last roll of the dice and the last card drawn, from its history. */
function lastRollAndCard(history: readonly Step[]): { roll: { player: string; dice: number[] } | null; card: { pile: string; text: string } | null } {
  let roll: { player: string; dice: number[] } | null = null;
  let card: { pile: string; text: string } | null = null;
  for (let i = history.length - 1; i >= 0 && (roll === null || card === null); i--) {
    const events = history[i]!.summary?.events ?? [];
    for (let j = events.length - 1; j >= 0; j--) {
      const e = events[j]!;
      if (roll === null && Array.isArray(e.roll)) roll = { player: String(e.player), dice: e.roll.map(Number) };
      if (card === null && typeof e.card === 'string') card = { pile: pileName(e.pile), text: e.card };
    }
  }
  return { roll, card };
}

function buildings(houses: number): string {
  if (houses === HOTEL) return 'a hotel';
  return houses === 0 ? '' : `${houses} house${houses === 1 ? '' : 's'}`;
}

const pileName = (p: unknown): string => (p === 'chance' ? 'Chance' : 'Community Chest');

/** One step of the game's log in words; the summary's events are the game's own (docs/spec/monopoly.md). */
export function eventText(e: Record<string, JsonValue>): string {
  if (Array.isArray(e.roll)) return `${String(e.player)} rolled ${e.roll.join(' + ')}`;
  if (Array.isArray(e.utilityRoll)) return `rolled ${e.utilityRoll.join(' + ')} for the utility's rent`;
  if (typeof e.card === 'string') return `${pileName(e.pile)}: “${e.card}”`;
  if (typeof e.refill === 'string') return `the ${pileName(e.refill)} pile was shuffled again`;
  if (typeof e.passedGo === 'string') return `${e.passedGo} passed Go`;
  if (typeof e.jail === 'string') return `${e.jail} went to jail`;
  if (typeof e.stays === 'string') return `${e.stays} stays in jail`;
  if (typeof e.paid === 'number') {
    // The rules write "rent on 21"; a player says "rent for Kentucky Avenue".
    const rent = typeof e.for === 'string' ? /^rent on (\d+)$/.exec(e.for) : null;
    const why = rent !== null ? ` rent for ${nameOf(Number(rent[1]))}` : ` (${String(e.for)})`;
    return `${String(e.from)} paid ${String(e.to)} ${money(e.paid)}${why}`;
  }
  if (typeof e.decided === 'string') {
    const c = e.choice as Record<string, JsonValue> | null;
    const what = c !== null && typeof c === 'object' ? String(c.do) : JSON.stringify(c);
    return `${e.decided} chose ${what}${typeof c?.square === 'number' ? ` ${nameOf(c.square)}` : ''}${typeof c?.to === 'string' ? ` with ${c.to}` : ''}`;
  }
  if (typeof e.auction === 'number') {
    const bids = e.bids !== null && typeof e.bids === 'object' && !Array.isArray(e.bids) ? Object.entries(e.bids) : [];
    const others = bids.filter(([who]) => who !== e.winner).map(([who, bid]) => (Number(bid) > 0 ? `${who} bid ${money(Number(bid))}` : `${who} did not bid`));
    const rest = others.length === 0 ? '' : `; ${others.join(', ')}`;
    return e.winner === null
      ? `nobody bought ${nameOf(e.auction)} at auction${rest}`
      : `the auction of ${nameOf(e.auction)} went to ${String(e.winner)} for ${money(Number(e.price))}${rest}`;
  }
  if (e.trade !== null && typeof e.trade === 'object') return `trade carried out: ${describeOffer(e.trade as never)}`;
  if (typeof e.bankrupt === 'string') return `${e.bankrupt} went bankrupt to ${String(e.to)}`;
  if (typeof e.sold === 'number') return `${String(e.by)} sold a building on ${nameOf(e.sold)}`;
  if (typeof e.mortgaged === 'number') return `${String(e.by)} mortgaged ${nameOf(e.mortgaged)}`;
  for (const action of ['build', 'sell', 'mortgage', 'unmortgage'])
    if (typeof e[action] === 'number') return `${String(e.by)}: ${action} on ${nameOf(e[action])}`;
  if (typeof e.illegal === 'string') return `${e.illegal}'s answer was not legal (${String(e.why)}): the default was taken`;
  if (typeof e.pot === 'number') return `${String(e.to)} collected the Free Parking pot`;
  return JSON.stringify(e);
}

type Step = { turn: number; player?: string; summary?: { events?: Record<string, JsonValue>[] } };

export function MonopolyBoard({ state, players, events }: { state: MonopolyState | undefined; players: readonly string[]; events: readonly GameEvent[] }) {
  const s = state;
  const history = (events as unknown as Step[]).filter((e) => Array.isArray(e.summary?.events) && e.summary!.events!.length > 0);
  const owned =
    s === undefined
      ? []
      : Object.keys(s.deeds)
          .map(Number)
          .sort((a, b) => a - b);
  const { roll, card } = lastRollAndCard(history);
  return (
    <section aria-label="Monopoly board" class="board">
      <div class="monopoly-frame">
        <ol class="monopoly" aria-label="The 40 squares">
          {BOARD.map((sq, n) => {
            const here = players.filter((p) => s?.players.includes(p) && s.position[p] === n);
            const h = s?.deeds[n];
            const group = 'group' in sq ? GROUP[sq.group] : undefined;
            const price = 'price' in sq ? sq.price : sq.kind === 'tax' ? sq.amount : null;
            const about = [h === undefined ? '' : `owned by ${h.owner}`, h === undefined ? '' : buildings(h.houses), h?.mortgaged ? 'mortgaged' : '']
              .filter((x) => x !== '')
              .join(', ');
            return (
              <li
                key={n}
                style={ringCell(n)}
                class={`msq ${sq.kind} ${sideOf(n)}${h?.mortgaged ? ' mortgaged' : ''}`}
                aria-label={`${sq.name}${about === '' ? '' : `, ${about}`}${price === null ? '' : `, ${sq.kind === 'tax' ? 'pay' : 'price'} ${money(price)}`}${here.length ? `: ${here.join(', ')}` : ''}`}
                title={sq.name}
              >
                {group === undefined ? null : <span class="band" style={{ background: group }} />}
                <span class="label">
                  <span class="n">{sq.name}</span>
                  {price === null ? null : <span class="price">{money(price)}</span>}
                  {h === undefined ? null : (
                    <span class="owner" style={{ borderColor: COLORS[players.indexOf(h.owner) % COLORS.length] }}>
                      {h.owner.slice(0, 1).toUpperCase()}
                      {h.houses === HOTEL ? ' ■' : h.houses > 0 ? ' ' + '▪'.repeat(h.houses) : ''}
                      {h.mortgaged ? ' (m)' : ''}
                    </span>
                  )}
                </span>
                {here.length === 0 ? null : (
                  <span class="tokens">
                    {here.map((p) => (
                      <span key={p} class="token" style={{ background: COLORS[players.indexOf(p) % COLORS.length] }} title={p}>
                        {p.slice(0, 1).toUpperCase()}
                      </span>
                    ))}
                  </span>
                )}
              </li>
            );
          })}
          <li class="centre" aria-label="The last roll and card" data-testid="monopoly-centre">
            {roll === null ? (
              <p class="centre-roll">No roll yet</p>
            ) : (
              <p class="centre-roll">
                <span class="dice" aria-hidden="true">
                  {roll.dice.map(face).join(' ')}
                </span>
                <span>
                  {roll.player} rolled {roll.dice.join(' + ')} = {roll.dice.reduce((a, b) => a + b, 0)}
                </span>
              </p>
            )}
            {card === null ? null : (
              <p class="centre-card">
                <strong>{card.pile}</strong> “{card.text}”
              </p>
            )}
          </li>
        </ol>
      </div>
      {s === undefined ? null : (
        <>
          {/* On a phone the players' table scrolls sideways inside itself: focusable, so the keyboard can scroll it too. */}
          <table class="scores" tabIndex={0}>
            <caption>
              {s.stage.kind === 'over'
                ? `Players at the end, after ${plural(Math.min(s.round, s.rules.rounds > 0 ? s.rules.rounds : s.round), 'round')}`
                : `Players, round ${s.round + 1}${s.rules.rounds > 0 ? ` of ${s.rules.rounds}` : ''}`}
            </caption>
            <thead>
              <tr>
                <th scope="col">Player</th>
                <th scope="col">Square</th>
                <th scope="col">Cash</th>
                <th scope="col">Deeds</th>
                <th scope="col">Cards</th>
                <th scope="col">Net worth</th>
              </tr>
            </thead>
            <tbody>
              {s.seats.map((p) => {
                const out = !s.players.includes(p);
                const deeds = owned.filter((q) => s.deeds[q]!.owner === p);
                const cards = s.cards[p] ?? [];
                return (
                  <tr key={p} class={p === s.mover ? 'mover' : undefined}>
                    <th scope="row">
                      {p}
                      {p === s.mover && !out && s.stage.kind !== 'over' ? ' (to move)' : ''}
                    </th>
                    <td>{out ? 'out' : `${nameOf(s.position[p] ?? 0)}${s.jail[p] === undefined ? '' : ' (in jail)'}`}</td>
                    <td>{money(s.cash[p] ?? 0)}</td>
                    <td>{deeds.map(nameOf).join(', ') || '—'}</td>
                    <td>{cards.length === 0 ? '—' : cards.map((c) => `Get Out of Jail Free (${pileName(c)})`).join(', ')}</td>
                    <td>{out ? '—' : money(netWorth(s, p))}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
          <p class="piles">
            Bank: {s.bank.houses} houses and {s.bank.hotels} hotels left. Chance pile: {s.piles.chance.length} cards left; Community Chest pile:{' '}
            {s.piles.chest.length} cards left.{s.rules.freeParkingPot ? ` Free Parking pot: ${money(s.pot)}.` : ''}
          </p>
        </>
      )}
      <History
        label="History"
        title="The whole history"
        count={history.length}
        item={(i) => (
          <>
            <span class="turn">Turn {history[i]!.turn}:</span> {history[i]!.summary!.events!.map(eventText).join('; ')}
          </>
        )}
      />
      {history.length === 0 ? null : <p class="hint">Where each roll came from is below, under “Where did each outcome come from?”</p>}
    </section>
  );
}

/** A legal answer that is a form (a sealed bid, a trade offer): its inputs and its own send button. */
function FormChoice({ legal, onDecide }: { legal: Legal; onDecide: (choice: JsonValue) => string | null }) {
  const form = legal.form!;
  // The form's first answers are the template itself: a bid of 0, a trade of nothing for nothing with its fixed do and to.
  const [value, setValue] = useState<JsonValue>(() => initial(form));
  const [error, setError] = useState<string | null>(null);
  const bid = form.type === 'integer';
  return (
    <form
      class="subform"
      aria-label={legal.label}
      onSubmit={(e) => {
        e.preventDefault();
        try {
          checkChoice(form, value);
        } catch (err) {
          setError((err as Error).message);
          return;
        }
        setError(onDecide(value));
      }}
    >
      {bid ? null : <p class="prompt">{legal.label}</p>}
      <ChoiceInput
        id={`f-${legal.label}`}
        label={bid ? legal.label : 'offer'}
        choices={form}
        value={value}
        onChange={setValue}
        nameOf={(v) => (typeof v === 'number' ? nameOf(v) : String(v))}
      />
      <button type="submit" class={bid ? 'primary' : undefined}>
        {bid ? 'Seal the bid' : 'Send the offer'}
      </button>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

/**
 * The player's decision: each plain legal answer a button, each form (a bid, a trade) a small form. Legal answers
 * are the game's own `legalDecisions` on the state the machine asks on, so the page offers only what the rules
 * allow; the machine checks the answer again before it is sent.
 */
export function MonopolyDecision(props: { decision: Decision; me: string; onDecide: (choice: JsonValue) => string | null }) {
  const { decision, me } = props;
  const [error, setError] = useState<string | null>(null);
  const legal = legalDecisions(decision.view as unknown as MonopolyState, me);
  // A question the rules list nothing for (a view that is not the game's): the generic form from its choices.
  if (legal.length === 0) return <DecisionForm decision={decision} onDecide={props.onDecide} />;
  const plain = legal.filter((l) => l.form === undefined);
  const forms = legal.filter((l) => l.form !== undefined);
  const trades = forms.filter((l) => l.form!.type !== 'integer');
  const send = (choice: JsonValue): string | null => {
    const why = props.onDecide(choice);
    setError(why);
    return why;
  };
  return (
    <section class="decision" role="form" aria-label="Your decision">
      <p class="prompt">{decision.prompt}</p>
      <div class="buttons">
        {plain.map((l, i) => (
          <button key={l.label} type="button" class={i === 0 ? 'primary' : undefined} onClick={() => send(l.choice)}>
            {l.label}
          </button>
        ))}
      </div>
      {forms
        .filter((l) => l.form!.type === 'integer')
        .map((l) => (
          <FormChoice key={l.label} legal={l} onDecide={send} />
        ))}
      {trades.length === 0 ? null : (
        <details class="trades">
          <summary>Offer a trade</summary>
          {trades.map((l) => (
            <TradeForm key={l.label} legal={l} onDecide={send} />
          ))}
        </details>
      )}
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </section>
  );
}
