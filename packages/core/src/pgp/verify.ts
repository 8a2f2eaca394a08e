/**
 * A small synchronous reader of OpenPGP v4 public keys and detached signatures, for the subset GnuPG makes
 * and clearsigned messages (docs/spec/diplomacy.md §11.3, from RFC 4880 and RFC 9580): RSA PKCS#1 v1.5 and EdDSA over Ed25519 (the
 * legacy algorithm 22 gpg 2.2 writes, and RFC 9580's algorithm 27), with SHA-224/256/384/512.
 *
 * Why here and not in @fairtable/pgp: protocol machines are replayed synchronously by every seat and by
 * the auditor, and a gpg-only player's commitment and reveal are checked inside the Diplomacy machine. The
 * OpenPGP.js wrapper is asynchronous and too large for the core and the browser; this file is pure (only
 * @noble/*) and is differential-tested against gpg and OpenPGP.js.
 *
 * What it does not judge: a key's expiry, revocation and self-signatures (the key a game uses is the one
 * its setup fixes, checked by the OpenPGP.js path when the setup is read), and signatures by subkeys (a
 * signature must be made by the primary key, which is what gpg's default keys sign with).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { sha1 } from '@noble/hashes/legacy.js';
import { sha224, sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import { bytesToBigInt, bigIntToBytes, concatBytes, equalBytes, fromUtf8, toHex, utf8 } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { modPow } from '../vrf/rsa-fdh-vrf.js';

/** A primary public key as this reader keeps it. */
export interface PgpKey {
  /** The v4 fingerprint, 40 uppercase hex digits as gpg prints it. */
  readonly fingerprint: string;
  /** The low 8 bytes of the fingerprint, 16 uppercase hex digits. */
  readonly keyId: string;
  readonly algorithm: 'rsa' | 'eddsa';
  /** Seconds since 1970, the key's own claim. */
  readonly created: number;
  readonly n?: bigint;
  readonly e?: bigint;
  /** Ed25519 public key, 32 bytes. */
  readonly point?: Uint8Array;
}

/** A detached signature packet, parsed. */
export interface PgpSignature {
  /** 0x00 binary document or 0x01 text document. */
  readonly type: 0 | 1;
  readonly publicAlgorithm: 1 | 22 | 27;
  readonly hashAlgorithm: 8 | 9 | 10 | 11;
  /** Seconds since 1970: the signer's claim, under the signature. */
  readonly created: number;
  /** What is hashed after the data: version … hashed subpackets, then the v4 trailer. */
  readonly trailer: Uint8Array;
  /** The first two bytes of the digest, as the packet carries them. */
  readonly left16: Uint8Array;
  readonly issuerFingerprint: string | null;
  readonly issuerKeyId: string | null;
  /** Human-readable notations in the hashed area (`gpg -N name=value`), by name (the first of each name). */
  readonly notations: Readonly<Record<string, string>>;
  /** RSA: the signature integer; EdDSA: R ‖ S, 64 bytes. */
  readonly rsa?: bigint;
  readonly eddsa?: Uint8Array;
}

const bad = (message: string): never => {
  throw new FairtableError('bad_pgp_data', message, { field: 'signature' });
};
const badKey = (message: string): never => {
  throw new FairtableError('bad_pgp_key', message, { field: 'publicKey' });
};

const HASHES = { 8: sha256, 9: sha384, 10: sha512, 11: sha224 } as const;
const HASH_NAMES = { 8: 'SHA-256', 9: 'SHA-384', 10: 'SHA-512', 11: 'SHA-224' } as const;
/** DER DigestInfo prefixes of RFC 8017 §9.2, by OpenPGP hash id. */
const DIGEST_INFO: Record<number, string> = {
  8: '3031300d060960864801650304020105000420',
  9: '3041300d060960864801650304020205000430',
  10: '3051300d060960864801650304020305000440',
  11: '302d300d06096086480165030402040500041c',
};
const ED25519_OID = '2b06010401da470f01';

// ---------------------------------------------------------------- armor

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
function base64(text: string, what: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean) || clean.length % 4 !== 0) bad(`${what}: not base64`);
  const out: number[] = [];
  for (let i = 0; i < clean.length; i += 4) {
    const q = [...clean.slice(i, i + 4)].map((c) => (c === '=' ? 0 : B64.indexOf(c)));
    const v = (q[0]! << 18) | (q[1]! << 12) | (q[2]! << 6) | q[3]!;
    out.push((v >> 16) & 255);
    if (clean[i + 2] !== '=') out.push((v >> 8) & 255);
    if (clean[i + 3] !== '=') out.push(v & 255);
  }
  return Uint8Array.from(out);
}

