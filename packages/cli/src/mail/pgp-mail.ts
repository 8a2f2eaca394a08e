/**
 * OpenPGP around the mail of a game (docs/spec/mail.md §9): the blocks gpg and mail clients wrap
 * around a fairtable message (an encrypted `PGP MESSAGE`, a clearsigned `PGP SIGNED MESSAGE`), found in
 * a saved e-mail among headers, quoting and other text; and the check of the OpenPGP bindings a setup
 * carries (docs/spec/pgp.md §3.3) before a seat takes its seat. `@fairtable/pgp` (openpgp.js) is loaded
 * only when a text holds such a block or a setup carries bindings, so no other mail pays for it.
 */
import { FairtableError, type ErrorCode } from '@fairtable/core/errors.js';
import type { GameSetup } from '@fairtable/core/setup.js';

const lib = () => import('@fairtable/pgp');

/** A mail client's quoting (`> `, `> > `, `>>`) in front of a line. */
const QUOTE = /^(?:[ \t]*>[ \t]?)+/;

export interface PgpBlock {
  readonly kind: 'message' | 'signed';
  /** The block as gpg wrote it, unquoted, with its base64 re-wrapped. */
  readonly text: string;
}

/** The lines of a text with CRLF made LF and every line's quoting taken off. */
function unquoted(text: string): string[] {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((l) => l.replace(QUOTE, '').trimEnd());
}

/**
 * The OpenPGP blocks in a text: encrypted messages (`-----BEGIN PGP MESSAGE-----`) and clearsigned ones
 * (`-----BEGIN PGP SIGNED MESSAGE-----` up to the end of its `PGP SIGNATURE`). An encrypted block's body
 * is joined and cut again into 64-character lines, so a mail client that re-wrapped it does no harm.
 * A block that never ends is `bad_pgp_data`.
 */
export function pgpBlocks(text: string): PgpBlock[] {
  const lines = unquoted(text);
  const out: PgpBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '-----BEGIN PGP MESSAGE-----') {
      const end = lines.findIndex((l, j) => j > i && l.trim() === '-----END PGP MESSAGE-----');
      if (end < 0) throw new FairtableError('bad_pgp_data', 'an OpenPGP message that never ends (no "-----END PGP MESSAGE-----")', { field: 'mail' });
      out.push({ kind: 'message', text: rewrap(lines.slice(i + 1, end).map((l) => l.trim())) });
      i = end;
    } else if (line === '-----BEGIN PGP SIGNED MESSAGE-----') {
      const end = lines.findIndex((l, j) => j > i && l.trim() === '-----END PGP SIGNATURE-----');
      if (end < 0) throw new FairtableError('bad_pgp_data', 'a clearsigned message that never ends (no "-----END PGP SIGNATURE-----")', { field: 'mail' });
      out.push({ kind: 'signed', text: lines.slice(i, end + 1).join('\n') + '\n' });
      i = end;
    }
  }
  return out;
}

/** An armored message again from its inner lines: armor headers, a blank line, the base64 at 64 a line, the CRC. */
function rewrap(inner: readonly string[]): string {
  let at = 0;
  const headers: string[] = [];
  // Armor headers ("Version: …", "Comment: …") end at the first blank line; a client may have dropped it.
  while (at < inner.length && /^[A-Za-z][A-Za-z-]*: /.test(inner[at]!)) headers.push(inner[at++]!);
  const body = inner.slice(at).filter((l) => l.length > 0);
  const crc = body.length > 0 && /^=[A-Za-z0-9+/]{4}$/.test(body[body.length - 1]!) ? body.pop()! : null;
  const joined = body.join('');
  const rows: string[] = [];
  for (let k = 0; k < joined.length; k += 64) rows.push(joined.slice(k, k + 64));
  return ['-----BEGIN PGP MESSAGE-----', ...headers, '', ...rows, ...(crc === null ? [] : [crc]), '-----END PGP MESSAGE-----', ''].join('\n');
}

/** The text a clearsigned block signs: between the armor headers' blank line and the signature, dash-escaping undone (RFC 9580 §7.1). */
export function clearsignedText(block: string): string {
  const lines = block.split('\n');
  let at = 1;
  while (at < lines.length && lines[at] !== '') at++;
  const end = lines.indexOf('-----BEGIN PGP SIGNATURE-----', at);
  return (
    lines
      .slice(at + 1, end < 0 ? lines.length : end)
      .map((l) => (l.startsWith('- ') ? l.slice(2) : l))
      .join('\n') + '\n'
  );
}

export interface PgpReadOptions {
  /** The player's OpenPGP secret key (armored or binary), to open mail encrypted to it. */
  readonly secretKey?: Uint8Array;
  readonly passphrase?: string;
}

