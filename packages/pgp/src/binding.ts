/**
 * Bindings between a fairtable key and an OpenPGP identity (docs/spec/pgp.md
 * §3). A binding is a short canonical text naming a player id, their Ed25519
 * public key and the OpenPGP key that vouches for them, signed by that OpenPGP
 * key as a detached signature. Players who already trust each other's OpenPGP
 * keys then need no new trust to know who holds which fairtable key.
 *
 * The statement is versioned and has exactly one spelling, so a binding made
 * by hand (a file written by `fairtable pgp statement`, signed with
 * `gpg --detach-sign --armor`) and one made by `fairtable pgp bind` are the
 * same bytes.
 */
import * as openpgp from 'openpgp';
import { FairtableError } from '@fairtable/core/errors.js';
import { isHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import { fingerprintOf, normalFingerprint, readPublicKeys, readSecretKey, type PgpInput } from './keys.js';
import { failureCode, signDetached, verifyDetached } from './signature.js';

export const BINDING_TAG = 'fairtable/pgp-binding/v1';

export interface BindingStatement {
  readonly player: string;
  /** The fairtable Ed25519 public key, 64 lowercase hex digits. */
  readonly key: string;
  /** The OpenPGP primary key's fingerprint, uppercase hex (40 digits for v4 keys, 64 for v6). */
  readonly pgp: string;
  /** The setup nonce of the one game this binding is for; absent, the binding holds in any game. */
  readonly nonce?: string;
}

const FINGERPRINT = /^(?:[0-9A-F]{40}|[0-9A-F]{64})$/;

function statementError(s: BindingStatement): string | null {
  if (!isPlayerId(s.player)) return 'player must be a player id (1 to 64 of A-Z a-z 0-9 _ . : @ -)';
  if (!isHex(s.key, 32)) return 'key must be 64 lowercase hex digits (a fairtable Ed25519 public key)';
  if (!FINGERPRINT.test(s.pgp)) return 'pgp must be an OpenPGP fingerprint: 40 or 64 uppercase hex digits, no spaces';
  if (s.nonce !== undefined && !isHex(s.nonce, 32)) return 'nonce must be 64 lowercase hex digits (a setup nonce)';
  return null;
}

/** The one text of a statement: the tag, then `name: value` lines in this order, each ending in LF. */
export function formatBinding(statement: BindingStatement): string {
  const problem = statementError(statement);
  if (problem !== null) throw new FairtableError('bad_binding', problem, { field: 'statement' });
  const lines = [BINDING_TAG, `player: ${statement.player}`, `key: ${statement.key}`, `pgp: ${statement.pgp}`];
  if (statement.nonce !== undefined) lines.push(`nonce: ${statement.nonce}`);
  return lines.join('\n') + '\n';
}

/**
 * Reads a statement, accepting only its one canonical text (no CR, no extra
 * spaces or lines, lowercase key, uppercase fingerprint). Throws `bad_binding`.
 */
export function parseBinding(text: string | Uint8Array): BindingStatement {
  const s = typeof text === 'string' ? text : new TextDecoder('utf-8', { fatal: false }).decode(text);
  const lines = s.split('\n');
  const fail = (why: string): never => {
    throw new FairtableError('bad_binding', `not a ${BINDING_TAG} statement: ${why}`, { field: 'statement' });
  };
  if (lines[0] !== BINDING_TAG) fail(`the first line must be exactly "${BINDING_TAG}"`);
  const fields = new Map<string, string>();
  const order = ['player', 'key', 'pgp', 'nonce'];
  let next = 0;
  for (const line of lines.slice(1, -1)) {
    const m = /^([a-z]+): (\S+)$/.exec(line);
    if (m === null) fail(`a line is not "name: value": ${JSON.stringify(line)}`);
    const [, name, value] = m!;
    const at = order.indexOf(name!);
    if (at < next) fail(`"${name}" is unknown, repeated or out of order`);
    next = at + 1;
    fields.set(name!, value!);
  }
  const player = fields.get('player');
  const key = fields.get('key');
  const pgp = fields.get('pgp');
  const nonce = fields.get('nonce');
  if (player === undefined || key === undefined || pgp === undefined) fail('player, key and pgp are required');
  const statement: BindingStatement = { player: player!, key: key!, pgp: pgp!, ...(nonce !== undefined ? { nonce } : {}) };
  const problem = statementError(statement);
  if (problem !== null) fail(problem);
  // Round-trips only if the text was canonical (a final LF, nothing after it).
  if (formatBinding(statement) !== s) fail('it is not in canonical form (each line ends in one LF, none after the last)');
  return statement;
}

export interface Binding {
  readonly statement: string;
  readonly signature: string;
}

/** Writes and signs a binding with the OpenPGP secret key; the statement names that key's fingerprint. */
export async function makeBinding(
  secretKey: PgpInput,
  fields: { readonly player: string; readonly key: string; readonly nonce?: string },
  passphrase?: string,
): Promise<Binding> {
  const signer = await readSecretKey(secretKey, passphrase);
  const statement = formatBinding({ ...fields, pgp: fingerprintOf(signer) });
  return { statement, signature: await signDetached(secretKey, statement, passphrase) };
}

export type BindingVerdict =
  | { readonly valid: true; readonly statement: BindingStatement; readonly fingerprint: string; readonly userIds: readonly string[] }
  | { readonly valid: false; readonly code: 'bad_binding' | 'bad_pgp_signature' | 'pgp_wrong_signer' | 'pgp_key_unusable'; readonly message: string };

/**
 * Checks a binding: the statement is canonical, and it is signed by the
 * OpenPGP key it names, found among `publicKeys` (one key or a keyring).
 * Unreadable keys or signature files throw, as for verifyDetached.
 */
export async function checkBinding(statement: string | Uint8Array, signature: PgpInput, publicKeys: PgpInput): Promise<BindingVerdict> {
  let parsed: BindingStatement;
  try {
    parsed = parseBinding(statement);
  } catch (error) {
    if (error instanceof FairtableError) return { valid: false, code: 'bad_binding', message: error.message };
    throw error;
  }
  const named = (await readPublicKeys(publicKeys)).find((key) => fingerprintOf(key) === parsed.pgp);
  if (named === undefined) {
    return { valid: false, code: 'pgp_wrong_signer', message: `the statement names OpenPGP key ${parsed.pgp}, which is not among the keys given` };
  }
  const verdict = await verifyDetached([named], typeof statement === 'string' ? new TextEncoder().encode(statement) : statement, signature);
  if (!verdict.valid) return { valid: false, code: verdict.code, message: verdict.message };
  return { valid: true, statement: parsed, fingerprint: verdict.fingerprint, userIds: verdict.userIds };
}

/**
 * Checks a binding sent as one cleartext-signed text (`gpg --clearsign`). The
 * signed text is the statement without its final line break (the cleartext
 * framework never signs the break before the signature), so the statement is
 * that text plus one LF; everything else is as for `checkBinding`.
 */
export async function checkClearsignedBinding(clearsigned: string | Uint8Array, publicKeys: PgpInput): Promise<BindingVerdict> {
  const text = typeof clearsigned === 'string' ? clearsigned : new TextDecoder().decode(clearsigned);
  let message: openpgp.CleartextMessage;
  try {
    message = await openpgp.readCleartextMessage({ cleartextMessage: text });
  } catch (error) {
    throw new FairtableError('bad_pgp_data', `not a cleartext-signed OpenPGP message: ${error instanceof Error ? error.message : String(error)}`, {
      field: 'signature',
      cause: error,
    });
  }
  if (message.getSigningKeyIDs().length !== 1)
    throw new FairtableError('bad_pgp_data', 'a cleartext binding must carry exactly one signature', { field: 'signature' });
  let parsed: BindingStatement;
  try {
    parsed = parseBinding(message.getText() + '\n');
  } catch (error) {
    if (error instanceof FairtableError) return { valid: false, code: 'bad_binding', message: error.message };
    throw error;
  }
  const named = (await readPublicKeys(publicKeys)).find((key) => fingerprintOf(key) === parsed.pgp);
  if (named === undefined) {
    return { valid: false, code: 'pgp_wrong_signer', message: `the statement names OpenPGP key ${parsed.pgp}, which is not among the keys given` };
  }
  let result: Awaited<ReturnType<typeof openpgp.verify>>;
  try {
    result = await openpgp.verify({ message, verificationKeys: [named] });
  } catch (error) {
    throw new FairtableError('bad_pgp_data', `not a readable OpenPGP signature: ${error instanceof Error ? error.message : String(error)}`, {
      field: 'signature',
      cause: error,
    });
  }
  try {
    await result.signatures[0]!.verified;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return { valid: false, code: failureCode(why), message: why };
  }
  return { valid: true, statement: parsed, fingerprint: fingerprintOf(named), userIds: named.getUserIDs() };
}

/** One binding as a setup carries it, in `setup.params.pgp`. */
export interface SetupBinding {
  readonly player: string;
  /** The player's OpenPGP public key, armored. */
  readonly publicKey: string;
  /** The statement text, exactly as signed. */
  readonly binding: string;
  /** The armored detached signature over the statement. */
  readonly signature: string;
}

export interface SeatBindingReport {
  /** True when every binding the setup carries holds (a setup without bindings is ok). */
  readonly ok: boolean;
  readonly bindings: readonly {
    readonly player: string;
    readonly fingerprint: string;
    readonly userIds: readonly string[];
    /** Whether the fingerprint is one the seat already trusts; null when the seat gave no list. */
    readonly trusted: boolean | null;
  }[];
  readonly problems: readonly { readonly player: string | null; readonly code: string; readonly message: string }[];
}

/**
 * What every seat checks before it takes its seat in a game whose setup
 * carries bindings (docs/spec/pgp.md §3.3). `me` is the seat's own player and
 * the OpenPGP fingerprint it knows as its own; `trusted` the fingerprints its
 * user already trusts (their keyring). Returns findings; it never throws on a
 * bad binding, since the setup is someone else's input to judge.
 */
export async function checkSetupBindings(
  setup: Pick<GameSetup, 'players' | 'params' | 'nonce'>,
  options: { readonly me?: { readonly player: string; readonly fingerprint: string }; readonly trusted?: readonly string[] } = {},
): Promise<SeatBindingReport> {
  const bindings: SeatBindingReport['bindings'][number][] = [];
  const problems: SeatBindingReport['problems'][number][] = [];
  const carried = setup.params.pgp;
  if (carried === undefined) return { ok: true, bindings, problems };
  if (!Array.isArray(carried)) {
    problems.push({ player: null, code: 'bad_binding', message: 'setup.params.pgp must be a list of {player, publicKey, binding, signature}' });
    return { ok: false, bindings, problems };
  }
  const trusted = options.trusted === undefined ? null : new Set(options.trusted.map(normalFingerprint));
  const seen = new Set<string>();
  for (const [i, item] of carried.entries()) {
    const entry = item as Partial<Record<keyof SetupBinding, unknown>> | null;
    if (
      entry === null ||
      typeof entry !== 'object' ||
      Array.isArray(entry) ||
      Object.keys(entry).some((k) => !['player', 'publicKey', 'binding', 'signature'].includes(k)) ||
      typeof entry.player !== 'string' ||
      typeof entry.publicKey !== 'string' ||
      typeof entry.binding !== 'string' ||
      typeof entry.signature !== 'string'
    ) {
      problems.push({ player: null, code: 'bad_binding', message: `setup.params.pgp[${i}] must be {player, publicKey, binding, signature}, all strings` });
      continue;
    }
    const player = entry.player;
    const seat = setup.players.find((p) => p.id === player);
    if (seat === undefined) {
      problems.push({ player, code: 'bad_binding', message: `setup.params.pgp[${i}] binds ${player}, who is not a player of the game` });
      continue;
    }
    if (seen.has(player)) {
      problems.push({ player, code: 'bad_binding', message: `${player} has more than one binding` });
      continue;
    }
    seen.add(player);
    let verdict: BindingVerdict;
    try {
      verdict = await checkBinding(entry.binding, entry.signature, entry.publicKey);
    } catch (error) {
      const e = error as { code?: string; message?: string };
      problems.push({ player, code: e.code ?? 'bad_binding', message: `${player}'s binding cannot be read: ${e.message ?? String(error)}` });
      continue;
    }
    if (!verdict.valid) {
      problems.push({ player, code: verdict.code, message: `${player}'s binding does not hold: ${verdict.message}` });
      continue;
    }
    const s = verdict.statement;
    if (s.player !== player || s.key !== seat.key) {
      problems.push({
        player,
        code: 'bad_binding',
        message: `${player}'s binding names ${s.player} with key ${s.key}, not this game's ${player} with key ${seat.key}`,
      });
      continue;
    }
    if (s.nonce !== undefined && s.nonce !== setup.nonce) {
      problems.push({ player, code: 'bad_binding', message: `${player}'s binding is for another game (nonce ${s.nonce})` });
      continue;
    }
    if (options.me !== undefined && options.me.player === player && normalFingerprint(options.me.fingerprint) !== verdict.fingerprint) {
      problems.push({ player, code: 'pgp_wrong_signer', message: `your own seat ${player} is bound to OpenPGP key ${verdict.fingerprint}, not yours` });
      continue;
    }
    // One person, two seats: in a game of several players that is the collusion a binding can expose.
    const twin = bindings.find((b) => b.fingerprint === verdict.fingerprint);
    if (twin !== undefined) {
      problems.push({ player, code: 'bad_binding', message: `${player} and ${twin.player} are bound to the same OpenPGP key ${verdict.fingerprint}` });
      continue;
    }
    bindings.push({ player, fingerprint: verdict.fingerprint, userIds: verdict.userIds, trusted: trusted === null ? null : trusted.has(verdict.fingerprint) });
  }
  return { ok: problems.length === 0, bindings, problems };
}
