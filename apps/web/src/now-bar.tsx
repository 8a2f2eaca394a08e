/**
 * What now (docs/spec/web.md §4, "The table"): the first thing on every game page, and kept at the top of a
 * phone's screen while the page scrolls. It says the decision this player must make (with a button to its form,
 * just below), or whom the game waits for and how long they have left, or, once the game is over, who won and why.
 */
import { useEffect, useState } from 'preact/hooks';
import type { Outcome } from '@fairtable/core/protocols/machine.js';
import { clockWords } from './countdown.js';
import { names } from './labels.js';

export interface NowBarProps {
  /** The player this page plays, or null for a page that watches. */
  readonly me: string | null;
  /** This player's decision now: its prompt. */
  readonly decision: { readonly prompt: string } | null;
  /** Whom the game waits for and its deadline (on `clock`), as the observer's machine says. */
  readonly awaiting: { readonly players: readonly string[]; readonly deadline: number } | null;
  readonly outcome: Outcome | null;
  /** The headline of the ending and the sentence that says why, in the game's terms. */
  readonly ending: { readonly headline: string; readonly why: string | null } | null;
  readonly clock: () => number;
  readonly alert: { readonly sound: boolean; readonly badge: boolean; readonly toggleSound: () => void; readonly toggleBadge: () => void } | null;
}

/** "0:42 left", or that the time is up. */
function left(deadline: number, now: number): string {
  return deadline > now ? `${clockWords(deadline - now)} left` : 'time is up';
}

/** The others the game waits for, by name ("you" for this player). */
function awaited(players: readonly string[], me: string | null): string {
  const list = [...players.filter((p) => p !== me), ...(me !== null && players.includes(me) ? ['you'] : [])];
  return names(list);
}

export function NowBar(props: NowBarProps) {
  const { me, decision, awaiting, outcome, ending } = props;
  const [now, setNow] = useState(props.clock);
  useEffect(() => {
    if (outcome !== null) return;
    const timer = setInterval(() => setNow(props.clock()), 1000);
    return () => clearInterval(timer);
  }, [outcome]);
  let body;
  if (outcome !== null && ending !== null) {
    body = (
      <div class="outcome" data-testid="outcome">
        <h3>{ending.headline}</h3>
        {ending.why === null ? null : <p data-testid="ending-why">{ending.why}</p>}
        {outcome.forfeits.length > 0 ? <p>Forfeits: {outcome.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}</p> : null}
      </div>
    );
  } else if (decision !== null) {
    body = (
      <p class="now-turn">
        <strong>Your turn:</strong> {decision.prompt}
        {awaiting === null ? '' : ` — ${left(awaiting.deadline, now)}`}{' '}
        <button type="button" class="primary" onClick={jump}>
          Decide
        </button>
      </p>
    );
  } else if (awaiting !== null && awaiting.players.length > 0) {
    const onlyMe = me !== null && awaiting.players.every((p) => p === me);
    body = (
      <p class="now-wait">
        {onlyMe ? 'Your page is sending your move' : `Waiting for ${awaited(awaiting.players, me)}`} — {left(awaiting.deadline, now)}
        {awaiting.deadline <= now && !onlyMe ? '; the others may now claim the deadline' : ''}
      </p>
    );
  } else {
    body = <p class="now-wait">Waiting for the game's next line…</p>;
  }
  return (
    <section class={`now-bar${decision !== null && outcome === null ? ' mine' : ''}`} aria-label="What now" data-testid="now-bar">
      {body}
      {props.alert === null || outcome !== null ? null : (
        <p class="alert-switches">
          <button type="button" aria-pressed={props.alert.sound} onClick={props.alert.toggleSound}>
            Turn sound: {props.alert.sound ? 'on' : 'off'}
          </button>
          <button type="button" aria-pressed={props.alert.badge} onClick={props.alert.toggleBadge}>
            Tab badge: {props.alert.badge ? 'on' : 'off'}
          </button>
        </p>
      )}
    </section>
  );
}

/** Scrolls to the decision's form, below a sticky bar, and focuses its first control. */
function jump(): void {
  const form = document.getElementById('decision');
  if (form === null) return;
  form.scrollIntoView({ block: 'start' });
  form.querySelector<HTMLElement>('button, input, select, textarea')?.focus({ preventScroll: true });
}
