/**
 * Hold'em's bet bar (docs/spec/web.md §4.3): fold, check or call, bet or raise to an amount, all-in, from the
 * decision's choices and the hand's legal actions. The amount is the player's whole bet on the street ("raise
 * to"); one outside the legal range is refused in words, never replaced by another.
 */
import { useState } from 'preact/hooks';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Decision } from '@fairtable/core/protocols/machine.js';
import { legalActions, type HandState } from '@fairtable/core/games/holdem/index.js';

const chips = (n: number): string => n.toLocaleString('en-US');

/** The simple actions the decision offers (`{do: 'fold'}`, …) and its bet or raise range, read from its choices. */
function offered(decision: Decision): { simple: string[]; raise: { kind: string; min: number; max: number } | null } {
  const c = decision.choices;
  const parts = c.type === 'any-of' ? c.options : [c];
  const simple: string[] = [];
  let raise: { kind: string; min: number; max: number } | null = null;
  for (const p of parts) {
    if (p.type === 'one-of') for (const v of p.values) if (v !== null && typeof v === 'object' && !Array.isArray(v)) simple.push(String(v.do));
    if (p.type === 'record') {
      const kind = p.fields.do;
      const to = p.fields.to;
      if (kind?.type === 'one-of' && to?.type === 'integer')
        raise = { kind: String(kind.values[0]), min: Number(to.min ?? 0), max: Number(to.max ?? Number.MAX_SAFE_INTEGER) };
    }
  }
  return { simple, raise };
}

/** Why `amount` is not a bet or raise `raise` allows, in words, or null. */
export function amountProblem(amount: number, raise: { kind: string; min: number; max: number }): string | null {
  const word = raise.kind === 'bet' ? 'A bet' : 'A raise';
  if (!Number.isSafeInteger(amount)) return `${word} is a whole number of chips.`;
  if (amount < raise.min || amount > raise.max)
    return `${word} goes to between ${chips(raise.min)} and ${chips(raise.max)} (${chips(raise.max)} is all-in); ${chips(amount)} is not in that range.`;
  return null;
}

export function HoldemBets(props: { decision: Decision; hand: HandState; me: string; onDecide: (choice: JsonValue) => string | null }) {
  const { decision, hand, me } = props;
  const legal = legalActions(hand, me);
  const { simple, raise } = offered(decision);
  const [amount, setAmount] = useState(raise?.min ?? 0);
  const [error, setError] = useState<string | null>(null);
  const send = (choice: JsonValue) => setError(props.onDecide(choice));
  const submitRaise = (e: Event) => {
    e.preventDefault();
    if (raise === null) return;
    const problem = amountProblem(amount, raise);
    if (problem !== null) return setError(problem);
    send({ do: raise.kind, to: amount });
  };
  const owed = legal?.call ?? 0;
  const stack = hand.stacks[me] ?? 0;
  return (
    <form class="holdem-bets" aria-label="Your action" data-testid="bet-bar" onSubmit={submitRaise}>
      <p class="bet-facts">
        {owed === 0 ? 'Nothing to call.' : `${chips(owed)} to call.`} You have {chips(stack)} behind
        {(hand.bets[me] ?? 0) > 0 ? ` and ${chips(hand.bets[me] ?? 0)} bet on this street` : ''}.
      </p>
      <div class="bet-buttons">
        {simple.includes('fold') ? (
          <button type="button" data-testid="bet-fold" onClick={() => send({ do: 'fold' })}>
            Fold
          </button>
        ) : null}
        {simple.includes('check') ? (
          <button type="button" class="primary" data-testid="bet-check" onClick={() => send({ do: 'check' })}>
            Check
          </button>
        ) : null}
        {simple.includes('call') ? (
          <button type="button" class="primary" data-testid="bet-call" onClick={() => send({ do: 'call' })}>
            Call {chips(owed)}
          </button>
        ) : null}
        {simple.includes('all-in') ? (
          <button type="button" data-testid="bet-all-in" onClick={() => send({ do: 'all-in' })}>
            All-in {chips(stack)}
          </button>
        ) : null}
      </div>
      {raise === null ? (
        <p class="hint">You cannot {hand.currentBet === 0 ? 'bet' : 'raise'} now: the betting was not reopened to you, or nobody is left to call.</p>
      ) : (
        <div class="bet-raise">
          <label for="raise-range">
            {raise.kind === 'bet' ? 'Bet' : 'Raise to'} ({chips(raise.min)} to {chips(raise.max)})
          </label>
          <input
            id="raise-range"
            type="range"
            min={raise.min}
            max={raise.max}
            step={1}
            value={Math.min(Math.max(amount, raise.min), raise.max)}
            onInput={(e) => {
              setAmount(Number((e.target as HTMLInputElement).value));
              setError(null);
            }}
          />
          <input
            type="number"
            aria-label={raise.kind === 'bet' ? 'bet amount' : 'raise to amount'}
            data-testid="bet-amount"
            value={Number.isFinite(amount) ? amount : ''}
            onInput={(e) => {
              setAmount(Number((e.target as HTMLInputElement).value));
              setError(null);
            }}
          />
          <button type="submit" data-testid="bet-raise">
            {raise.kind === 'bet' ? 'Bet' : 'Raise to'} {Number.isFinite(amount) ? chips(amount) : '…'}
          </button>
        </div>
      )}
      {error === null ? null : (
        <p role="alert" class="error" data-testid="bet-error">
          {error}
        </p>
      )}
    </form>
  );
}