/** CRC-24 of RFC 4880 §6.1. */
function crc24(data: Uint8Array): number {
  let crc = 0xb704ce;
  for (const byte of data) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1864cfb;
    }
  }
  return crc & 0xffffff;
}

/**
 * The bytes of the one armored block of kind `label` (`SIGNATURE`, `PUBLIC KEY BLOCK`) in `text`; its
 * checksum, when present, must hold. Text around the block is ignored; two blocks are refused.
 */
export function dearmor(text: string, label: string): Uint8Array {
  const lines = text.split(/\r?\n/).map((l) => l.trimEnd());
  const begin = `-----BEGIN PGP ${label}-----`;
  const starts = lines.flatMap((l, i) => (l.trim() === begin ? [i] : []));
  if (starts.length !== 1) bad(starts.length === 0 ? `no "${begin}" block` : `more than one "${begin}" block`);
  let i = starts[0]! + 1;
  // Armor headers ("Version: …", "Comment: …") up to the first blank line.
  while (i < lines.length && lines[i]!.trim() !== '' && /^[A-Za-z-]+: /.test(lines[i]!.trim())) i++;
  if (i < lines.length && lines[i]!.trim() === '') i++;
  const body: string[] = [];
  let checksum: string | null = null;
  for (; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === `-----END PGP ${label}-----`) break;
    if (/^=[A-Za-z0-9+/]{4}$/.test(line)) checksum = line.slice(1);
    else body.push(line);
  }
  if (i === lines.length) bad(`the "${begin}" block has no end line`);
  const bytes = base64(body.join(''), 'armor');
  if (checksum !== null) {
    const c = base64(checksum, 'armor checksum');
    if (((c[0]! << 16) | (c[1]! << 8) | c[2]!) !== crc24(bytes)) bad('the armor checksum does not match its body');
  }
  return bytes;
}

// ---------------------------------------------------------------- packets

interface Packet {
  readonly tag: number;
  readonly body: Uint8Array;
}

/** The packets of `bytes` (old and new headers, RFC 9580 §4.2); partial lengths are refused (no key or signature uses them). */
export function packets(bytes: Uint8Array, fail: (m: string) => never = bad): Packet[] {
  const out: Packet[] = [];
  let at = 0;
  while (at < bytes.length) {
    const h = bytes[at]!;
    if ((h & 0x80) === 0) fail(`byte ${at} is not a packet header`);
    let tag: number;
    let length: number;
    let start: number;
    if (h & 0x40) {
      tag = h & 0x3f;
      const l0 = bytes[at + 1];
      if (l0 === undefined) return fail('a packet header is cut off');
      if (l0 < 192) [length, start] = [l0, at + 2];
      else if (l0 < 224) [length, start] = [((l0 - 192) << 8) + (bytes[at + 2] ?? 0) + 192, at + 3];
      else if (l0 === 255) [length, start] = [readU32(bytes, at + 2, fail), at + 6];
      else return fail('a packet with a partial body length');
    } else {
      tag = (h >> 2) & 0x0f;
      const kind = h & 3;
      if (kind === 0) [length, start] = [bytes[at + 1] ?? 0, at + 2];
      else if (kind === 1) [length, start] = [((bytes[at + 1] ?? 0) << 8) | (bytes[at + 2] ?? 0), at + 3];
      else if (kind === 2) [length, start] = [readU32(bytes, at + 1, fail), at + 5];
      else [length, start] = [bytes.length - at - 1, at + 1];
    }
    if (start + length > bytes.length) fail('a packet runs past the end of its data');
    out.push({ tag, body: bytes.subarray(start, start + length) });
    at = start + length;
  }
  return out;
}

function readU32(bytes: Uint8Array, at: number, fail: (m: string) => never): number {
  if (at + 4 > bytes.length) fail('data cut off');
  return ((bytes[at]! << 24) >>> 0) + (bytes[at + 1]! << 16) + (bytes[at + 2]! << 8) + bytes[at + 3]!;
}

