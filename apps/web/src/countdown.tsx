/**
 * The time left on a decision (docs/spec/web.md §4, "The clock"): counted down to the decision's deadline
 * (`Decision.deadline`) on the seat's own clock (the page's clock moved by the seat's estimate of the relay's), with a warning before the end: the tab's title says so and a short sound
 * plays once, unless the player muted it (the choice is kept in localStorage).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { setWarningTitle } from './turn-alert.js';

const MUTE = 'fairtable/mute';

function mutedNow(): boolean {
  try {
    return localStorage.getItem(MUTE) === '1';
  } catch {
    return false;
  }
}

/** How long before the deadline the warning starts: a quarter of the time to act, from 10 s to an hour (30 s when unknown). */
export function warnBefore(timeoutMs: number | null): number {
  if (timeoutMs === null) return 30_000;
  return Math.min(3_600_000, Math.max(10_000, Math.floor(timeoutMs / 4)));
}

/** Time left as a clock: "1:05", "2:03:04", or "2 d 3 h" for days. */
export function clockWords(ms: number): string {
  const total = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(total / 86_400);
  const h = Math.floor((total % 86_400) / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (n: number): string => String(n).padStart(2, '0');
  if (d > 0) return `${d} d ${h} h ${m} min`;
  if (h > 0) return `${h}:${two(m)}:${two(s)}`;
  return `${m}:${two(s)}`;
}

let audio: AudioContext | null = null;

/** A short beep (0.2 s at 880 Hz) through WebAudio; nothing where the browser offers none or refuses to play. */
function beep(): void {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    gain.gain.value = 0.1;
    osc.frequency.value = 880;
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.2);
  } catch {
    // No sound: the title and the page still say it.
  }
}

/** `clock`: the seat's clock, the one its deadline is on. */
export function Countdown({ deadline, timeoutMs, clock }: { deadline: number; timeoutMs: number | null; clock: () => number }) {
  const [now, setNow] = useState(clock);
  const [muted, setMuted] = useState(mutedNow);
  const sounded = useRef(false);
  useEffect(() => {
    const timer = setInterval(() => setNow(clock()), 250);
    return () => clearInterval(timer);
  }, []);
  const left = deadline - now;
  const warning = left <= warnBefore(timeoutMs);
  const shown = left > 0 ? clockWords(left) : null;
  useEffect(() => {
    if (!warning) return;
    setWarningTitle(shown === null ? '⏰ Time is up: fairtable' : `⏰ ${shown} left to decide: fairtable`);
    return () => setWarningTitle(null);
  }, [warning, shown]);
  useEffect(() => {
    if (!warning || sounded.current) return;
    sounded.current = true;
    if (!mutedNow()) beep();
  }, [warning]);
  const toggle = () => {
    const next = !muted;
    setMuted(next);
    try {
      localStorage.setItem(MUTE, next ? '1' : '0');
    } catch {
      // Not kept: it holds for this page only.
    }
  };
  return (
    <div class={warning ? 'countdown warning' : 'countdown'}>
      <p role="timer" aria-live="off" data-testid="countdown">
        {shown === null ? 'The deadline has passed: the others may now claim it.' : `Time left to decide: ${shown}`}
      </p>
      {warning && shown !== null ? (
        <p role="alert" class="warn">
          Hurry: the deadline is near.
        </p>
      ) : null}
      <button type="button" aria-pressed={muted} onClick={toggle}>
        {muted ? 'Warning sound: off' : 'Warning sound: on'}
      </button>
    </div>
  );
}
