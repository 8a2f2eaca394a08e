/**
 * Writing and opening talk messages (docs/spec/press.md §3–4).
 *
 * A private message's body is sealed once under a fresh 32-byte content key (ChaCha20-Poly1305, all-zero nonce:
 * the key is used once), and the content key is wrapped to each reader (the recipients and the author, so that the
 * author's own copy opens too) with escrow's `sealShares`: one ephemeral X25519 key, the reader's fairtable key in
 * its X25519 form, HKDF bound to `press/` ‖ JCS({from, game, seq, to: reader}). The relay sees who wrote to whom,
 * when, and how long.
 *
 * Signed games: the outer signature covers the sealed box and H("talk-key", content key); inside the box the body
 * travels with a second signature ("talk-inner") over the message as if it had been in clear, which a recipient
 * can show anyone. Deniable games: no signature anywhere; each recipient gets
 *
 *   mac = HMAC-SHA-256( HKDF(X25519(author, recipient), "fairtable/talk-mac/v1", game), "fairtable/talk-mac/v1" ‖ 0x00 ‖ JCS(message without macs) )
 *
 * a key both the author and that recipient hold, so the recipient knows who wrote it and can prove nothing.
 */
import { ed25519, x25519 } from '@noble/curves/ed25519.js';
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { hmac } from '@noble/hashes/hmac.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, equalBytes, fromHex, fromUtf8, isHex, toHex, utf8 } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { openShare, sealShares } from '../escrow/vss.js';
import { domainPrefix, taggedHash } from '../hash.js';
import { canonicalBytes, canonicalize, parseJson } from '../jcs.js';
import { sign, verify } from '../identity.js';
import { publicKeyRemembered } from '../ed25519/sign.js';
import type { PlayerEntry } from '../setup.js';
import { innerSigningBytes, talkShapeError, talkSigningBytes, type InnerStatement, type TalkMessage, type TalkTo } from './message.js';
import type { PressMode } from './rules.js';

const ZERO_NONCE = new Uint8Array(12);

/** What an author writes, before it is signed or sealed. */
export interface TalkDraft {
  readonly game: string;
  readonly from: string;
  readonly to: TalkTo;
  readonly seq: number;
  readonly at: number;
  readonly body: string;
}

export interface WriteOptions {
  readonly mode: PressMode;
  /** The author's fairtable secret key. */
  readonly secretKey: Uint8Array;
  /** Every seat of the game with its key (from the setup). */
  readonly players: readonly PlayerEntry[];
  readonly random: (n: number) => Uint8Array;
}

/** The context a reader's wrap is bound to. */
export const wrapContext = (m: { game: string; from: string; seq: number }, reader: string): string =>
  `press/${canonicalize({ from: m.from, game: m.game, seq: m.seq, to: reader })}`;

/** H("talk-key", content key), hex. */
export const keyHashOf = (contentKey: Uint8Array): string => toHex(taggedHash('talk-key', contentKey));

function keyOf(players: readonly PlayerEntry[], id: string): Uint8Array {
  const p = players.find((q) => q.id === id);
  if (p === undefined) throw new FairtableError('bad_input', `talk: ${id} is not a seat of this game`, { field: 'to' });
  return fromHex(p.key, 'key', 32);
}

/** MAC keys already derived, by (own secret, other's key, game): one X25519 per pair of seats, not per message. Bounded. */
const macKeys = new Map<string, Uint8Array>();

/** The MAC key an author and one recipient share (static-static X25519 of their fairtable keys). */
export function macKey(mySecret: Uint8Array, theirPublic: Uint8Array, game: string): Uint8Array {
  const id = `${toHex(mySecret)}/${toHex(theirPublic)}/${game}`;
  let key = macKeys.get(id);
  if (key === undefined) {
    const shared = x25519.getSharedSecret(ed25519.utils.toMontgomerySecret(mySecret), ed25519.utils.toMontgomery(theirPublic));
    key = hkdf(sha256, shared, utf8('fairtable/talk-mac/v1'), utf8(game), 32);
    if (macKeys.size >= 1_000) macKeys.clear();
    macKeys.set(id, key);
  }
  return key;
}

