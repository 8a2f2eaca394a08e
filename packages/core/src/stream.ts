/**
 * The random stream (docs/SPEC.md §6).
 *
 * From a 32-byte seed and a text label, a deterministic byte stream:
 *
 *   key     = SHA-256("fairtable/stream/v1" ‖ 0x00 ‖ seed ‖ u32be(len(label)) ‖ label)
 *   block_i = SHA-256(key ‖ u64be(i)),   i = 0, 1, 2, …
 *   stream  = block_0 ‖ block_1 ‖ …
 *
 * and on top of it integers in [0, n) by masked rejection sampling (no modulo
 * bias), dice, Fisher–Yates shuffles and weighted choices. Every consumer of
 * randomness in fairtable draws from this one construction, so any program that
 * implements these few lines can replay any game (test/python/stream_check.py
 * does, from the spec alone).
 */
import { FairtableError } from './errors.js';
import { u32be, utf8 } from './bytes.js';
import { sha256, taggedHash } from './hash.js';
import { Chance } from './chance.js';

export const MAX_BELOW = 2 ** 53;

/** Bytes in one block of the stream (one SHA-256 output). */
const BLOCK = 32;

/** The input of a block's hash, key ‖ u64be(counter): the digest keeps nothing of its input (platform.ts). */
const blockInput = new Uint8Array(40);

/** u32be(len(label)) ‖ label of the labels met lately (an audit makes a stream a move, mostly with one label). */
const labelParts = new Map<string, Uint8Array>();
const LABELS_KEPT = 256;

function labelPart(label: string): Uint8Array {
  let part = labelParts.get(label);
  if (part === undefined) {
    const bytes = utf8(label);
    part = new Uint8Array(4 + bytes.length);
    part.set(u32be(bytes.length), 0);
    part.set(bytes, 4);
    if (labelParts.size >= LABELS_KEPT) labelParts.clear();
    labelParts.set(label, part);
  }
  return part;
}

export class RandomStream extends Chance {
  private readonly key: Uint8Array;
  private block: Uint8Array = new Uint8Array(0);
  private offset = 0;
  private counter = 0;
  /** Bytes drawn so far: lets a verifier check that two parties consumed the same amount. */
  consumed = 0;

  constructor(seed: Uint8Array, label: string) {
    super();
    if (!(seed instanceof Uint8Array) || seed.length !== 32) {
      throw new FairtableError('bad_length', 'stream seed must be 32 bytes', { field: 'seed' });
    }
    this.key = taggedHash('stream', seed, labelPart(label));
  }

  private refill(): void {
    // key ‖ u64be(counter), written into a scratch the digest does not keep; counter stays far below 2^53.
    blockInput.set(this.key, 0);
    const hi = Math.floor(this.counter / 2 ** 32);
    const lo = this.counter >>> 0;
    blockInput[32] = hi >>> 24;
    blockInput[33] = (hi >>> 16) & 255;
    blockInput[34] = (hi >>> 8) & 255;
    blockInput[35] = hi & 255;
    blockInput[36] = lo >>> 24;
    blockInput[37] = (lo >>> 16) & 255;
    blockInput[38] = (lo >>> 8) & 255;
    blockInput[39] = lo & 255;
    this.block = sha256(blockInput);
    this.offset = 0;
    this.counter++;
  }

  nextByte(): number {
    if (this.offset >= this.block.length) this.refill();
    this.consumed++;
    return this.block[this.offset++]!;
  }

  bytes(length: number): Uint8Array {
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = this.nextByte();
    return out;
  }

  /**
   * Skips `count` bytes (seed 000's "advance the generator by X"). The stream is counter mode, so whole
   * blocks are skipped by moving the counter: a player's stream rebuilt at its position costs O(1), not
   * O(position), which keeps a long seed-000 game linear.
   */
  skip(count: number): void {
    const inBlock = Math.min(count, this.block.length - this.offset);
    this.offset += inBlock;
    this.consumed += inBlock;
    let rest = count - inBlock;
    const whole = Math.floor(rest / BLOCK);
    this.counter += whole;
    this.consumed += whole * BLOCK;
    rest -= whole * BLOCK;
    for (let i = 0; i < rest; i++) this.nextByte();
  }

  /** A uniform integer in [0, n), 1 ≤ n ≤ 2^53, by masked rejection sampling. */
  override below(n: number): number {
    if (!Number.isInteger(n) || n < 1 || n > MAX_BELOW) {
      throw new FairtableError('out_of_range', `below: n must be an integer in [1, 2^53], got ${n}`, { field: 'n' });
    }
    if (n === 1) return 0;
    const bits = bitLength(n - 1);
    const byteCount = Math.ceil(bits / 8);
    const topMask = 0xff >> (8 * byteCount - bits);
    for (;;) {
      let x = this.nextByte() & topMask;
      for (let i = 1; i < byteCount; i++) x = x * 256 + this.nextByte();
      if (x < n) return x;
    }
  }
}

export function bitLength(n: number): number {
  let bits = 0;
  while (n >= 1) {
    n = Math.floor(n / 2);
    bits++;
  }
  return bits;
}

/** Helper for tests and vectors: the first `length` raw bytes of a stream. */
export function streamBytes(seed: Uint8Array, label: string, length: number): Uint8Array {
  return new RandomStream(seed, label).bytes(length);
}