/** A multiprecision integer (RFC 4880 §3.2) at `at`: its value's bytes (leading zeros dropped) and where the next field starts. */
function mpi(bytes: Uint8Array, at: number, fail: (m: string) => never): { value: Uint8Array; next: number } {
  if (at + 2 > bytes.length) fail('an integer is cut off');
  const bits = (bytes[at]! << 8) | bytes[at + 1]!;
  const len = Math.ceil(bits / 8);
  if (at + 2 + len > bytes.length) fail('an integer is cut off');
  let value = bytes.subarray(at + 2, at + 2 + len);
  // The bit count is not signed; the value is what counts (pgp.md §2: signatures are malleable there).
  let z = 0;
  while (z < value.length && value[z] === 0) z++;
  value = value.subarray(z);
  return { value, next: at + 2 + len };
}

// ---------------------------------------------------------------- keys

/**
 * The primary key of one OpenPGP public key (armored `PUBLIC KEY BLOCK`, or binary): v4, RSA of at least
 * 2048 bits or EdDSA on Ed25519. A block with more than one primary key is refused: a setup names one.
 */
export function readPgpKey(input: string | Uint8Array): PgpKey {
  const bytes = typeof input === 'string' ? dearmorKey(input) : input;
  const all = packets(bytes, badKey);
  const primaries = all.filter((p) => p.tag === 6);
  if (primaries.length !== 1 || all[0]?.tag !== 6) badKey(primaries.length === 0 ? 'not an OpenPGP public key' : 'more than one primary key');
  const body = primaries[0]!.body;
  if (body[0] !== 4) badKey(`a version ${body[0] ?? '?'} key; only v4 keys are read`);
  const created = readU32(body, 1, badKey);
  const algorithm = body[5];
  const fp = toHex(sha1(concatBytes(Uint8Array.of(0x99, body.length >> 8, body.length & 255), body))).toUpperCase();
  const base = { fingerprint: fp, keyId: fp.slice(24), created };
  if (algorithm === 1 || algorithm === 3) {
    const n = mpi(body, 6, badKey);
    const e = mpi(body, n.next, badKey);
    const nn = bytesToBigInt(n.value);
    const ee = bytesToBigInt(e.value);
    if (nn.toString(2).length < 2047) badKey(`an RSA key of ${nn.toString(2).length} bits; at least 2048 are needed`);
    if (ee < 3n || ee % 2n === 0n) badKey('an RSA key with an unusable exponent');
    return { ...base, algorithm: 'rsa', n: nn, e: ee };
  }
  if (algorithm === 22) {
    const oidLen = body[6] ?? 0;
    if (toHex(body.subarray(7, 7 + oidLen)) !== ED25519_OID) badKey('an EdDSA key on a curve other than Ed25519');
    const q = mpi(body, 7 + oidLen, badKey).value;
    if (q.length !== 33 || q[0] !== 0x40) badKey('an Ed25519 point not in the native 0x40 form');
    return { ...base, algorithm: 'eddsa', point: q.slice(1) };
  }
  if (algorithm === 27) {
    if (body.length !== 6 + 32) badKey('an Ed25519 key of the wrong length');
    return { ...base, algorithm: 'eddsa', point: body.slice(6) };
  }
  return badKey(`public-key algorithm ${algorithm ?? '?'} is not read here (RSA and Ed25519 are)`);
}

function dearmorKey(text: string): Uint8Array {
  try {
    return dearmor(text, 'PUBLIC KEY BLOCK');
  } catch (e) {
    if (e instanceof FairtableError) badKey(e.message);
    throw e;
  }
}

// ---------------------------------------------------------------- signatures

