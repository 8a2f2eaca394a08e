/**
 * Diplomacy adjudication speed (docs/spec/diplomacy.md §7).
 *
 *   npm run bench diplomacy
 *
 * A 100-phase game of random legal orders for all seven powers is generated
 * first (not timed): each phase's position and orders. Then the whole game is
 * adjudicated again from the start, phase by phase (parsing every order,
 * adjudicating, hashing each resulting position), ROUNDS times; the figure is
 * the median round. The package is pure JavaScript, so the browser build runs
 * this same code with noble's SHA-256; it is measured here with noble's
 * SHA-256 ("browser path") and with Node's native one, not in a browser.
 * Then a 7-player movement phase through the protocol machine (§10.8): the
 * computation per player, target under 200 ms.
 */
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
import { generateKeyPair, sign, verify } from '@fairtable/core/identity.js';

const PHASES = 100;
const ROUNDS = Number(process.env.DIPLOMACY_BENCH_ROUNDS ?? 15);
const line = (label: string, value: string): void => {
  process.stdout.write(`${label.padEnd(58)} ${value}\n`);
};

// The game, generated once.
const below = seededBelow(1901);
const phases: OrderInput[][] = [];
let position: Position = startingPosition(map);
let orderCount = 0;
const kinds = { movement: 0, retreat: 0, adjustment: 0 };
for (let k = 0; k < PHASES; k++) {
  const orders = map.powers.flatMap((power) => randomOrders(map, position, power, below).map((text) => ({ power, text })));
  phases.push(orders);
  orderCount += orders.length;
  kinds[position.phase.type]++;
  position = adjudicate(map, position, orders).position;
}
const finalHash = positionHash(map, position);

function playGame(): string {
  let p = startingPosition(map);
  let hash = '';
  for (const orders of phases) {
    p = adjudicate(map, p, orders).position;
    hash = positionHash(map, p);
  }
  return hash;
}

function measure(label: string): number {
  for (let i = 0; i < 3; i++) playGame(); // warm-up
  const times: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    (globalThis as { gc?: () => void }).gc?.();
    const t = performance.now();
    const hash = playGame();
    times.push(performance.now() - t);
    if (hash !== finalHash) throw new Error('the replayed game ended in another position');
  }
  const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] as number;
  line(label, `${median.toFixed(1)} ms per game (${(median / PHASES).toFixed(2)} ms per phase; min ${Math.min(...times).toFixed(1)} ms)`);
  return median;
}

line(
  'game',
  `${PHASES} phases (${kinds.movement} movement, ${kinds.retreat} retreat, ${kinds.adjustment} adjustment), ${orderCount} orders, ends ${position.phase.season} ${position.phase.year} ${position.phase.type}`,
);
configure({ sha256: (data) => nobleSha256(data) });
const browser = measure("100 phases, noble SHA-256 (the browser build's path)");
configure({ sha256: nativeSha256 });
const node = measure('100 phases, Node native SHA-256');
line('target: under 1 s per 100-phase game in Node', node < 1000 && browser < 1000 ? 'met' : 'NOT met');

