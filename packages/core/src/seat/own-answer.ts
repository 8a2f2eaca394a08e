/**
 * A player's answer sealed to her own key inside the envelope it produced (docs/SPEC.md §10.2, "A seat
 * follows its key"): how a device holding only the key and the log reads back an answer no list of choices
 * holds (a Diplomacy order list, a preference list), hidden behind a commitment until the reveal.
 *
 * The escrow's sealing, reused as it is (escrow/vss.ts): a fresh scalar `k` seals the answer's bytes
 * (`sealValue`: ChaCha20-Poly1305 under H("escrow-key", context ‖ k)), and `k` itself is sealed to the
 * player's own Ed25519 key (`sealShare`: X25519 + HKDF + ChaCha20-Poly1305). The answer is its JCS text
 * padded with spaces to a multiple of 1,024 bytes, so the box's length tells nobody more than that bucket.
 *
 * `k` and the sealing's ephemeral key are drawn from a stream keyed by a secret of the same envelope (the
 * commitment's nonce), not from the machine's random source: the machine's other draws are as before.
 * What others learn: nothing before the reveal (the box opens only with the player's key; the nonce is
 * secret until then); after it, the nonce is public and the box opens for anyone, to the answer the reveal
 * has just published.
 */
import { fromHex, fromUtf8, toHex, utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { canonicalize, type JsonValue } from '../jcs.js';
import { RandomStream } from '../stream.js';
import { openEscrowedValue, randomScalar, sealShare, sealValue, type SealedShare } from '../escrow/vss.js';
import { ristretto255 } from '@noble/curves/ed25519.js';

const Fn = ristretto255.Point.Fn;

/** The answer's bytes are padded to a multiple of this. */
export const OWN_ANSWER_BLOCK = 1024;

export interface OwnAnswer {
  /** The scalar k, sealed to the player's own key. */
  readonly key: SealedShare;
  /** The padded answer, sealed under k. */
  readonly box: string;
}

/** Seals `answer` to the player whose public key is `playerKey`; `secret` (32 bytes, hex) keys the draws. */
export function sealOwnAnswer(answer: JsonValue, playerKey: Uint8Array, context: string, secret: string): OwnAnswer {
  const stream = new RandomStream(taggedHash('own-answer', utf8(context), fromHex(secret, 'secret', 32)), 'own-answer');
  const draw = (n: number): Uint8Array => stream.bytes(n);
  const text = utf8(canonicalize(answer));
  const bytes = new Uint8Array(Math.ceil((text.length + 1) / OWN_ANSWER_BLOCK) * OWN_ANSWER_BLOCK).fill(0x20);
  bytes.set(text);
  const k = randomScalar(draw);
  return { key: sealShare(toHex(Fn.toBytes(k)), playerKey, context, draw), box: sealValue(bytes, k, context) };
}

/**
 * Opens an answer sealed by `sealOwnAnswer`, `open` opening the key box with the player's secret key (a seat's
 * `ctx.openShare`); null when it is not one or does not open.
 */
export function openOwnAnswer(sealed: unknown, context: string, open: (key: SealedShare, context: string) => string): JsonValue | null {
  if (sealed === null || typeof sealed !== 'object') return null;
  const s = sealed as Partial<OwnAnswer>;
  if (typeof s.box !== 'string' || s.key === null || typeof s.key !== 'object') return null;
  try {
    const k = Fn.fromBytes(fromHex(open(s.key, context), 'key', 32));
    return JSON.parse(fromUtf8(openEscrowedValue(s.box, k, context)).trimEnd()) as JsonValue;
  } catch {
    // Not a box of this key and context, or not an answer inside: nothing to read back.
    return null;
  }
}
