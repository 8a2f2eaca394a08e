/**
 * A talk message (docs/spec/press.md §1): one message at a table, kept beside the game's transcript and never in it.
 *
 *   { game, from, to: "table" | "observers" | [seat, …], seq, at, body | sealed, sig | macs }
 *
 * Messages to the table or to observers carry their body in clear; a message to a list of seats carries it sealed
 * to those seats (seal.ts). In a `signed` game the author signs the message:
 *
 *   sig = Ed25519( "fairtable/talk/v1" ‖ 0x00 ‖ JCS(message without sig) )
 *
 * and in a `deniable` game each recipient gets a MAC instead (seal.ts). Pure: randomness comes from the caller.
 */
import * as z from 'zod/mini';
import { concatBytes, isHex, utf8 } from '../bytes.js';
import { isPlayerId } from '../envelope.js';
import { FairtableError } from '../errors.js';
import { domainPrefix, hashJsonHex } from '../hash.js';
import { canonicalBytes, canonicalize, parseJson } from '../jcs.js';

/** The longest body, in UTF-8 bytes. */
export const MAX_TALK_BODY_BYTES = 4096;
/** The longest message as sent, in UTF-8 bytes of its canonical text (the relay's cap too: docs/spec/relay.md §5). */
export const MAX_TALK_BYTES = 16_384;
/** The most seats one private message may name. */
export const MAX_TALK_RECIPIENTS = 64;

const hex = (bytes: number) => z.string().check(z.refine((s) => isHex(s, bytes), `expected ${bytes} bytes of hex`));
const anyHex = z.string().check(z.refine((s) => isHex(s) && s.length > 0, 'expected hex'));
const seatId = z.string().check(z.refine(isPlayerId, 'expected a player id'));
const time = z.int().check(z.minimum(0));

export const sealedSchema = z.strictObject({
  /** The author's one-time X25519 public key for this message. */
  ephemeral: hex(32),
  /** The content key wrapped to each reader (the recipients and the author): 48 bytes each. */
  wraps: z.record(seatId, hex(48)),
  /** The body, ChaCha20-Poly1305 under the content key with the all-zero nonce. */
  box: anyHex,
  /** H("talk-key", content key): binds the one content key to the message. */
  keyHash: hex(32),
});

export const talkSchema = z.strictObject({
  game: hex(32),
  from: seatId,
  to: z.union([z.literal('table'), z.literal('observers'), z.array(seatId).check(z.minLength(1), z.maxLength(MAX_TALK_RECIPIENTS))]),
  seq: z.int().check(z.minimum(1)),
  at: time,
  body: z.optional(z.string()),
  sealed: z.optional(sealedSchema),
  sig: z.optional(hex(64)),
  macs: z.optional(z.record(seatId, hex(32))),
});

export type TalkMessage = z.infer<typeof talkSchema>;
export type SealedBody = z.infer<typeof sealedSchema>;
export type TalkTo = TalkMessage['to'];

/** Why `value` is not a well-formed talk message (its shape only, no keys needed); null when it is one. */
export function talkShapeError(value: unknown): string | null {
  const r = talkSchema.safeParse(value);
  if (!r.success) {
    const issue = r.error.issues[0];
    return issue === undefined ? 'not a talk message' : `talk${issue.path.map((p) => `.${String(p)}`).join('')}: ${issue.message}`;
  }
  const m = r.data;
  if ((m.body === undefined) === (m.sealed === undefined)) return 'talk: exactly one of body and sealed';
  if ((m.sig === undefined) === (m.macs === undefined)) return 'talk: exactly one of sig and macs';
  if (Array.isArray(m.to)) {
    if (m.body !== undefined) return 'talk: a message to seats is sealed, never in clear';
    for (let i = 1; i < m.to.length; i++) if (!(m.to[i - 1]! < m.to[i]!)) return 'talk.to: seats sorted and each once';
    if (m.to.includes(m.from)) return 'talk.to: the author is not among the recipients';
  } else if (m.sealed !== undefined) return 'talk: a message to the table or observers is in clear';
  if (m.body !== undefined && utf8(m.body).length > MAX_TALK_BODY_BYTES) return `talk.body: over ${MAX_TALK_BODY_BYTES} bytes`;
  if (canonicalBytes(m).length > MAX_TALK_BYTES) return `talk: over ${MAX_TALK_BYTES} bytes`;
  return null;
}

/** Reads one talk message from its text (strict JSON: docs/SPEC.md §1); throws `bad_message` saying why not. */
export function parseTalk(text: string): TalkMessage {
  if (utf8(text).length > MAX_TALK_BYTES) throw new FairtableError('bad_message', `talk: over ${MAX_TALK_BYTES} bytes`, { field: 'talk' });
  let value: unknown;
  try {
    value = parseJson(text);
  } catch (cause) {
    throw new FairtableError('bad_message', 'talk: not strict JSON', { field: 'talk', cause });
  }
  const problem = talkShapeError(value);
  if (problem !== null) throw new FairtableError('bad_message', problem, { field: 'talk' });
  return value as TalkMessage;
}

/** The message's canonical text: what is sent, stored and hashed. */
export const talkText = (m: TalkMessage): string => canonicalize(m);

/** The message's id: H("talk-id", JCS(message)), hex. */
export const talkId = (m: TalkMessage): string => hashJsonHex('talk-id', m);

/** The bytes an author signs: the message without `sig`. */
export function talkSigningBytes(m: TalkMessage): Uint8Array {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { sig, ...unsigned } = m;
  return concatBytes(domainPrefix('talk'), canonicalBytes(unsigned));
}

/** What a signed private message says inside its box, signed apart: the message as if it had been in clear. */
export interface InnerStatement {
  readonly game: string;
  readonly from: string;
  readonly to: readonly string[];
  readonly seq: number;
  readonly at: number;
  readonly body: string;
}

/** The bytes an author signs inside a sealed box ("talk-inner"): shown to a third party, they prove what was said. */
export function innerSigningBytes(s: InnerStatement): Uint8Array {
  return concatBytes(domainPrefix('talk-inner'), canonicalBytes({ at: s.at, body: s.body, from: s.from, game: s.game, seq: s.seq, to: [...s.to] }));
}
