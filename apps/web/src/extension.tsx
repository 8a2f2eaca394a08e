/**
 * Asking for more time (docs/spec/web.md §4, "More time"; docs/SPEC.md §7.4.1): beside the countdown, a player
 * asks to move the deadline of the phase now running; every other active seat's page shows who asks, to when,
 * and an "Agree" button; once every active seat has signed, the deadline in force is the new one.
 */
import { useState } from 'preact/hooks';
import type { RelayGame } from '@fairtable/client';
import { MAX_EXTENSION_MS } from '@fairtable/core/protocols/extension.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

/** What the page offers to add. */
const CHOICES: readonly { readonly ms: number; readonly words: string }[] = [
  { ms: 5 * MIN, words: '+5 min' },
  { ms: HOUR, words: '+1 hour' },
  { ms: DAY, words: '+1 day' },
  { ms: 7 * DAY, words: '+1 week' },
];

/**
 * The choices a game with this time to act offers: up to 24 times its timeout (at least the smallest choice),
 * never past the longest extension the rules allow (a week).
 */
export function extensionChoices(timeoutMs: number | null): readonly { readonly ms: number; readonly words: string }[] {
  const bound = Math.min(MAX_EXTENSION_MS, Math.max(5 * MIN, 24 * (timeoutMs ?? HOUR)));
  return CHOICES.filter((c) => c.ms <= bound);
}

/** How much later `until` is than `from`, in words: "+1 hour", "+5 min", "+1 day 2 h". */
export function laterWords(ms: number): string {
  const m = Math.round(ms / MIN);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  const parts = [d > 0 ? `${d} day${d === 1 ? '' : 's'}` : '', h > 0 ? `${h} hour${h === 1 ? '' : 's'}` : '', min > 0 ? `${min} min` : ''].filter(
    (p) => p !== '',
  );
  return parts.length === 0 ? `+${Math.round(ms / 1000)} s` : `+${parts.join(' ')}`;
}

/** A moment on the local clock: "18:40", with the date when it is not today. */
export function timeWords(localMs: number, today: number = Date.now()): string {
  const at = new Date(localMs);
  const two = (n: number): string => String(n).padStart(2, '0');
  const clock = `${two(at.getHours())}:${two(at.getMinutes())}`;
  return at.toDateString() === new Date(today).toDateString() ? clock : `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${clock}`;
}

/** The panel: ask for more time, or agree to another's asking. `me` is this page's seat. */
export function MoreTime({ game, me, timeoutMs }: { game: RelayGame; me: string; timeoutMs: number | null }) {
  const [choice, setChoice] = useState(0);
  const [problem, setProblem] = useState<string | null>(null);
  const { open, agreed, deadline } = game.extension();
  if (deadline === null || game.outcome() !== null) return null;
  const now = game.now();
  // The seat's clock is the relay's as the seat estimates it: shown on the page's own clock.
  const local = (t: number): string => timeWords(t - (now - Date.now()));
  // A proposal moves the deadline in force, which stands until every active seat has signed.
  const later = open === null ? '' : ` (${laterWords(open.until - deadline)})`;
  const choices = extensionChoices(timeoutMs);
  const act = (f: () => void) => {
    try {
      f();
      setProblem(null);
    } catch (e) {
      setProblem((e as Error).message);
    }
  };
  return (
    <section class="more-time" aria-label="More time" data-testid="more-time">
      {agreed !== null ? (
        <p role="status" data-testid="extension-agreed">
          Every player agreed: the deadline is now {local(agreed.until)}.
        </p>
      ) : null}
      {open !== null && open.signed.includes(me) ? (
        <p role="status" data-testid="extension-asked">
          {open.signed[0] === me ? 'You asked' : 'You agreed'} to move the deadline to {local(open.until)}
          {later}: waiting for the others to agree.
        </p>
      ) : null}
      {open !== null && !open.signed.includes(me) ? (
        <p role="alert" data-testid="extension-offer">
          {open.signed[0]} asks to move the deadline to {local(open.until)}
          {later}.{' '}
          <button type="button" class="primary" onClick={() => act(() => game.acceptExtension())}>
            Agree
          </button>
        </p>
      ) : null}
      {open === null && now < deadline && choices.length > 0 ? (
        <p>
          <label>
            More time{' '}
            <select aria-label="How much more time" value={choice} onChange={(e) => setChoice(Number((e.target as HTMLSelectElement).value))}>
              {choices.map((c, i) => (
                <option key={c.ms} value={i}>
                  {c.words}
                </option>
              ))}
            </select>
          </label>{' '}
          <button type="button" onClick={() => act(() => game.proposeExtension(deadline + (choices[choice] ?? choices[0]!).ms))}>
            Ask for more time
          </button>
        </p>
      ) : null}
      {problem === null ? null : (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </section>
  );
}
