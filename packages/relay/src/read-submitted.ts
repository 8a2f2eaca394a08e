/**
 * How the relay reads a submitted line before its door judges it (docs/spec/relay.md, "The pipeline"): the one
 * parse of the line, then the checks that need no signature, then the canonical form, the hash and the
 * signature (`prepareEnvelope`, SPEC §4). It runs on a verifying thread (relay-verify-worker.ts), or on the event
 * loop when no thread can answer, and gives the same answer on either.
 *
 * What it returns is all the door needs: for an envelope of the connection's own player, its header (every
 * member the door's rule reads), its hash and the verdict on its signature. The body stays where it was
 * read; the relay stores and fans out the line's text, never the parsed value.
 */
import { envelopeShapeError, type Envelope } from '@fairtable/core/envelope.js';
import { NEWCOMER_TYPE, prepareEnvelope, prepareLine, type VerifyFn } from '@fairtable/core/transcript.js';

/** The members of an envelope that the door's rule (`TranscriptChecker.judge`) reads. */
export interface EnvelopeHeader {
  readonly game: string;
  readonly from: string;
  readonly seq: number;
  readonly prev: string;
  readonly at: number;
  readonly head: string;
  readonly time: number;
  /** `body.type`: the envelope the door is given has a true body, if only its type. */
  readonly type: string;
  /**
   * The whole body of a `newcomer` line, whose `newcomer` member makes an author (docs/SPEC.md §4.6): the door
   * reads it. Such lines are few (at most 64 a game); every other body stays where it was read.
   */
  readonly body?: Envelope['body'];
}

export type Read =
  /** Not an envelope (not JSON, not its shape, not canonical): the door refuses it `malformed`, naming nobody. */
  | { readonly kind: 'malformed'; readonly shapeError: string }
  /** An envelope from another player than the connection's (`not_your_seat`), unverified. */
  | { readonly kind: 'other'; readonly from: string }
  /** The connection's player's envelope, at a `seq` beyond the next one it can have (`bad_position`), unverified. */
  | { readonly kind: 'ahead'; readonly seq: number }
  /** The connection's player's envelope, read, hashed and verified. */
  | { readonly kind: 'read'; readonly header: EnvelopeHeader; readonly hash: string; readonly sigOk: boolean };

/**
 * Reads `text`, submitted over `who`'s connection, under `who`'s public key `key`; `next` is the largest
 * `seq` that `who`'s envelope can have (its envelopes in the log and those of its lines still ahead of this
 * one), beyond which the line is refused without its signature being checked.
 */
export function readSubmitted(text: string, who: string, key: Uint8Array, next: number, verify: VerifyFn): Read {
  // A line that is no envelope is read again by prepareLine, which says why in the door's own words.
  const malformed = (): Read => ({ kind: 'malformed', shapeError: prepareLine(0, text, new Map(), verify).shapeError ?? 'not an envelope' });
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return malformed();
  }
  if (envelopeShapeError(value) !== null) return malformed();
  const envelope = value as Envelope;
  if (envelope.from !== who) return { kind: 'other', from: envelope.from };
  if (envelope.seq > next) return { kind: 'ahead', seq: envelope.seq };
  const p = prepareEnvelope(0, text, envelope, new Map([[who, key]]), verify);
  if (p.shapeError !== null || p.hash === null) return { kind: 'malformed', shapeError: p.shapeError ?? 'not an envelope' };
  const { game, from, seq, prev, at, head, time, body } = envelope;
  return {
    kind: 'read',
    header: { game, from, seq, prev, at, head, time, type: body.type, ...(body.type === NEWCOMER_TYPE ? { body } : {}) },
    hash: p.hash,
    sigOk: p.sigOk,
  };
}