/** Reads one armored (or binary) detached signature: exactly one v4 signature packet over a document. */
export function readPgpSignature(input: string | Uint8Array): PgpSignature {
  const bytes = typeof input === 'string' ? dearmor(input, 'SIGNATURE') : input;
  const all = packets(bytes);
  if (all.length !== 1 || all[0]!.tag !== 2) bad('a detached signature must be exactly one signature packet');
  const b = all[0]!.body;
  if (b[0] !== 4) bad(`a version ${b[0] ?? '?'} signature; only v4 signatures are read`);
  const type = b[1];
  if (type !== 0 && type !== 1) return bad(`signature type 0x${(type ?? 0).toString(16)} is not a signature over a document`);
  const publicAlgorithm = b[2];
  if (publicAlgorithm !== 1 && publicAlgorithm !== 22 && publicAlgorithm !== 27) return bad(`public-key algorithm ${publicAlgorithm ?? '?'} is not read here`);
  const hashAlgorithm = b[3];
  if (hashAlgorithm !== 8 && hashAlgorithm !== 9 && hashAlgorithm !== 10 && hashAlgorithm !== 11)
    return bad(`hash algorithm ${hashAlgorithm ?? '?'} is refused (SHA-224, SHA-256, SHA-384 and SHA-512 are accepted)`);
  const hashedLen = ((b[4] ?? 0) << 8) | (b[5] ?? 0);
  const hashedEnd = 6 + hashedLen;
  if (hashedEnd + 2 > b.length) bad('the hashed subpackets run past the packet');
  const notations = new Map<string, string>();
  const hashed = readSubpackets(b.subarray(6, hashedEnd), true, notations);
  const unhashedLen = (b[hashedEnd]! << 8) | b[hashedEnd + 1]!;
  const unhashedEnd = hashedEnd + 2 + unhashedLen;
  if (unhashedEnd + 2 > b.length) bad('the unhashed subpackets run past the packet');
  const unhashed = readSubpackets(b.subarray(hashedEnd + 2, unhashedEnd), false);
  const createdSub = hashed.get(2);
  if (createdSub?.length !== 4) bad('a signature without a signed creation time');
  const issuerFp = hashed.get(33) ?? unhashed.get(33);
  const issuerId = hashed.get(16) ?? unhashed.get(16);
  const issuerFingerprint = issuerFp !== undefined && issuerFp[0] === 4 && issuerFp.length === 21 ? toHex(issuerFp.subarray(1)).toUpperCase() : null;
  const issuerKeyId = issuerId?.length === 8 ? toHex(issuerId).toUpperCase() : null;
  if (issuerFingerprint === null && issuerKeyId === null) bad('a signature that does not name its issuer');
  const left16 = b.slice(unhashedEnd, unhashedEnd + 2);
  const head = b.subarray(0, hashedEnd);
  const trailer = concatBytes(head, Uint8Array.of(4, 0xff), Uint8Array.of(0, 0, hashedEnd >> 8, hashedEnd & 255));
  const base = {
    type,
    publicAlgorithm,
    hashAlgorithm,
    created: readU32(createdSub!, 0, bad),
    trailer,
    left16,
    issuerFingerprint,
    issuerKeyId,
    notations: Object.fromEntries(notations),
  } as const;
  if (publicAlgorithm === 1) {
    const s = mpi(b, unhashedEnd + 2, bad);
    if (s.next !== b.length) bad('bytes after the signature');
    return { ...base, rsa: bytesToBigInt(s.value) };
  }
  let rs: Uint8Array;
  if (publicAlgorithm === 22) {
    const r = mpi(b, unhashedEnd + 2, bad);
    const s = mpi(b, r.next, bad);
    if (s.next !== b.length || r.value.length > 32 || s.value.length > 32) bad('an EdDSA signature of the wrong shape');
    rs = concatBytes(bigIntToBytes(bytesToBigInt(r.value), 32), bigIntToBytes(bytesToBigInt(s.value), 32));
  } else {
    if (b.length !== unhashedEnd + 2 + 64) bad('an Ed25519 signature of the wrong length');
    rs = b.slice(unhashedEnd + 2);
  }
  return { ...base, eddsa: rs };
}

/** Subpacket types taken when marked critical in the hashed area. */
const CRITICAL_SIGNED = new Set([2, 16, 28, 33]);
/**
 * In the unhashed area: those, and every type gpg 2.2 handles when critical there (measured: each type 1 to 127
 * written as the critical type of an Ed25519 signature's unhashed subpacket, gpg --verify said GOODSIG for these).
 */
const CRITICAL_UNSIGNED = new Set([2, 3, 4, 5, 6, 7, 9, 11, 12, 16, 21, 22, 24, 25, 26, 27, 28, 29, 30, 32, 33]);

/** Subpackets by type (the first of each type). A critical subpacket this reader does not know refuses the signature (RFC 4880 §5.2.3.1). */
function readSubpackets(area: Uint8Array, signed: boolean, notations = new Map<string, string>()): Map<number, Uint8Array> {
  const out = new Map<number, Uint8Array>();
  let at = 0;
  while (at < area.length) {
    const l0 = area[at]!;
    let len: number;
    if (l0 < 192) [len, at] = [l0, at + 1];
    else if (l0 < 255) [len, at] = [((l0 - 192) << 8) + (area[at + 1] ?? 0) + 192, at + 2];
    else [len, at] = [readU32(area, at + 1, bad), at + 5];
    if (len < 1 || at + len > area.length) bad('a subpacket runs past its area');
    const type = area[at]! & 0x7f;
    const critical = (area[at]! & 0x80) !== 0;
    // Signed, known: creation time, issuer, issuer fingerprint, signer's user id; an expiry is critical for a
    // reason: refused. Unsigned, nothing changes what the signature means, so a critical subpacket there is
    // refused only where gpg refuses it: a type gpg does not handle.
    if (critical && !(signed ? CRITICAL_SIGNED : CRITICAL_UNSIGNED).has(type)) bad(`a critical ${signed ? 'hashed' : 'unhashed'} subpacket of type ${type}`);
    if (signed && type === 3) bad('a signature with an expiry time is not accepted in a game (its meaning depends on a clock)');
    if (signed && type === 20) readNotation(area.subarray(at + 1, at + len), notations);
    if (!out.has(type)) out.set(type, area.slice(at + 1, at + len));
    at += len;
  }
  return out;
}

