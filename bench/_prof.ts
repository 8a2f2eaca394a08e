import { configure } from '@fairtable/core/platform.js';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { nativeSha256 } from '@fairtable/node/native-hash.js';
import {
  adjudicate,
  positionHash,
  randomOrders,
  seededBelow,
  standardMap as map,
  startingPosition,
  type OrderInput,
  type Position,
} from '@fairtable/diplomacy';
import { diplomacyRegistry, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { randomStrategy, simKeys } from '@fairtable/core/testing';
import { Seat } from '@fairtable/core/seat/seat.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { toHex } from '@fairtable/core/bytes.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { RandomStream } from '@fairtable/core/stream.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { useNativeSha256 } from '@fairtable/node/native-hash.js';
useNativeSha256();
type Escrow = 'none' | 'threshold' | 'layers';

function movementPhase(gameSeed: number, verify: VerifyFn | undefined, escrow: Escrow): { cpu: number[]; lines: number } {
  const ids = Array.from({ length: 7 }, (_, i) => `p${i}`);
  const seed = new Uint8Array(32).fill(gameSeed % 256);
  const keys = ids.map((_, i) => simKeys(seed, i));
  const setupLine = envelopeLine(
    createSetupEnvelope(
      {
        protocol: 'diplomacy',
        game: null,
        params: { assign: 'fixed', years: 1, timeoutMs: 60_000, escrow },
        players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
        nonce: toHex(seed),
        created: 0,
      },
      'p0',
      keys[0]!,
    ),
  );
  const log = [setupLine];
  const pending: string[] = [];
  const cpu = ids.map(() => 0);
  const timed = <T>(i: number, run: () => T): T => {
    const t = performance.now();
    const r = run();
    cpu[i]! += performance.now() - t;
    return r;
  };
  const seats = ids.map((id, i) => {
    const stream = new RandomStream(taggedHash('bench-seat', seed, new Uint8Array([i])), 'player');
    const strategy = randomStrategy(stream.bytes(32));
    const seat = timed(
      i,
      () =>
        new Seat({
          id,
          keys: keys[i]!,
          setupLine,
          registry: diplomacyRegistry,
          random: (n) => stream.bytes(n),
          clock: () => 0,
          // A Node seat signs and checks on the native fast path (same bytes as noble's); the browser path uses noble for both.
          ...(verify === undefined ? {} : { verify, sign: nativeSign }),
          transport: { submit: (t) => pending.push(t), sync: () => undefined },
        }),
    );
    return { seat, strategy };
  });
  const act = (): void =>
    seats.forEach(({ seat, strategy }, i) =>
      timed(i, () => {
        // One phase only: the seats stop deciding once the next phase has begun.
        if ((seat.referee.state as DiplomacyState).round !== 1) return;
        for (let d = seat.decision(); d !== null; d = seat.decision()) seat.decide(strategy(d));
      }),
    );
  act();
  while (pending.length > 0) {
    const t = pending.shift()!;
    log.push(t);
    seats.forEach(({ seat }, i) => timed(i, () => seat.receive(log.length - 1, t)));
    act();
  }
  const done = seats.every(({ seat }) => (seat.referee.state as DiplomacyState).round === 2);
  if (!done || seats.some(({ seat }) => seat.referee.violations.length > 0)) throw new Error('the phase was not agreed without violations');
  return { cpu, lines: log.length - 1 };
}


for (let i = 0; i < 2; i++) movementPhase(100 + i, nativeVerify, 'layers');
const kind = (process.env.KIND ?? 'layers') as Escrow;
const t = process.cpuUsage();
let tot = 0;
for (let i = 0; i < 5; i++) { const m = movementPhase(1 + i, nativeVerify, kind); tot += m.cpu.reduce((a, b) => a + b, 0) / 7; }
const d = process.cpuUsage(t);
console.log(kind, 'per player per phase (perf.now)', (tot / 5).toFixed(1), 'process cpu per phase per player', ((d.user + d.system) / 1000 / 5 / 7).toFixed(1));
