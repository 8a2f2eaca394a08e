/**
 * Forms for games whose generic form says too little (docs/spec/web.md §4.2): roulette's bet with its payout table,
 * the numbers in the wheel's colours and nothing chosen for the player; Rochambeau's pick with the one sentence that
 * says what it does (nothing: the hand is a fair draw) and the usual names of the hands.
 */
import { useState } from 'preact/hooks';
import { checkChoice, type Choices, type Decision } from '@fairtable/core/protocols/machine.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { RED } from '@fairtable/core/signidice/roulette.js';
import { handNames } from '@fairtable/core/rochambeau/hand-names.js';

/** A number's colour on a European wheel: 0 green, the rest red or black. */
export const wheelColour = (n: number): 'green' | 'red' | 'black' => (n === 0 ? 'green' : RED.has(n) ? 'red' : 'black');

interface BetKindInfo {
  readonly kind: string;
  readonly label: string;
  readonly wins: string;
  readonly pays: string;
  /** The picks of this kind (null: the kind takes no pick). */
  readonly picks: readonly number[] | null;
}

const range = (lo: number, hi: number): number[] => Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);

/** Every bet kind, with what it wins on and pays (docs/spec/signidice.md §5: roulette.ts's `payout`). */
const BET_KINDS: readonly BetKindInfo[] = [
  { kind: 'red', label: 'Red', wins: 'a red number comes up (0 loses)', pays: '1 to 1', picks: null },
  { kind: 'black', label: 'Black', wins: 'a black number comes up (0 loses)', pays: '1 to 1', picks: null },
  { kind: 'odd', label: 'Odd', wins: 'an odd number comes up (0 loses)', pays: '1 to 1', picks: null },
  { kind: 'even', label: 'Even', wins: 'an even number other than 0 comes up', pays: '1 to 1', picks: null },
  { kind: 'dozen', label: 'A dozen', wins: 'the number is in your dozen: 1–12, 13–24 or 25–36 (0 loses)', pays: '2 to 1', picks: range(1, 3) },
  { kind: 'straight', label: 'One number', wins: 'your number comes up, 0 to 36', pays: '35 to 1', picks: range(0, 36) },
  { kind: 'face', label: 'A face of the die', wins: 'the die shows your face, 1 to 6', pays: '5 to 1', picks: range(1, 6) },
];

const DOZEN = ['1st dozen (1–12)', '2nd dozen (13–24)', '3rd dozen (25–36)'];

/** The bet kinds a bet decision's choices allow, and the largest amount; null when the choices are not a bet's. */
function betShape(c: Choices): { kinds: BetKindInfo[]; max: number; pass: boolean } | null {
  if (c.type !== 'any-of') return null;
  const kinds: BetKindInfo[] = [];
  let max = 0;
  let pass = false;
  for (const o of c.options) {
    if (o.type === 'one-of' && o.values.length === 1 && o.values[0] === null) pass = true;
    else if (o.type === 'record' && o.fields.kind?.type === 'one-of' && o.fields.amount?.type === 'integer') {
      max = Number(o.fields.amount.max);
      for (const k of o.fields.kind.values) {
        const info = BET_KINDS.find((b) => b.kind === k);
        if (info === undefined) return null;
        kinds.push(info);
      }
    } else return null;
  }
  return kinds.length === 0 ? null : { kinds, max, pass };
}

export const isBetDecision = (d: Decision): boolean => d.kind === 'bet' && betShape(d.choices) !== null;

/** What the player has chosen so far; nothing is chosen for them. */
interface BetDraft {
  readonly kind: string | null;
  readonly pick: number | null;
  readonly amount: string;
}

/**
 * The bet, or why it cannot be sent yet, in words: a kind switched leaves its pick empty, and an empty pick or
 * amount is refused here, never sent as some default.
 */