/** A notation subpacket (RFC 9580 §5.2.3.24): 4 flag bytes, name and value lengths, name, value; only human-readable ones are kept. */
function readNotation(data: Uint8Array, into: Map<string, string>): void {
  if (data.length < 8) bad('a notation cut off');
  const nameLen = (data[4]! << 8) | data[5]!;
  const valueLen = (data[6]! << 8) | data[7]!;
  if (8 + nameLen + valueLen !== data.length) bad('a notation of the wrong length');
  if ((data[0]! & 0x80) === 0) return;
  const name = fromUtf8(data.subarray(8, 8 + nameLen));
  if (!into.has(name)) into.set(name, fromUtf8(data.subarray(8 + nameLen)));
}

// ---------------------------------------------------------------- verifying

/** The bytes a document signature hashes for `data`: text signatures see every line ending as CR LF (RFC 9580 §5.2.1.2). */
export function signedBytes(signature: PgpSignature, data: Uint8Array): Uint8Array {
  if (signature.type === 0) return data;
  const out: number[] = [];
  for (let i = 0; i < data.length; i++) {
    if (data[i] === 0x0a && (i === 0 || data[i - 1] !== 0x0d)) out.push(0x0d);
    out.push(data[i]!);
  }
  return Uint8Array.from(out);
}

/** The digest a signature signs over `data`. */
export function signatureDigest(signature: PgpSignature, data: Uint8Array): Uint8Array {
  return HASHES[signature.hashAlgorithm].create().update(signedBytes(signature, data)).update(signature.trailer).digest();
}

/** Null when `key` is the key the signature names as its issuer; otherwise why not. */
export function issuerProblem(key: PgpKey, signature: PgpSignature): string | null {
  if (signature.issuerFingerprint !== null && signature.issuerFingerprint !== key.fingerprint)
    return `signed by key ${signature.issuerFingerprint}, not ${key.fingerprint}`;
  if (signature.issuerKeyId !== null && signature.issuerKeyId !== key.keyId) return `signed by key id ${signature.issuerKeyId}, not ${key.keyId}`;
  const algorithm = signature.publicAlgorithm === 1 ? 'rsa' : 'eddsa';
  if (algorithm !== key.algorithm) return `an ${algorithm} signature for an ${key.algorithm} key`;
  return null;
}

/**
 * The digest inside an RSA signature, read back with the public key alone: s^e mod n must be an
 * EMSA-PKCS1-v1_5 encoding (RFC 8017 §9.2) of a digest of the signature's hash. Nobody without the
 * secret key can make an s that decodes this way, so a digest read back is one the key holder signed,
 * before the document is known. Null when the signature does not decode.
 */
export function recoverRsaDigest(key: PgpKey, signature: PgpSignature): Uint8Array | null {
  if (key.algorithm !== 'rsa' || signature.rsa === undefined || issuerProblem(key, signature) !== null) return null;
  const n = key.n!;
  const s = signature.rsa;
  if (s >= n) return null;
  const k = Math.ceil(n.toString(2).length / 8);
  const em = bigIntToBytes(modPow(s, key.e!, n), k);
  const prefix = DIGEST_INFO[signature.hashAlgorithm]!;
  const digestLen = HASHES[signature.hashAlgorithm].outputLen;
  const tail = prefix.length / 2 + digestLen;
  const padEnd = k - tail - 1;
  if (em[0] !== 0 || em[1] !== 1 || padEnd < 10 || em[padEnd] !== 0) return null;
  for (let i = 2; i < padEnd; i++) if (em[i] !== 0xff) return null;
  if (toHex(em.subarray(padEnd + 1, padEnd + 1 + prefix.length / 2)) !== prefix) return null;
  const digest = em.slice(k - digestLen);
  return equalBytes(digest.subarray(0, 2), signature.left16) ? digest : null;
}

