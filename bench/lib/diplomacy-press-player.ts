/**
 * One power of `bench/diplomacy-press.bench.ts`, in its own process: joins the game through the relay with
 * `@fairtable/client`, answers every decision with random legal orders (the simulator's strategy), writes its
 * share of each phase's press as the phase begins (to the table, or sealed to one or two powers) and reads every
 * message of the game's talk as the relay pushes it (checking each, opening what is addressed to it). At the end it
 * prints one JSON line: its process CPU time from joining to the end, the phases it played and the messages it
 * wrote and read.
 *
 *   node --import tsx bench/lib/diplomacy-press-player.ts RELAY GAME ID SECRET_HEX SEAT_INDEX PER_PHASE TOTAL PATH
 *
 * PER_PHASE is this power's share of a phase's press, TOTAL all the powers' together. PATH is `noble` (noble's SHA-256 and Ed25519, the browser's path) or `native` (Node's SHA-256 and OpenSSL's
 * Ed25519 for the seat's envelopes). Press is read by core's reader with noble's signatures on both paths.
 */
import { WebSocket } from 'ws';
import { joinGame, TableTalk } from '@fairtable/client';
import { fromHex } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { simStrategy } from '@fairtable/core/testing';
import { RandomStream } from '@fairtable/core/stream.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import type { DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';

const [relayUrl, gameId, id, secretHex, indexText, perPhaseText, totalText, path] = process.argv.slice(2) as [
  string,
  string,
  string,
  string,
  string,
  string,
  string,
  string,
];
const native = path === 'native';
if (native) useNativeCrypto();
const keys = generateKeyPair(fromHex(secretHex, 'secret', 32));
const index = Number(indexText);
const perPhase = Number(perPhaseText);
/** Messages a phase from all the powers together: once the game is over, a power reads until it has them all. */
const total = Number(totalText);
const stream = new RandomStream(taggedHash('bench-press-player', keys.publicKey), 'player');
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const started = cpu();

const game = joinGame({
  relayUrl,
  gameId,
  id,
  keys,
  WebSocket,
  registry: diplomacyRegistry,
  strategy: simStrategy(stream.bytes(32)),
  ...(native ? { verify: nativeVerify, sign: nativeSign } : {}),
});

const BODY = 'Support me into Burgundy this spring and I will keep my fleets out of the Channel until autumn.';
let talk = null as TableTalk | null; // set by the setup line, in a listener
const early: { index: number; at: number; text: string }[] = [];
game.on('talk', (frame) => {
  if (talk === null) early.push(frame);
  else talk.take(frame);
});

let phases = 0;
let written = 0;
let lastRound = -1;
let sending: Promise<void> = Promise.resolve();
const failures: string[] = [];
game.on('line', ({ line, text }) => {
  if (line === 0) {
    const { setup } = readSetupLine(text);
    const me = { id, secretKey: keys.secretKey };
    talk = new TableTalk({ relayUrl, gameId, players: setup.players, params: setup.params, me });
    for (const f of early.splice(0)) talk.take(f);
  }
  const state = game.seat?.referee.state as DiplomacyState | undefined;
  // Round 0 is the power assignment; each later round is one phase of the game.
  if (state === undefined || talk === null || state.round === lastRound || state.round < 1) return;
  lastRound = state.round;
  phases++;
  // This power's share of the phase's press: two in five to the table, the rest sealed to one or two other powers.
  const others = game.seat!.referee.checker.setup.players.map((p) => p.id).filter((p) => p !== id);
  const t = talk;
  const count = perPhase;
  sending = sending.then(async () => {
    for (let k = 0; k < count; k++) {
      const n = (index + k + lastRound) % 5;
      const to =
        n < 2
          ? ('table' as const)
          : [...new Set([others[(index + k) % others.length]!, ...(n === 4 ? [others[(index + k + 3) % others.length]!] : [])])].sort();
      try {
        await t.send(to, `${BODY} (${id}, round ${lastRound}, ${k})`);
        written++;
      } catch (e) {
        const cause = e instanceof Error && e.cause instanceof Error ? ` (${e.cause.message})` : '';
        failures.push(`${e instanceof Error ? e.message : String(e)}${cause}`);
      }
    }
  });
});

try {
  await game.finished;
  await sending;
  // The others may still be writing the last phase's press: wait for the relay to push every message of every phase
  // (a minute at most), reading the pages once more at the end in case a push was missed.
  const t = talk;
  if (t !== null && t.entries.length < total * phases) {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, 60_000);
      const stop = t.onChange(() => {
        if (t.entries.length >= total * phases) done();
      });
      function done(): void {
        clearTimeout(timer);
        stop();
        resolve();
      }
    });
    await t.load();
  }
} finally {
  game.close();
}
const entries = talk?.entries ?? [];
process.stdout.write(
  JSON.stringify({
    id,
    cpuMs: cpu() - started,
    phases,
    written,
    failures,
    read: entries.filter((e) => e.kind === 'shown').length,
    opened: entries.filter((e) => e.kind === 'shown' && e.talk.body !== null).length,
    refused: entries.filter((e) => e.kind === 'refused').length,
    violations: game.violations.length,
    lines: game.lines.length,
  }) + '\n',
);
process.exit(0);
