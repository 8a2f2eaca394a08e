/**
 * A Diplomacy table without a network, for the machine's tests: every seat's submissions are appended to one
 * log and delivered to every seat at once, in order; the clock is the test's. Not part of the package's build.
 */
import { simKeys } from '@fairtable/core/testing';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { Seat, type OutgoingHook, type SeatOptions, type SignFn } from '@fairtable/core/seat/seat.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { diplomacyRegistry as registry } from './index.js';

export interface TableOptions {
  /** Over `{timeoutMs: 1000, assign: 'fixed', years: 1}`. */
  readonly params: Readonly<Record<string, JsonValue>>;
  /** Seats p0, p1, …; 7 unless given. */
  readonly players?: number;
  /** The players' keys: `simKeys(seed(keySeed), i)`. */
  readonly keySeed: number;
  /** Seat i draws its randomness from `seed(randomSeed + i)`. */
  readonly randomSeed: number;
  /** The setup's `created`, where the clock starts (0 unless given). */
  readonly created?: number;
  /** What a seat sends, rewritten (by player id). */
  readonly hooks?: Readonly<Record<string, OutgoingHook>>;
  /** Seats with no random source of their own: each follows its key (every secret derived from it), so it can be rebuilt from the log. */
  readonly followKey?: boolean;
  /** How the seats sign and check signatures (noble's Ed25519 unless given; a test may pass packages/node's, which gives the same bytes). */
  readonly ed25519?: { readonly sign: SignFn; readonly verify: VerifyFn };
}

/** A 32-byte seed of `n`s. */
export const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);

export function diplomacyTable(o: TableOptions) {
  const created = o.created ?? 0;
  const clock = { now: created };
  const ids = Array.from({ length: o.players ?? 7 }, (_, i) => `p${i}`);
  const keys = ids.map((_, i) => simKeys(seed(o.keySeed), i));
  const setupLine = envelopeLine(
    createSetupEnvelope(
      {
        protocol: 'diplomacy',
        game: null,
        params: { timeoutMs: 1000, assign: 'fixed', years: 1, ...o.params },
        players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
        nonce: '00'.repeat(32),
        created,
      },
      'p0',
      keys[0]!,
    ),
  );
  const log = [setupLine];
  const pending: string[] = [];
  const streams = ids.map((_, i) => new RandomStream(seed(o.randomSeed + i), 'player'));
  /** Seat i's options (a seat rebuilt on another device takes the same). */
  const options = (i: number): SeatOptions => {
    const id = ids[i]!;
    const hook = o.hooks?.[id];
    return {
      id,
      keys: keys[i]!,
      setupLine,
      registry,
      ...(o.followKey === true ? {} : { random: (n: number) => streams[i]!.bytes(n) }),
      clock: () => clock.now,
      transport: { submit: (t) => pending.push(t), sync: () => undefined },
      ...(hook === undefined ? {} : { outgoing: hook }),
      ...(o.ed25519 === undefined ? {} : { sign: o.ed25519.sign, verify: o.ed25519.verify }),
    };
  };
  const seats = ids.map((_, i) => new Seat(options(i)));
  /** Appends and delivers everything sent so far, and what that makes the seats send, until nothing is left. */
  const flush = (): void => {
    while (pending.length > 0) {
      const t = pending.shift()!;
      if (log.includes(t)) continue;
      log.push(t);
      for (const s of seats) s.receive(log.length - 1, t);
    }
  };
  return { ids, keys, setupLine, seats, log, flush, clock, options };
}