export function betFromDraft(draft: BetDraft, kinds: readonly BetKindInfo[], max: number): { bet: JsonValue } | { why: string } {
  if (draft.kind === null) return { why: 'Choose what to bet on, or pass this round.' };
  if (draft.kind === 'pass') return { bet: null };
  const info = kinds.find((k) => k.kind === draft.kind);
  if (info === undefined) return { why: 'Choose what to bet on, or pass this round.' };
  if (info.picks !== null && (draft.pick === null || !info.picks.includes(draft.pick)))
    return {
      why:
        info.kind === 'dozen'
          ? 'Choose which dozen to bet on.'
          : info.kind === 'face'
            ? 'Choose the face to bet on, 1 to 6.'
            : 'Choose the number to bet on, 0 to 36.',
    };
  const amount = draft.amount.trim();
  if (!/^\d+$/.test(amount) || Number(amount) < 1 || Number(amount) > max) return { why: `Say how much to bet: a whole number from 1 to ${max}.` };
  return { bet: { kind: info.kind, pick: info.picks === null ? null : draft.pick, amount: Number(amount) } };
}

function betWords(kind: string, pick: number | null): string {
  if (kind === 'dozen' && pick !== null) return `the ${DOZEN[pick - 1] ?? `dozen ${pick}`}`;
  if (kind === 'straight') return `number ${pick}`;
  if (kind === 'face') return `face ${pick}`;
  return kind;
}