/**
 * The texts to read as fairtable mail in one received text: the text itself (its own fairtable blocks),
 * the plaintext of every encrypted block, and the content of every clearsigned one. The OpenPGP signature
 * of a clearsigned mail is not checked here: every envelope inside carries its author's own signature,
 * which is what the game and the auditor go by. Encrypted mail without `secretKey` is `pgp_cannot_decrypt`.
 */
export async function openPgpMail(text: string, options: PgpReadOptions = {}): Promise<string[]> {
  const blocks = pgpBlocks(text);
  if (blocks.length === 0) return [text];
  const out = [text];
  for (const b of blocks) {
    if (b.kind === 'signed') {
      out.push(...(await openPgpMail(clearsignedText(b.text), options)));
      continue;
    }
    if (options.secretKey === undefined)
      throw new FairtableError('pgp_cannot_decrypt', 'an OpenPGP-encrypted mail: read it with --pgp-key YOUR-SECRET-KEY.asc', { field: 'pgpKey' });
    const { decryptWith } = await lib();
    const opened = await decryptWith(options.secretKey, b.text, options.passphrase === undefined ? {} : { passphrase: options.passphrase });
    // What was encrypted may itself be a MIME part or a clearsigned text: read it the same way.
    out.push(...(await openPgpMail(new TextDecoder().decode(opened.data), options)));
  }
  return out;
}

/** The OpenPGP key a player plays under, for the check of its own binding (docs/spec/pgp.md §3.3, rule 6). */
export async function pgpFingerprint(key: Uint8Array, passphrase?: string): Promise<string> {
  const { readSecretKey, readPublicKey, fingerprintOf } = await lib();
  try {
    return fingerprintOf(await readSecretKey(key, passphrase));
  } catch (e) {
    if ((e as { code?: string }).code === 'pgp_locked_key') throw e;
    return fingerprintOf(await readPublicKey(key));
  }
}

/**
 * Checks the OpenPGP bindings `setup.params.pgp` carries (docs/spec/pgp.md §3.3), as a seat must before it
 * takes its seat; `me`: this seat's player and its OpenPGP fingerprint, when the player gave its key. The
 * first problem is thrown with its code, naming the player. Returns what the bindings say, in plain words.
 */
export async function checkBindings(setup: GameSetup, me?: { readonly player: string; readonly fingerprint: string }): Promise<string[]> {
  if (setup.params.pgp === undefined) return [];
  const { checkSetupBindings } = await lib();
  const report = await checkSetupBindings(setup, me === undefined ? {} : { me });
  const first = report.problems[0];
  if (first !== undefined)
    throw new FairtableError(first.code as ErrorCode, `${first.player === null ? 'the setup' : first.player}: ${first.message}`, { field: 'params.pgp' });
  return report.bindings.map(
    (b) => `${b.player}'s fairtable key is bound to OpenPGP key ${b.fingerprint} (${b.userIds.join(', ') || 'no user id'}): check that it is the key you know`,
  );
}

/**
 * Encrypts outbox files in place to every other participant's OpenPGP key (docs/spec/mail.md §9), the keys
 * being those the setup's bindings carry: so a game encrypts only when every other participant (the
 * players and the recorder) is bound, else `bad_binding` names who is not. With `signWith`, the sender's
 * OpenPGP key signs inside. Each file keeps a plain first line saying what it is.
 */
export async function encryptOutbox(
  files: readonly string[],
  setup: GameSetup,
  me: string,
  options: { readonly signWith?: Uint8Array; readonly passphrase?: string } = {},
): Promise<void> {
  const bound = Array.isArray(setup.params.pgp) ? (setup.params.pgp as { player?: unknown; publicKey?: unknown }[]) : [];
  const recorder = (setup.params.recorder as { id?: unknown } | undefined)?.id;
  const others = [...new Set([...setup.players.map((p) => p.id), ...(typeof recorder === 'string' ? [recorder] : [])])].filter((p) => p !== me);
  const keys = others.map((p) => {
    const b = bound.find((x) => x.player === p);
    if (b === undefined || typeof b.publicKey !== 'string')
      throw new FairtableError(
        'bad_binding',
        `${p} has no OpenPGP binding in this game's setup: mail to ${p} cannot be encrypted${files.length > 0 ? ` (left as they are: ${files.join(', ')})` : ''}`,
        { field: 'encrypt' },
      );
    return b.publicKey;
  });
  if (files.length === 0) return;
  const { encryptTo } = await lib();
  const { readFileSync, writeFileSync } = await import('node:fs');
  for (const f of files) {
    const text = readFileSync(f, 'utf8');
    const armored = await encryptTo(keys, new TextEncoder().encode(text), {
      ...(options.signWith === undefined ? {} : { signWith: options.signWith }),
      ...(options.passphrase === undefined ? {} : { passphrase: options.passphrase }),
    });
    writeFileSync(f, `${text.split('\n')[0]!} (encrypted with OpenPGP to ${others.join(', ')})\n\n${armored}`);
  }
}