function macBytes(m: TalkMessage): Uint8Array {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { macs, ...rest } = m;
  return concatBytes(domainPrefix('talk-mac'), canonicalBytes(rest));
}

const macOf = (key: Uint8Array, m: TalkMessage): string => toHex(hmac(sha256, key, macBytes(m)));

/** The seats that get a MAC in a deniable game: a private message's recipients, or every other seat. */
export const macReaders = (m: { from: string; to: TalkTo }, players: readonly PlayerEntry[]): string[] =>
  Array.isArray(m.to) ? [...m.to] : players.map((p) => p.id).filter((id) => id !== m.from);

/** Signs or MACs, and for a list of seats seals, a draft: the message as it goes to the relay. */
export function writeTalk(draft: TalkDraft, o: WriteOptions): TalkMessage {
  return writeOwnTalk(draft, o).message;
}

/** What the author of a message knows of it: the message, and for a sealed one the content key it drew. */
export interface WrittenTalk {
  readonly message: TalkMessage;
  readonly contentKey: Uint8Array | null;
  /** The text written (in clear for the table, inside the box for a sealed message). */
  readonly body: string;
}

/** The messages `writeOwnTalk` made in this process: the only ones `TalkReader.wrote` takes note of. */
const writtenHere = new WeakSet<TalkMessage>();

/** Whether `m` is a message object `writeOwnTalk` made here (not one built, copied or changed elsewhere). */
export const writtenInThisProcess = (m: TalkMessage): boolean => writtenHere.has(m);

/** `writeTalk`, keeping the sealed box's content key for the author (its own reader need not unwrap it: `TalkReader.wrote`). */
export function writeOwnTalk(draft: TalkDraft, o: WriteOptions): WrittenTalk {
  const head = { game: draft.game, from: draft.from, to: Array.isArray(draft.to) ? [...draft.to].sort() : draft.to, seq: draft.seq, at: draft.at };
  if (!equalBytes(keyOf(o.players, draft.from), publicKeyRemembered(o.secretKey))) {
    throw new FairtableError('bad_input', `talk: the key given is not ${draft.from}'s`, { field: 'secretKey' });
  }
  let m: TalkMessage;
  let contentKey: Uint8Array | null = null;
  if (Array.isArray(head.to)) {
    const to = head.to;
    to.forEach((id) => keyOf(o.players, id));
    const inner =
      o.mode === 'signed' ? { body: draft.body, sig: toHex(sign(innerSigningBytes({ ...head, to, body: draft.body }), o.secretKey)) } : { body: draft.body };
    const key = o.random(32);
    contentKey = key;
    const readers = [...to, draft.from].sort();
    const wrapped = sealShares(
      readers.map(() => toHex(key)),
      readers.map((id) => keyOf(o.players, id)),
      readers.map((id) => wrapContext(head, id)),
      o.random,
    );
    const wraps: Record<string, string> = {};
    readers.forEach((id, i) => (wraps[id] = wrapped[i]!.box));
    const box = chacha20poly1305(key, ZERO_NONCE).encrypt(canonicalBytes(inner));
    m = { ...head, sealed: { ephemeral: wrapped[0]!.ephemeral, wraps, box: toHex(box), keyHash: keyHashOf(key) } };
  } else {
    m = { ...head, body: draft.body };
  }
  if (o.mode === 'signed') {
    m = { ...m, sig: toHex(sign(talkSigningBytes(m), o.secretKey)) };
  } else {
    const macs: Record<string, string> = {};
    for (const id of macReaders(m, o.players)) macs[id] = macOf(macKey(o.secretKey, keyOf(o.players, id), m.game), m);
    m = { ...m, macs };
  }
  const problem = talkShapeError(m);
  if (problem !== null) throw new FairtableError('bad_input', problem, { field: 'talk' });
  writtenHere.add(m);
  return { message: m, contentKey, body: draft.body };
}

/** Whether `m` carries a valid signature of `authorKey` (signed games). */
export const verifyTalkSignature = (m: TalkMessage, authorKey: Uint8Array): boolean =>
  m.sig !== undefined && verify(fromHex(m.sig), talkSigningBytes(m), authorKey);

