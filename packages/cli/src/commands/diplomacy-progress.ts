/**
 * `fairtable play` for a Diplomacy game (docs/spec/diplomacy-by-hand.md): what every player learns as the
 * game goes, on stderr, from the seat's own copy of the log: who has done the step so far (never what), and
 * after each phase every power's orders with what came of each (docs/spec/mail.md §11.1 has the same text).
 */
import type { RelayGame } from '@fairtable/client';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import { phaseName } from '@fairtable/diplomacy/orders-file.js';
import { DiplomacyFollower, progressText, resultsText } from '../mail/diplomacy-results.js';

/** The protocol a setup line names, or null. */
function protocolOf(setupLine: string): unknown {
  try {
    return (JSON.parse(setupLine) as { body?: { setup?: { protocol?: unknown } } }).body?.setup?.protocol ?? null;
  } catch {
    return null;
  }
}

/** Says the phase's progress and results as the lines come; nothing for other games. */
export function followDiplomacy(game: RelayGame, say: (text: string) => void): void {
  let follower: DiplomacyFollower | null = null;
  let said = '';
  // Each line's receipt time, as the seat's referee takes it (docs/spec/time.md §4).
  const times: number[] = [];
  game.on('line', ({ line, text, receipt }) => {
    times[line] = receipt.time;
    if (line === 0) {
      follower = protocolOf(text) === 'diplomacy' ? new DiplomacyFollower(text, { verify: nativeVerify, timeOf: (n) => times[n] }) : null;
      return;
    }
    // Lines in order only; a line the seat will refuse stops the telling, never the game.
    if (follower === null || line !== follower.lines) return;
    try {
      const done = follower.feed(line, text);
      if (done !== null) say(resultsText(done).join('\n'));
    } catch {
      follower = null;
      return;
    }
    const s = follower.state;
    if (s === null || s.stage === 'done') return;
    const progress = progressText(s);
    const where = s.stage === 'assign' ? 'the power assignment' : phaseName(s.position);
    const now = progress.length === 0 ? '' : `${where}, ${s.phase}: ${progress.join('; ')}`;
    if (now !== '' && now !== said) say(now);
    said = now;
  });
  // A sealed game says nobody's commitment before the set is complete (docs/spec/sealed.md §6): the seat knows its own.
  game.on('held', () => {
    if (follower !== null) say('our commitment is in: the relay holds it sealed until every commitment is in');
  });
}
