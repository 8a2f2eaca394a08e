/**
 * A Diplomacy player with nothing but gpg and a mail client (docs/spec/diplomacy.md §11): seed 003's own
 * steps, carried into the log by fairtable seats. The player writes an orders file whose first line is
 * the salt line (the game's part, then a secret of the player's own), commits to it (an RSA key: `gpg
 * --detach-sign --armor` the file; any key, Ed25519 included: `gpg --clearsign` its SHA-256 digest), mails
 * the `.asc` to everyone, and later mails the file. Any seat that got the mail carries it
 * (`pgp-commit`, `pgp-reveal`); the machine checks every carried byte against the player's OpenPGP key
 * fixed in the setup, so a carrier can forward or fail to forward, never forge or alter.
 *
 * Everything here is pure and synchronous (the core's OpenPGP reader), so every seat and the auditor
 * replay it as they replay the rest of the machine. A carrier runs the same checks before it carries.
 */
import { toHex, utf8 } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { hashJsonHex, sha256 } from '@fairtable/core/hash.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import {
  isClearsigned,
  readPgpClearsigned,
  readPgpKey,
  readPgpSignature,
  recoverRsaDigest,
  signatureDigest,
  verifyPgpDetached,
  type PgpKey,
  type PgpSignature,
} from '@fairtable/core/pgp/verify.js';
import { isPlayerId } from '@fairtable/core/envelope.js';

/** The first word of a gpg-only player's salt line: names the format, so a file can never be read as another's. */
export const SALT_TAG = 'fairtable/orders/v1';
/** The player's own secret at the end of the salt line: at least 22 base64 characters (132 bits). */
const SECRET = /^[A-Za-z0-9+/=_-]{22,128}$/;
/** How far before its round's start a commitment's signature may be dated (the player's clock against the log's). */
export const DEFAULT_PGP_SKEW_MS = 5 * 60_000;

/** A gpg-only player as the setup names it (`params.gpgPlayers`). */
export interface GpgPlayer {
  readonly id: string;
  /** The player's OpenPGP public key, armored, as `gpg --export --armor` prints it. */
  readonly publicKey: string;
  readonly fingerprint: string;
}

/** A carried commitment, as the machine keeps it: what the reveal is checked against. */
export interface CarriedCommit {
  /** Hex: the digest read back from an RSA signature, or the SHA-256 of the file a clearsigned text states. */
  readonly digest: string;
  /** `sha256`: a clearsigned statement of the file's SHA-256 (§11.2); absent: a detached RSA signature over the file. */
  readonly form?: 'sha256';
  /** The signature's armored text (or the clearsigned message), as carried. */
  readonly signature: string;
  /** The signature's own date, ms. */
  readonly created: number;
}

const keyCache = new Map<string, PgpKey>();
/** The parsed key of an armored public key; parsed once per process (states keep the armored text, so they stay plain data). */
export function gpgKey(armored: string): PgpKey {
  let key = keyCache.get(armored);
  if (key === undefined) {
    key = readPgpKey(armored);
    keyCache.set(armored, key);
  }
  return key;
}

/**
 * `params.gpgPlayers`, checked: a list of `{id, publicKey, fingerprint}` with ids unused by the setup's
 * players, each key one primary key (RSA of at least 2048 bits, or Ed25519) whose fingerprint is the one given.
 */
export function readGpgPlayers(value: JsonValue | undefined, taken: readonly string[]): GpgPlayer[] {
  if (value === undefined) return [];
  const fail = (message: string): never => {
    throw new FairtableError('bad_input', `parameter gpgPlayers: ${message}`, { field: 'gpgPlayers' });
  };
  if (!Array.isArray(value)) return fail('must be a list');
  const ids = new Set(taken);
  return value.map((entry, i) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) return fail(`entry ${i} must be {id, publicKey, fingerprint}`);
    const { id, publicKey, fingerprint } = entry as Record<string, JsonValue>;
    if (Object.keys(entry).some((k) => !['id', 'publicKey', 'fingerprint'].includes(k))) fail(`entry ${i} has an unknown member`);
    if (!isPlayerId(id) || ids.has(id)) return fail(`entry ${i}: id must be a player id not used by another player`);
    ids.add(id);
    if (typeof publicKey !== 'string' || typeof fingerprint !== 'string') return fail(`${id}: publicKey and fingerprint must be text`);
    let key: PgpKey;
    try {
      key = gpgKey(publicKey);
    } catch (e) {
      if (e instanceof FairtableError) return fail(`${id}: ${e.message}`);
      throw e;
    }
    if (key.fingerprint !== fingerprint.replace(/\s+/g, '').toUpperCase()) fail(`${id}: the key's fingerprint is ${key.fingerprint}, not ${fingerprint}`);
    // An RSA key commits by a detached signature (its digest is read back at once) or a clearsigned digest; an
    // Ed25519 key by a clearsigned digest only, which is checkable at once (§11.2).
    return { id, publicKey, fingerprint: key.fingerprint };
  });
}

/** The game's part of a salt line: the player copies it, then adds a secret of its own. */
export function saltPrefix(gameId: string, round: number, label: string, player: string): string {
  return `${SALT_TAG} ${gameId} ${round} ${label} ${player}`;
}

/**
 * The signed notation a clearsigned commitment carries (`gpg --clearsign -N orders@fairtable=VALUE`): the
 * game, round, phase label and player, so that a player's commitment in one game cannot be carried into
 * another (or into another round) while the round's window is open.
 */
export const NOTATION = 'orders@fairtable';

/** The value of the notation for a round: `<game>/<round>/<label>/<player>`. */
export function notationValue(gameId: string, round: number, label: string, player: string): string {
  return `${gameId}/${round}/${label}/${player}`;
}

