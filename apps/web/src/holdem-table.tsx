/**
 * Hold'em's table (docs/spec/web.md §4.3), drawn from the observer's replay of the log: each seat's chips, bet on
 * this street and state, the board, the pot and side pots, whose turn, the deck's steps in words while they run,
 * who left the table, and each hand's result in words. The player's own hole cards come from the seat's state
 * (opened on this page with its own key share); every other player's stay face down unless the showdown shows them.
 * Loaded with the first Hold'em game a page opens, in a chunk of its own with the deck.
 */
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Decision, GameEvent } from '@fairtable/core/protocols/machine.js';
import type { HoldemState } from '@fairtable/core/protocols/holdem/machine.js';
import { buildPots, cardCode, cardName, eventText, rankOf, suitOf, type HandState } from '@fairtable/core/games/holdem/index.js';
import type { TableView } from './board.js';
import { History } from './history.js';
import { names } from './labels.js';
import { HoldemBets } from './holdem-bets.js';

const chips = (n: number): string => n.toLocaleString('en-US');
const RANKS = ['two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'jack', 'queen', 'king', 'ace'];
const SUITS = ['clubs', 'diamonds', 'hearts', 'spades'];

/** The players of a hand who have not folded. */
const live = (h: HandState): string[] => h.seats.filter((p) => !h.folded.includes(p));

/** A card face up: its name, red for hearts and diamonds, its ASCII code for tests and screen readers' names. */
export function Card({ card }: { card: number }) {
  const red = suitOf(card) === 1 || suitOf(card) === 2;
  return (
    <span class={`card${red ? ' red' : ''}`} data-card={cardCode(card)} role="img" aria-label={`${RANKS[rankOf(card) - 2]!} of ${SUITS[suitOf(card)]!}`}>
      {cardName(card)}
    </span>
  );
}

const FaceDown = () => (
  <span class="card back" role="img" aria-label="a card face down">
    ?
  </span>
);

/** "with a flush", "with two pair". */
function withHand(name: string): string {
  return ['high card', 'straight', 'flush', 'full house', 'straight flush'].includes(name) ? `with a ${name}` : `with ${name}`;
}

/** A hand's result in words: "ann wins 340 with a flush", each pot's winners, or "bob wins 150: everyone else folded". */
export function resultWords(h: HandState): string[] {
  const r = h.result;
  if (r === null) return [];
  const shown = Object.keys(r.hands).length > 0;
  const out: string[] = [];
  for (const [i, pot] of r.pots.entries()) {
    const which = r.pots.length === 1 ? '' : i === 0 ? ' (main pot)' : ` (side pot ${i})`;
    for (const w of pot.winners) {
      const hand = r.hands[w];
      const how = hand !== undefined ? ` ${withHand(hand.name)}` : shown ? '' : ': everyone else folded';
      out.push(`${w} wins ${chips(pot.shares[w] ?? 0)}${which}${how}`);
    }
  }
  return out;
}

/** What the deck is doing now, in words, or null when the players bet. */
function deckWords(s: HoldemState): string | null {
  const waitingFor = (ps: readonly string[]) => (ps.length === 0 ? '' : `: waiting for ${names(ps)}`);
  switch (s.phase) {
    case 'keys': {
      const missing = s.players.filter((p) => s.keyShares[p] === undefined);
      return `Making the deck's key: ${s.players.length - missing.length} of ${s.players.length} key shares in${waitingFor(missing)}.`;
    }
    case 'shuffle': {
      const present = s.players.filter((p) => !s.gone.includes(p));
      const next = present.find((p) => !s.shuffled.includes(p));
      return `Shuffling, hand ${s.hand}: ${s.shuffles} of ${present.length} shuffles done${next === undefined ? '' : `; ${next} shuffles now`}.`;
    }
    case 'deal': {
      const what = s.step === 'hole' ? 'the hole cards' : `the ${String(s.step)}`;
      return `Dealing ${what}${waitingFor(s.players.filter((p) => !s.gone.includes(p) && !s.sent.includes(p)))}.`;
    }
    case 'show': {
      const h = s.table.hand;
      const missing = h === null ? [] : live(h).filter((p) => s.shown[p] === undefined);
      return `Showdown${waitingFor(missing)}.`;
    }
    default:
      return null;
  }
}

/** A player gone from the table in words: absent (the deadline passed) or a rule broken, never the same. */
function goneWords(e: GameEvent): string {
  const who = String(e.player);
  return e.code === 'withheld'
    ? `${who} left the table (nothing from them before the deadline): they fold, the others stand in for their part of the deck, and their chips are forfeited. Absent, not a cheat.`
    : `${who} broke a rule (${String(e.code)}) and is out: they fold and their chips are forfeited.`;
}

export interface HoldemTableProps {
  readonly view: TableView;
  /** The seat this page plays, or null when it only watches. */
  readonly me: string | null;
  /** This page's own hole cards, opened with its key share, or null. */
  readonly mine: readonly number[] | null;
  /** The player's decision now (its action), or null. */
  readonly decision: Decision | null;
  readonly onDecide: (choice: JsonValue) => string | null;
}

export function HoldemTable(props: HoldemTableProps) {
  const s = props.view.state as HoldemState | null;
  if (s === null || typeof s !== 'object' || s.table === undefined) return <p>Waiting for the table…</p>;
  const { me, mine } = props;
  const h = s.table.hand;
  const shown = h === null ? s.table.lastHand : h;
  const deck = deckWords(s);
  const gone = props.view.events.filter((e) => e.type === 'gone');
  const board = h?.board ?? s.table.lastHand?.board ?? [];
  // Side pots exist once a player still in is all-in; before that, the street's unequal bets are one pot.
  const pots = h === null || !live(h).some((p) => (h.stacks[p] ?? 0) === 0) ? [] : buildPots(h.seats, h.committed, live(h));
  const potTotal = h === null ? 0 : h.seats.reduce((n, p) => n + (h.committed[p] ?? 0), 0);
  const result = h === null && s.table.lastHand !== null ? resultWords(s.table.lastHand) : [];
  const results = s.results as unknown as { hand: number }[];
  const seatState = (p: string): string => {
    if (s.gone.includes(p)) return 'left the table';
    if (shown === null) return '';
    if (!shown.seats.includes(p)) return (s.table.stacks[p] ?? 0) === 0 ? 'out of chips' : 'sits out';
    const parts: string[] = [];
    if (p === shown.button) parts.push('button');
    if (shown.folded.includes(p)) parts.push('folded');
    else if ((shown.stacks[p] ?? 0) === 0 && shown.phase !== 'over') parts.push('all-in');
    if (h !== null && h.toAct === p && s.phase === 'act') parts.push('to act');
    return parts.join(', ');
  };
  const cardsOf = (p: string) => {
    if (shown === null || !shown.seats.includes(p)) return null;
    if (p === me && mine !== null) return mine.map((c) => <Card key={c} card={c} />);
    const open = s.shown[p];
    if (open !== undefined) return open.map((c) => <Card key={c} card={c} />);
    if (shown.folded.includes(p) || s.gone.includes(p)) return <span class="hint">no cards</span>;
    if (s.phase === 'keys' || s.phase === 'shuffle' || (s.phase === 'deal' && s.step === 'hole')) return null;
    return (
      <>
        <FaceDown />
        <FaceDown />
      </>
    );
  };
  const toAct = h !== null && s.phase === 'act' ? h.toAct : null;
  return (
    <section aria-label="Hold'em table" class="board holdem" data-testid="holdem-table">
      <p class="holdem-facts">
        Hand {s.hand}
        {s.table.maxHands > 0 ? ` of at most ${s.table.maxHands}` : ''}, blinds {chips(s.table.smallBlind)}/{chips(s.table.bigBlind)}
        {h === null ? '' : `, ${h.street}`}.
      </p>
      {deck === null ? null : (
        <p class="deck-step" role="status" data-testid="deck-step">
          {deck}
        </p>
      )}
      {toAct === null ? null : (
        <p class="to-act" data-testid="to-act">
          {toAct === me ? 'Your turn to act.' : `${toAct} to act.`}
        </p>
      )}
      <div class="holdem-board" aria-label="The board" data-testid="board-cards">
        <span class="label">Board:</span> {board.length === 0 ? <span class="hint">no cards yet</span> : board.map((c) => <Card key={c} card={c} />)}
      </div>
      {h === null ? null : (
        <p data-testid="pots">
          Pot {chips(potTotal)}
          {pots.length > 1 ? ` (${pots.map((p, i) => `${i === 0 ? 'main' : `side ${i}`} ${chips(p.amount)}`).join(', ')})` : ''}.
        </p>
      )}
      {me !== null && props.decision !== null && props.decision.kind === 'bet' && h !== null ? (
        <div id="decision" class="decision-slot">
          <HoldemBets key={`${s.hand}/${s.round}`} decision={props.decision} hand={h} me={me} onDecide={props.onDecide} />
        </div>
      ) : null}
      <table class="scores holdem-seats">
        <caption>Seats</caption>
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">Cards</th>
            <th scope="col">Chips</th>
            <th scope="col">Bet</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {s.players.map((p) => (
            <tr key={p} data-testid={`seat-${p}`} class={p === toAct ? 'to-act' : undefined}>
              <th scope="row">{p === me ? `${p} (you)` : p}</th>
              <td class="cards">{cardsOf(p)}</td>
              <td>{chips(h?.stacks[p] ?? s.table.stacks[p] ?? 0)}</td>
              <td>{h === null ? '' : chips(h.bets[p] ?? 0)}</td>
              <td>{seatState(p)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {gone.map((e, i) => (
        <p key={i} class="gone" data-testid={`gone-${String(e.player)}`}>
          {goneWords(e)}
        </p>
      ))}
      {result.length === 0 ? null : (
        <p class="hand-result" data-testid="hand-result">
          Hand {results[results.length - 1]?.hand ?? s.hand}: {result.join('; ')}.
        </p>
      )}
      {shown === null ? null : (
        <History
          label="This hand"
          title="Every action this hand"
          count={shown.events.length}
          item={(i) => {
            const e = shown.events[i]!;
            return e.what === 'timeout' && s.gone.includes(e.player) ? `${e.player} has left the table and folds` : eventText(e);
          }}
        />
      )}
    </section>
  );
}