export type PgpCheck = { readonly valid: true } | { readonly valid: false; readonly code: 'bad_pgp_signature' | 'pgp_wrong_signer'; readonly message: string };

/** Checks a detached signature over `data` under the primary key `key`. */
export function verifyPgpDetached(key: PgpKey, signature: PgpSignature, data: Uint8Array): PgpCheck {
  const problem = issuerProblem(key, signature);
  if (problem !== null) return { valid: false, code: 'pgp_wrong_signer', message: problem };
  const digest = signatureDigest(signature, data);
  let good: boolean;
  if (key.algorithm === 'rsa') {
    const inside = recoverRsaDigest(key, signature);
    good = inside !== null && equalBytes(inside, digest);
  } else {
    // zip215 off: the strict RFC 8032 reading, so no second encoding of one signature verifies.
    good = equalBytes(digest.subarray(0, 2), signature.left16) && ed25519.verify(signature.eddsa!, digest, key.point!, { zip215: false });
  }
  return good
    ? { valid: true }
    : { valid: false, code: 'bad_pgp_signature', message: `the ${HASH_NAMES[signature.hashAlgorithm]} signature does not fit these bytes` };
}

// ---------------------------------------------------------------- clearsigned messages

/** A clearsigned message (RFC 9580 §7), read: its text and the text signature over it. */
export interface PgpClearsigned {
  /** The signed text, dash escapes undone, trailing spaces and tabs of each line dropped, lines joined by LF, no final line end. */
  readonly text: string;
  readonly signature: PgpSignature;
  /** The bytes the signature hashes: the lines of `text` joined by CR LF (RFC 9580 §7.2). */
  readonly signed: Uint8Array;
}

const CLEARSIGN_HASH_NAMES = { 8: 'SHA256', 9: 'SHA384', 10: 'SHA512', 11: 'SHA224' } as const;

/** Whether `text` holds a clearsigned message (what `gpg --clearsign` writes). */
export function isClearsigned(text: string): boolean {
  return text.split(/\r?\n/).some((l) => l.trim() === '-----BEGIN PGP SIGNED MESSAGE-----');
}

/**
 * The one clearsigned message in `input`: `-----BEGIN PGP SIGNED MESSAGE-----`, `Hash:` headers (when
 * present they must name the signature's hash), a blank line, the dash-escaped text, then one armored
 * signature of type 0x01 (text). Text around the message is ignored; the signature is not checked here.
 */
export function readPgpClearsigned(input: string): PgpClearsigned {
  const lines = input.split(/\r?\n/);
  const begin = '-----BEGIN PGP SIGNED MESSAGE-----';
  const starts = lines.flatMap((l, i) => (l.trim() === begin ? [i] : []));
  if (starts.length !== 1) bad(starts.length === 0 ? `no "${begin}" line` : 'more than one clearsigned message');
  let i = starts[0]! + 1;
  const hashes: string[] = [];
  for (; i < lines.length && lines[i]!.trim() !== ''; i++) {
    const header = /^Hash: *(.+)$/.exec(lines[i]!.trim());
    if (header === null) bad(`a clearsigned message header that is not "Hash:": ${lines[i]!.trim().slice(0, 40)}`);
    hashes.push(...header![1]!.split(',').map((h) => h.trim().toUpperCase()));
  }
  if (i === lines.length) bad('a clearsigned message with no text');
  const end = lines.findIndex((l, j) => j > i && l.trim() === '-----BEGIN PGP SIGNATURE-----');
  if (end < 0) bad('a clearsigned message with no signature');
  const text = lines.slice(i + 1, end).map((l) => {
    if (l.startsWith('-') && !l.startsWith('- ')) bad('a line of a clearsigned text starts with a dash that is not escaped');
    return (l.startsWith('- ') ? l.slice(2) : l).replace(/[ \t]+$/, '');
  });
  const signature = readPgpSignature(lines.slice(end).join('\n'));
  if (signature.type !== 1) bad('the signature of a clearsigned message must be a text signature (type 0x01)');
  if (hashes.length > 0 && !hashes.includes(CLEARSIGN_HASH_NAMES[signature.hashAlgorithm]))
    bad(`the "Hash:" header names ${hashes.join(', ')}, the signature uses ${CLEARSIGN_HASH_NAMES[signature.hashAlgorithm]}`);
  return { text: text.join('\n'), signature, signed: utf8(text.join('\r\n')) };
}