/** Whether `m`'s MAC for reader `me` is right (deniable games): only the author or `me` could have made it. */
export function verifyTalkMac(m: TalkMessage, me: string, mySecret: Uint8Array, authorKey: Uint8Array): boolean {
  const mac = m.macs?.[me];
  if (mac === undefined) return false;
  return equalBytes(fromHex(mac), fromHex(macOf(macKey(mySecret, authorKey, m.game), m)));
}

/** The content key of a sealed message, unwrapped by one of its readers; throws `bad_share` when the wrap does not open to it. */
export function unwrapContentKey(m: TalkMessage, me: string, mySecret: Uint8Array): Uint8Array {
  const wrap = m.sealed?.wraps[me];
  if (m.sealed === undefined || wrap === undefined) throw new FairtableError('bad_input', `talk: not sealed to ${me}`, { field: 'wraps' });
  const key = fromHex(openShare({ ephemeral: m.sealed.ephemeral, box: wrap }, mySecret, wrapContext(m, me)), 'key', 32);
  if (keyHashOf(key) !== m.sealed.keyHash)
    throw new FairtableError('bad_share', 'talk: the wrapped key is not the message’s content key', { field: 'keyHash' });
  return key;
}

/** What a sealed box says once opened with its content key. */
export type OpenedBox = { readonly ok: true; readonly body: string; readonly innerSig: string | null } | { readonly ok: false; readonly reason: string };

/**
 * Opens a sealed message's box with its content key and checks what is inside: a body, and in a signed game the
 * author's inner signature over the message as if in clear. Anyone holding the content key gets the same answer,
 * which is what makes a disclosure checkable (`checkDisclosure`).
 */
export function openBox(m: TalkMessage, contentKey: Uint8Array, mode: PressMode, authorKey: Uint8Array | null): OpenedBox {
  if (m.sealed === undefined || !Array.isArray(m.to)) return { ok: false, reason: 'not a sealed message' };
  if (keyHashOf(contentKey) !== m.sealed.keyHash) return { ok: false, reason: 'the key is not the message’s content key' };
  let inner: unknown;
  try {
    inner = parseJson(fromUtf8(chacha20poly1305(contentKey, ZERO_NONCE).decrypt(fromHex(m.sealed.box, 'box'))));
  } catch {
    return { ok: false, reason: 'the box does not open under its own content key' };
  }
  const v = inner as { body?: unknown; sig?: unknown } | null;
  const keys = v !== null && typeof v === 'object' && !Array.isArray(v) ? Object.keys(v).sort().join(',') : '';
  if (mode === 'deniable') {
    if (keys !== 'body' || typeof v!.body !== 'string') return { ok: false, reason: 'the box does not hold {body}' };
    return { ok: true, body: v!.body, innerSig: null };
  }
  if (keys !== 'body,sig' || typeof v!.body !== 'string' || !isHex(v!.sig, 64)) return { ok: false, reason: 'the box does not hold {body, sig}' };
  const statement: InnerStatement = { game: m.game, from: m.from, to: m.to, seq: m.seq, at: m.at, body: v!.body };
  if (authorKey === null || !verify(fromHex(v!.sig), innerSigningBytes(statement), authorKey)) {
    return { ok: false, reason: 'the signature inside the box is not the author’s' };
  }
  return { ok: true, body: v!.body, innerSig: v!.sig };
}

/**
 * A recipient's disclosure of a signed private message, checked by a third party who holds only the message, the
 * content key the recipient hands over, and the author's public key: the outer signature binds the box and
 * H(content key) to the author, so `ok: true` proves what the author said, and `ok: false` with a valid outer
 * signature proves the author sealed a box that is not a message.
 */
export function checkDisclosure(
  m: TalkMessage,
  contentKeyHex: string,
  authorKey: Uint8Array,
): { readonly signedByAuthor: boolean; readonly opened: OpenedBox } {
  const signedByAuthor = verifyTalkSignature(m, authorKey);
  if (!isHex(contentKeyHex, 32)) return { signedByAuthor, opened: { ok: false, reason: 'the content key must be 32 bytes of hex' } };
  return { signedByAuthor, opened: openBox(m, fromHex(contentKeyHex), 'signed', authorKey) };
}