export function PayoutTable({ kinds }: { kinds: readonly BetKindInfo[] }) {
  return (
    <table class="scores payouts">
      <caption>What each bet pays</caption>
      <thead>
        <tr>
          <th scope="col">Bet</th>
          <th scope="col">Wins when</th>
          <th scope="col">Pays</th>
        </tr>
      </thead>
      <tbody>
        {kinds.map((k) => (
          <tr key={k.kind}>
            <th scope="row">{k.label}</th>
            <td>{k.wins}</td>
            <td>{k.pays}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Roulette's (or the dice wheel's) bet: the kind, its pick, the amount, all chosen by the player; pass in words. */
export function BetForm(props: { decision: Decision; onDecide: (choice: JsonValue) => string | null }) {
  const shape = betShape(props.decision.choices)!;
  const [draft, setDraft] = useState<BetDraft>({ kind: null, pick: null, amount: '' });
  const [error, setError] = useState<string | null>(null);
  const change = (d: BetDraft): void => {
    setDraft(d);
    setError(null);
  };
  const info = shape.kinds.find((k) => k.kind === draft.kind);
  const ready = betFromDraft(draft, shape.kinds, shape.max);
  return (
    <form
      class="decision bet"
      aria-label="Your decision"
      onSubmit={(e) => {
        e.preventDefault();
        const r = betFromDraft(draft, shape.kinds, shape.max);
        if ('why' in r) return setError(r.why);
        try {
          checkChoice(props.decision.choices, r.bet);
        } catch (err) {
          return setError((err as Error).message);
        }
        setError(props.onDecide(r.bet));
      }}
    >
      <p class="prompt">{props.decision.prompt}</p>
      <PayoutTable kinds={shape.kinds} />
      <fieldset class="choice">
        <legend>Bet on</legend>
        {shape.kinds.map((k) => (
          <label key={k.kind} class="pill">
            <input type="radio" name="bet-kind" checked={draft.kind === k.kind} onChange={() => change({ ...draft, kind: k.kind, pick: null })} /> {k.label}
          </label>
        ))}
        {shape.pass ? (
          <label class="pill">
            <input type="radio" name="bet-kind" checked={draft.kind === 'pass'} onChange={() => change({ ...draft, kind: 'pass', pick: null })} /> No bet: sit
            this round out
          </label>
        ) : null}
      </fieldset>
      {info?.picks == null ? null : (
        <fieldset class="choice picks">
          <legend>{info.kind === 'dozen' ? 'Which dozen' : info.kind === 'face' ? 'Which face' : 'Which number'}</legend>
          <div class={info.kind === 'straight' ? 'numbers' : undefined}>
            {info.picks.map((n) => (
              <label key={n} class={`pill${info.kind === 'straight' ? ` number ${wheelColour(n)}` : ''}`}>
                <input type="radio" name="bet-pick" checked={draft.pick === n} onChange={() => change({ ...draft, pick: n })} />{' '}
                {info.kind === 'dozen' ? DOZEN[n - 1] : String(n)}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      {draft.kind === 'pass' ? null : (
        <label class="field">
          Amount (1 to {shape.max})
          <input
            type="number"
            inputMode="numeric"
            min={1}
            max={shape.max}
            value={draft.amount}
            onInput={(e) => change({ ...draft, amount: (e.target as HTMLInputElement).value })}
          />
        </label>
      )}
      <p class="summary" data-testid="bet-summary">
        {'bet' in ready
          ? ready.bet === null
            ? 'You sit this round out.'
            : (() => {
                const b = ready.bet as { kind: string; pick: number | null; amount: number };
                const pays = BET_KINDS.find((k) => k.kind === b.kind)!.pays.split(' ')[0]!;
                return `You bet ${b.amount} on ${betWords(b.kind, b.pick)}: if it wins you get ${b.amount * Number(pays)} more and your stake back; if not you lose ${b.amount}.`;
              })()
          : error === null
            ? ready.why
            : null}
      </p>
      <button type="submit" class="primary">
        {draft.kind === 'pass' ? 'Pass this round' : 'Place the bet'}
      </button>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}

/** One sentence on what the pick does in fairtable's Rochambeau (docs/spec/rochambeau.md §3, resolution 7). */
export function fairDrawSentence(N: string): string {
  return (
    `Your hand is a fair draw that nobody, you included, can aim: your pick is sealed before anyone shows theirs, then shifted by a number made ` +
    `from every other player's sealed commitment, so whatever you pick, the hand you play is any of the ${N} alike, and each beats as many as it loses to.`
  );
}

/** Rochambeau's hand decision: the sentence, the names of the hands, and the pick (any number does as well). */
export function HandForm(props: { decision: Decision; onDecide: (choice: JsonValue) => string | null }) {
  const c = props.decision.choices;
  const max = c.type === 'integer' ? BigInt(c.max) : 2n;
  const N = String(max + 1n);
  const names = handNames(N);
  const small = max <= 12n;
  const [value, setValue] = useState<string>('1');
  const [error, setError] = useState<string | null>(null);
  return (
    <form
      class="decision hand"
      aria-label="Your decision"
      onSubmit={(e) => {
        e.preventDefault();
        const choice: JsonValue = /^\d+$/.test(value) && Number.isSafeInteger(Number(value)) ? Number(value) : value;
        try {
          checkChoice(c, choice);
        } catch {
          return setError(`Pick a whole number from 1 to ${String(max)}.`);
        }
        setError(props.onDecide(choice));
      }}
    >
      <p class="prompt">{props.decision.prompt}</p>
      <p class="fair-draw" data-testid="fair-draw">
        {fairDrawSentence(N)}
      </p>
      {names === null ? null : (
        <p class="hint" data-testid="hand-names">
          The {N} hands: {names.join(', ')}.{' '}
          {N === '3'
            ? 'Rock beats scissors, scissors beats paper, paper beats rock.'
            : 'Each beats two: rock crushes scissors and lizard, paper covers rock and disproves Spock, scissors cut paper and decapitate lizard, lizard eats paper and poisons Spock, Spock smashes scissors and vaporizes rock.'}
        </p>
      )}
      {small ? (
        <fieldset class="choice">
          <legend>Your pick (it does not choose your hand)</legend>
          {range(1, Number(max)).map((n) => (
            <label key={n} class="pill">
              <input type="radio" name="hand" checked={value === String(n)} onChange={() => setValue(String(n))} /> {n}
            </label>
          ))}
        </fieldset>
      ) : (
        <label class="field">
          Your pick, 1 to {String(max)} (it does not choose your hand)
          <input type="text" inputMode="numeric" value={value} onInput={(e) => setValue((e.target as HTMLInputElement).value)} />
        </label>
      )}
      <button type="submit" class="primary">
        Seal my pick
      </button>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