/** The commitment a carried signature stands for in the commit set: bound to game, player and round. */
export function carriedCommitment(gameId: string, player: string, round: number, digest: string): string {
  return hashJsonHex('commit', { game: gameId, player, purpose: `diplomacy/${round}/pgp`, digest });
}

export type CommitCheck = { readonly ok: true; readonly commit: CarriedCommit } | { readonly ok: false; readonly problem: string };

/**
 * The SHA-256 digest a clearsigned commitment states, lower-case hex, or null. Two forms, what the two
 * commands a player has print: `sha256sum FILE` (one line: 64 hex digits, a space, then a space or `*` and
 * the file's name) and `gpg --print-md SHA256 FILE` (the name, a colon, then the digest in groups of hex
 * digits, perhaps over several lines; without the name when gpg reads the file from its input).
 */
export function statedDigest(text: string): string | null {
  const sum = /^([0-9A-Fa-f]{64}) [ *]\S.*$/.exec(text.trim());
  if (sum !== null && !text.trim().includes('\n')) return sum[1]!.toLowerCase();
  const md = /^(?:.*:)?([0-9A-Fa-f]{64})$/.exec(text.replace(/\s+/g, ''));
  return md === null ? null : md[1]!.toLowerCase();
}

/** The signature packet of a carried commitment: a detached signature, or the one closing a clearsigned message. */
export function commitSignature(text: string): PgpSignature {
  return isClearsigned(text) ? readPgpClearsigned(text).signature : readPgpSignature(text);
}

/**
 * Whether `signature` is the player's commitment for a round that started at `roundStart` (ms), in one of
 * two forms, both checkable at once with the player's key alone, so only the key holder can make either:
 * - a clearsigned message (any key) whose signature verifies over its text, carries the signed notation
 *   `binding` (`NOTATION`: this game, round and player), and whose text states the SHA-256 of the orders
 *   file (`statedDigest`);
 * - a detached RSA signature whose digest it gives back.
 * Either must be dated no earlier than the round's start less `skewMs`, over a digest not used before in
 * the game (`used`): the last two stop a carrier from replaying an older signature of the player.
 */
export function checkCarriedCommit(
  armoredKey: string,
  signature: JsonValue | undefined,
  roundStart: number,
  skewMs: number,
  used: readonly string[],
  binding: string,
): CommitCheck {
  if (typeof signature !== 'string' || signature.length > 16_384) return { ok: false, problem: 'the signature is not armored text' };
  const key = gpgKey(armoredKey);
  let sig: PgpSignature;
  let hex: string;
  let form: 'sha256' | null = null;
  try {
    if (isClearsigned(signature)) {
      const message = readPgpClearsigned(signature);
      const check = verifyPgpDetached(key, message.signature, message.signed);
      if (!check.valid) return { ok: false, problem: `it is not a text the player's key signed: ${check.message}` };
      const named = message.signature.notations[NOTATION];
      if (named !== binding)
        return {
          ok: false,
          problem:
            named === undefined
              ? `its signature carries no ${NOTATION} notation`
              : `its signature's ${NOTATION} notation is ${named}, not ${binding}: another game or round`,
        };
      const stated = statedDigest(message.text);
      if (stated === null) return { ok: false, problem: 'its signed text states no SHA-256 digest (as sha256sum or gpg --print-md SHA256 print one)' };
      [sig, hex, form] = [message.signature, stated, 'sha256'];
    } else {
      sig = readPgpSignature(signature);
      if (key.algorithm !== 'rsa')
        return {
          ok: false,
          problem: "a detached signature by an Ed25519 key cannot be checked before its file is known: the player's commitment is a clearsigned digest",
        };
      const digest = recoverRsaDigest(key, sig);
      if (digest === null) return { ok: false, problem: "it is not a signature by the player's key" };
      hex = toHex(digest);
    }
  } catch (e) {
    if (e instanceof FairtableError) return { ok: false, problem: e.message };
    throw e;
  }
  const created = sig.created * 1000;
  if (created < roundStart - skewMs)
    return { ok: false, problem: `it was made at ${created}, before the round began (${roundStart}, less ${skewMs} ms for clocks)` };
  if (used.includes(hex)) return { ok: false, problem: 'it signs what the player committed to in an earlier round' };
  return { ok: true, commit: form === null ? { digest: hex, signature, created } : { digest: hex, form, signature, created } };
}

/** Whether a carried file is the one the commitment signed: the digest it states, or its digest under the committed signature. */
export function fileMatches(commit: CarriedCommit, file: string): boolean {
  if (commit.form === 'sha256') return toHex(sha256(utf8(file))) === commit.digest;
  return toHex(signatureDigest(readPgpSignature(commit.signature), utf8(file))) === commit.digest;
}

/** The salt line's problem, or null when the file's first line is the game's salt line for this player and round. */
export function saltProblem(file: string, prefix: string): string | null {
  const first = (file.split('\n')[0] ?? '').replace(/\r$/, '').trim();
  if (!first.startsWith(`${prefix} `)) return `its first line is not the salt line "${prefix} <secret>"`;
  if (!SECRET.test(first.slice(prefix.length + 1))) return 'the secret at the end of its salt line is not 22 to 128 base64 characters';
  return null;
}

/** The lines after the salt line. */
export function afterSalt(file: string): string {
  const at = file.indexOf('\n');
  return at < 0 ? '' : file.slice(at + 1);
}

/** A gpg-only player's contribution to the assignment's joint random number: the hash of its file, which holds its secret. */
export function fileRandom(file: string): string {
  return toHex(sha256(utf8(file)));
}
