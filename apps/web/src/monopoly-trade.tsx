/**
 * Monopoly's trade offer as a form people understand (docs/spec/web.md §4.1): "You give" and "<name> gives", each
 * with the squares by name and colour group, cash and Get Out of Jail Free cards; the offer in plain words as it is
 * filled in; a confirm step before it is sent. What may be offered comes from the game's own trade form
 * (`legalDecisions`), so the page offers only what the rules allow.
 */
import { useState } from 'preact/hooks';
import { BOARD, type Legal } from '@fairtable/core/games/monopoly/index.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { checkChoice, type Choices } from '@fairtable/core/protocols/machine.js';

/** Each colour group's colour on the board and in the trade form (railroads and utilities too). */
export const GROUP_COLOUR: Readonly<Record<string, string>> = {
  brown: '#8b4513',
  'light-blue': '#87ceeb',
  pink: '#d63384',
  orange: '#f39c12',
  red: '#d32f2f',
  yellow: '#f1c40f',
  green: '#2e7d32',
  'dark-blue': '#1a237e',
  railroad: '#424242',
  utility: '#9e9e9e',
};

const PILE: Record<string, string> = { chance: 'Chance', chest: 'Community Chest' };

interface Side {
  readonly squares: readonly number[];
  readonly cash: number;
  readonly cards: readonly string[];
}

interface SideOptions {
  readonly squares: readonly number[];
  readonly cash: number;
  readonly cards: readonly string[];
}

function sideOptions(c: Choices | undefined): SideOptions {
  const f = c?.type === 'record' ? c.fields : {};
  const values = (x: Choices | undefined): readonly JsonValue[] => (x?.type === 'list' && x.of.type === 'one-of' ? x.of.values : []);
  return {
    squares: values(f.squares).filter((v): v is number => typeof v === 'number'),
    cash: f.cash?.type === 'integer' ? Number(f.cash.max) : 0,
    cards: values(f.cards).filter((v): v is string => typeof v === 'string'),
  };
}

export const squareName = (n: number): string => BOARD[n]?.name ?? `square ${n}`;
const groupOf = (n: number): string => {
  const sq = BOARD[n] as { group?: string } | undefined;
  return sq?.group ?? '';
};
export const money = (n: number): string => `$${n.toLocaleString('en-US')}`;

/** "Baltic Avenue, Reading Railroad and $50"; "nothing". */
export function sideWords(side: Side): string {
  const parts = [
    ...side.squares.map(squareName),
    ...(side.cash > 0 ? [money(side.cash)] : []),
    ...side.cards.map((p) => `a Get Out of Jail Free card (${PILE[p] ?? p})`),
  ];
  if (parts.length === 0) return 'nothing';
  return parts.length === 1 ? parts[0]! : `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]!}`;
}

/** "You give Baltic Avenue and $50; bob gives Reading Railroad". */
export const tradeSummary = (to: string, give: Side, get: Side): string => `You give ${sideWords(give)}; ${to} gives ${sideWords(get)}`;

function SideFields(props: { title: string; id: string; options: SideOptions; side: Side; onChange: (s: Side) => void }) {
  const { options, side, onChange, id } = props;
  const toggle = <T,>(list: readonly T[], v: T): T[] => (list.includes(v) ? list.filter((x) => x !== v) : [...list, v]);
  return (
    <fieldset class="trade-side">
      <legend>{props.title}</legend>
      {options.squares.length === 0 ? <p class="hint">No squares that can be traded (none owned, or their group has buildings).</p> : null}
      {[...options.squares]
        .sort((a, b) => a - b)
        .map((q) => (
          <label key={q} class="pill square">
            <input type="checkbox" checked={side.squares.includes(q)} onChange={() => onChange({ ...side, squares: toggle(side.squares, q) })} />{' '}
            <span class="swatch" style={{ background: GROUP_COLOUR[groupOf(q)] ?? 'transparent' }} aria-hidden="true" /> {squareName(q)}{' '}
            <small>({groupOf(q).replace('-', ' ')})</small>
          </label>
        ))}
      <label class="field">
        Cash (up to {money(options.cash)})
        <input
          type="number"
          inputMode="numeric"
          id={`${id}-cash`}
          min={0}
          max={options.cash}
          value={String(side.cash)}
          onInput={(e) => {
            const t = (e.target as HTMLInputElement).value.trim();
            onChange({ ...side, cash: /^\d+$/.test(t) ? Number(t) : t === '' ? 0 : NaN });
          }}
        />
      </label>
      {options.cards.map((p) => (
        <label key={p} class="pill">
          <input type="checkbox" checked={side.cards.includes(p)} onChange={() => onChange({ ...side, cards: toggle(side.cards, p) })} /> Get Out of Jail Free
          card ({PILE[p] ?? p})
        </label>
      ))}
    </fieldset>
  );
}

const EMPTY: Side = { squares: [], cash: 0, cards: [] };

/** One trade offer to one player: both sides, the summary, then a confirm step. */
export function TradeForm({ legal, onDecide }: { legal: Legal; onDecide: (choice: JsonValue) => string | null }) {
  const form = legal.form!;
  const fields = form.type === 'record' ? form.fields : {};
  const to = fields.to?.type === 'one-of' ? String(fields.to.values[0]) : '?';
  const [give, setGive] = useState<Side>(EMPTY);
  const [get, setGet] = useState<Side>(EMPTY);
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const mine = sideOptions(fields.give);
  const theirs = sideOptions(fields.get);
  const choice = (): JsonValue => ({ do: 'trade', to, give: give as unknown as JsonValue, get: get as unknown as JsonValue });
  const summary = tradeSummary(to, give, get);
  const why = (): string | null => {
    if (!Number.isSafeInteger(give.cash) || give.cash < 0 || give.cash > mine.cash) return `Your cash must be a whole number from $0 to ${money(mine.cash)}.`;
    if (!Number.isSafeInteger(get.cash) || get.cash < 0 || get.cash > theirs.cash)
      return `${to}'s cash must be a whole number from $0 to ${money(theirs.cash)}.`;
    if (sideWords(give) === 'nothing' && sideWords(get) === 'nothing') return 'Choose something for either side: an offer of nothing for nothing is no trade.';
    try {
      checkChoice(form, choice());
    } catch (e) {
      return (e as Error).message;
    }
    return null;
  };
  return (
    <form
      class="subform trade"
      aria-label={legal.label}
      onSubmit={(e) => {
        e.preventDefault();
        const problem = why();
        if (problem !== null) return setError(problem);
        if (!confirming) {
          setError(null);
          return setConfirming(true);
        }
        setError(onDecide(choice()));
        setConfirming(false);
      }}
    >
      <p class="prompt">{legal.label}</p>
      {confirming ? null : (
        <div class="trade-sides">
          <SideFields title="You give" id={`give-${to}`} options={mine} side={give} onChange={setGive} />
          <SideFields title={`${to} gives`} id={`get-${to}`} options={theirs} side={get} onChange={setGet} />
        </div>
      )}
      <p class="summary" data-testid={`trade-summary-${to}`}>
        {summary}.
      </p>
      {confirming ? (
        <p class="hint">
          Send this offer to {to}? {to} accepts or declines it; nothing changes hands until {to} accepts.
        </p>
      ) : null}
      <div class="buttons">
        <button type="submit" class={confirming ? 'primary' : undefined}>
          {confirming ? 'Send the offer' : 'Review the offer'}
        </button>
        {confirming ? (
          <button type="button" onClick={() => setConfirming(false)}>
            Change it
          </button>
        ) : null}
      </div>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  );
}
