/**
 * The tab's title and the turn alert (docs/spec/web.md §4, "The table"): when it becomes this player's turn, the
 * title gets a badge ("(●) Your turn — fairtable") and a short beep plays; the badge clears when the page gets the
 * focus or the decision is made. Both can be turned off, each choice kept in localStorage. The clock's warning
 * (countdown.tsx) writes the title through the same place, and wins over the badge while it lasts.
 */
import { useEffect, useState } from 'preact/hooks';

const BASE = 'fairtable';
export const BADGE_TITLE = '(●) Your turn — fairtable';
const layers: { warning: string | null; badge: boolean } = { warning: null, badge: false };

function show(): void {
  document.title = layers.warning ?? (layers.badge ? BADGE_TITLE : BASE);
}

/** The clock's warning in the title, or null to take it off. */
export function setWarningTitle(text: string | null): void {
  layers.warning = text;
  show();
}

function setBadge(on: boolean): void {
  layers.badge = on;
  show();
}

/** A choice kept in localStorage ('1' on, '0' off), on unless turned off. */
function kept(key: string): boolean {
  try {
    return localStorage.getItem(key) !== '0';
  } catch {
    return true;
  }
}

function keep(key: string, on: boolean): void {
  try {
    localStorage.setItem(key, on ? '1' : '0');
  } catch {
    // Not kept: it holds for this page only.
  }
}

export const TURN_SOUND = 'fairtable/turn-sound';
export const TURN_BADGE = 'fairtable/turn-badge';

let audio: AudioContext | null = null;

/** A short beep through WebAudio (two notes, 0.25 s in all); nothing where the browser offers none or refuses. */
export function beep(frequencies: readonly number[] = [660, 880]): void {
  try {
    audio ??= new AudioContext();
    const gain = audio.createGain();
    gain.gain.value = 0.08;
    gain.connect(audio.destination);
    frequencies.forEach((f, i) => {
      const osc = audio!.createOscillator();
      osc.frequency.value = f;
      osc.connect(gain);
      const at = audio!.currentTime + i * 0.13;
      osc.start(at);
      osc.stop(at + 0.12);
    });
  } catch {
    // No sound: the title and the page still say it.
  }
}

/**
 * Raises the alert each time `myTurn` turns true (a new decision: `turnKey` changes); the badge stays until the page
 * is focused or the turn is over. Returns the two switches for the page to show.
 */
export function useTurnAlert(myTurn: boolean, turnKey: string | null): { sound: boolean; badge: boolean; toggleSound: () => void; toggleBadge: () => void } {
  const [sound, setSound] = useState(() => kept(TURN_SOUND));
  const [badge, setBadgeOn] = useState(() => kept(TURN_BADGE));
  const [seen, setSeen] = useState<string | null>(null);
  useEffect(() => {
    if (!myTurn || turnKey === null) return;
    if (sound) beep();
    // A page the player is looking at still shows the badge until the decision is made: a glance at the tab strip
    // tells which game waits.
  }, [myTurn, turnKey]);
  useEffect(() => {
    const onFocus = () => setSeen(turnKey);
    addEventListener('focus', onFocus);
    return () => removeEventListener('focus', onFocus);
  }, [turnKey]);
  const on = myTurn && badge && seen !== turnKey;
  useEffect(() => {
    setBadge(on);
    return () => setBadge(false);
  }, [on]);
  return {
    sound,
    badge,
    toggleSound: () => {
      keep(TURN_SOUND, !sound);
      setSound(!sound);
    },
    toggleBadge: () => {
      keep(TURN_BADGE, !badge);
      setBadgeOn(!badge);
    },
  };
}