// A 7-player movement phase through the protocol machine (docs/spec/diplomacy.md §10.8): every seat
// decides its orders (the choices offered, a random pick), commits, claims, reveals, checks the others'
// reveals against their commitments, adjudicates and signs the position, checking all 28 envelopes'
// signatures. Seats run one after the other on one thread with a table that appends and delivers at once;
// each seat's own calls are timed (process CPU time), so the figure is the computation one player's device does.
const PHASE_ROUNDS = Number(process.env.DIPLOMACY_PHASE_ROUNDS ?? 20);

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
  // The process's CPU time (user + system), not the wall clock: on a shared machine the wall clock counts
  // the other processes' turns too.
  const timed = <T>(i: number, run: () => T): T => {
    const t = process.cpuUsage();
    const r = run();
    const d = process.cpuUsage(t);
    cpu[i]! += (d.user + d.system) / 1000;
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

/**
 * Plain, threshold and layered phases interleaved round by round, so that the load of this shared machine
 * weighs on all alike; each escrow's cost is the difference of the medians, and of the sums.
 */
function phaseFigures(label: string, verify: VerifyFn | undefined): { plain: number; escrow: number; layers: number } {
  const kinds: Escrow[] = ['none', 'threshold', 'layers'];
  for (let i = 0; i < 3; i++) for (const escrow of kinds) movementPhase(100 + i, verify, escrow); // warm-up
  const runs = { plain: [] as number[], escrow: [] as number[], layers: [] as number[] };
  let lines = 0;
  for (let r = 0; r < PHASE_ROUNDS; r++) {
    for (const escrow of kinds) {
      const m = movementPhase(1 + r, verify, escrow);
      runs[escrow === 'none' ? 'plain' : escrow === 'threshold' ? 'escrow' : 'layers'].push(...m.cpu);
      if (escrow === 'none') lines = m.lines;
    }
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const sum = (xs: number[]): number => xs.reduce((a, b) => a + b, 0);
  const show = (xs: number[]): string => `${median(xs).toFixed(1)} ms per player (median of ${xs.length}; max ${Math.max(...xs).toFixed(1)} ms)`;
  line(`${label}`, `${show(runs.plain)}; ${lines} envelopes`);
  line('  the same with threshold escrow (4 of 6), interleaved', show(runs.escrow));
  line(
    '  escrow cost per player (4 commitments, 6 sealed shares)',
    `${(median(runs.escrow) - median(runs.plain)).toFixed(1)} ms by the medians, ${((sum(runs.escrow) - sum(runs.plain)) / runs.plain.length).toFixed(1)} ms by the means`,
  );
  line("  the same with seed 003's layers (7 layers, 16 boxes), interleaved", show(runs.layers));
  line(
    '  layers cost per player (wrap, outer-layer checks, the background check of 6 onions)',
    `${(median(runs.layers) - median(runs.plain)).toFixed(1)} ms by the medians, ${((sum(runs.layers) - sum(runs.plain)) / runs.plain.length).toFixed(1)} ms by the means`,
  );
  return { plain: median(runs.plain), escrow: median(runs.escrow), layers: median(runs.layers) };
}

configure({ sha256: (data) => nobleSha256(data) });
const noblePhase = phaseFigures('S1901M, 7 players, noble only (the browser path)', undefined);
configure({ sha256: nativeSha256 });
const nativePhase = phaseFigures('S1901M, 7 players, Node native SHA-256, Ed25519 sign+verify', nativeVerify);
// The baseline measured in the same run: one Ed25519 check of an envelope-sized message, noble and native.
const baseKeys = generateKeyPair(new Uint8Array(32).fill(3));
const baseMsg = new Uint8Array(400);
const baseSig = sign(baseMsg, baseKeys.secretKey);
const perCheck = (check: VerifyFn): number => {
  for (let i = 0; i < 50; i++) check(baseSig, baseMsg, baseKeys.publicKey);
  const t = process.cpuUsage();
  for (let i = 0; i < 500; i++) check(baseSig, baseMsg, baseKeys.publicKey);
  const d = process.cpuUsage(t);
  return (d.user + d.system) / 1000 / 500;
};
const nobleCheck = perCheck(verify);
const nativeCheck = perCheck(nativeVerify);
line(
  '  of which the 27 signature checks of the others (baseline)',
  `~${(27 * nobleCheck).toFixed(1)} ms noble (${nobleCheck.toFixed(2)} ms each), ~${(27 * nativeCheck).toFixed(1)} ms native (${nativeCheck.toFixed(3)} ms each)`,
);
// The median player, in each path; the max above shows this shared machine's noise (GC, other processes).
line('target: under 200 ms of computation per player with escrow (median)', noblePhase.escrow < 200 && nativePhase.escrow < 200 ? 'met' : 'NOT met');
line('target: under 200 ms per player with layered escrow (median)', noblePhase.layers < 200 && nativePhase.layers < 200 ? 'met' : 'NOT met');
