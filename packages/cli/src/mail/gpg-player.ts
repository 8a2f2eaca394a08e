/**
 * Diplomacy by mail with a player who has only gpg and a mail client (docs/spec/diplomacy.md §11,
 * docs/spec/mail.md §12). Three jobs, all on a game folder:
 *
 * - reading: in a received e-mail (MIME parts decoded, quoting undone), a detached armored signature or a
 *   clearsigned message (the player's `.asc`, attached or pasted) and an orders file (a part or a body whose line starts with the
 *   salt tag) are that player's mail, kept in `gpg-mail.jsonl`;
 * - carrying: a player's folder puts each kept item into the log as `pgp-commit` or `pgp-reveal` when the
 *   game is at that step and the machine's own checks pass, once per round; the first copy any folder
 *   carries counts, so the player is served by whichever folder is honest;
 * - writing: the recorder's folder mails the player a plain letter when its orders are due and when its
 *   file is due, with the game's part of the salt line and the commands to run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sha256 } from '@fairtable/core/hash.js';
import { toHex, utf8 } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { Referee } from '@fairtable/core/referee.js';
import type { DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { committers, phaseLabel } from '@fairtable/diplomacy/protocol/index.js';
import { readPgpClearsigned } from '@fairtable/core/pgp/verify.js';
import {
  checkCarriedCommit,
  commitSignature,
  fileMatches,
  gpgKey,
  NOTATION,
  notationValue,
  SALT_TAG,
  saltPrefix,
  saltProblem,
  statedDigest,
} from '@fairtable/diplomacy/protocol/gpg.js';
import { writeAtomic } from './files.js';

/** The first line of every letter to a gpg-only player: no fairtable block, and every folder knows to skip it. */
export const LETTER_MARK = 'fairtable: a letter to a player who plays with gpg alone';

/** A piece of a gpg-only player's mail, as a folder keeps it. */
export interface GpgItem {
  readonly kind: 'signature' | 'file';
  /** The signature's armored text (or the whole clearsigned message), or the file's candidate texts (as received, then normalised forms). */
  readonly texts: readonly string[];
  /** Rounds in which this folder carried it. */
  readonly carried: readonly number[];
}

// ---------------------------------------------------------------- reading mail

interface Part {
  readonly headers: Map<string, string>;
  readonly body: string;
}

/** Splits a header block from its body; a text without mail headers is one body. */
function splitHeaders(text: string): Part {
  const gap = /\r?\n\r?\n/.exec(text);
  const head = gap === null ? '' : text.slice(0, gap.index);
  if (gap === null || !/^[A-Za-z][A-Za-z0-9-]*:/.test(head)) return { headers: new Map(), body: text };
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const at = line.indexOf(':');
    if (at > 0) headers.set(line.slice(0, at).trim().toLowerCase(), line.slice(at + 1).trim());
  }
  // The body keeps its own line ends: a binary signature is over exact bytes.
  return { headers, body: text.slice(gap.index + gap[0].length) };
}

function decodeBody(part: Part): string {
  const encoding = (part.headers.get('content-transfer-encoding') ?? '').toLowerCase();
  if (encoding === 'base64') return new TextDecoder().decode(Buffer.from(part.body.replace(/\s+/g, ''), 'base64'));
  if (encoding === 'quoted-printable') {
    const bytes = Buffer.from(
      part.body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16))),
      'latin1',
    );
    return new TextDecoder().decode(bytes);
  }
  return part.body;
}

/** The leaves of a MIME message, decoded; a plain text is its own one leaf. */
export function mimeLeaves(text: string, depth = 0): string[] {
  const part = splitHeaders(text);
  const type = part.headers.get('content-type') ?? '';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || boundary === undefined || depth > 4) return [decodeBody(part)];
  const out: string[] = [];
  const pieces = part.body.split(new RegExp(`\\r?\\n?--${boundary.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:--)?[ \\t]*\\r?\\n`));
  for (const piece of pieces.slice(1)) if (piece.trim() !== '') out.push(...mimeLeaves(piece, depth + 1));
  return out;
}

const unquote = (line: string): string => line.replace(/^(?:[ \t]*>[ \t]?)+/, '');

/** Whether a clearsigned message states a digest: only such a one can be a gpg-only player's commitment. */
function statesDigest(message: string): boolean {
  try {
    return statedDigest(readPgpClearsigned(message).text) !== null;
  } catch (e) {
    if (e instanceof FairtableError) return false;
    throw e;
  }
}

/**
 * Signatures in a text: detached armored `PGP SIGNATURE` blocks, and clearsigned messages whose text states a
 * digest (an Ed25519 player's commitment); other clearsigned mail (a fairtable block signed with OpenPGP,
 * spec/mail.md §9) is not a gpg-only player's.
 */
function signaturesIn(text: string): string[] {
  const lines = text.split(/\r?\n/).map(unquote);
  const out: string[] = [];
  let clearsigned: number | null = null;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i]!.trim();
    if (l === '-----BEGIN PGP SIGNED MESSAGE-----') clearsigned = i;
    if (l !== '-----BEGIN PGP SIGNATURE-----') continue;
    const end = lines.findIndex((x, j) => j > i && x.trim() === '-----END PGP SIGNATURE-----');
    if (end < 0) break;
    const block = lines.slice(clearsigned ?? i, end + 1).join('\n') + '\n';
    if (clearsigned === null || statesDigest(block)) out.push(block);
    clearsigned = null;
    i = end;
  }
  return out;
}

/** An orders file in a text: from the line that starts with the salt tag to the end (an inline body ends at `-- `). */
function fileIn(text: string): string[] {
  const crlf = text.includes('\r\n');
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith(`${SALT_TAG} `));
  if (start < 0) return [];
  const whole = lines.slice(start).join('\n');
  const cut = lines.slice(start);
  const sig = cut.findIndex((l) => l.replace(/\r$/, '') === '-- ');
  const body = (sig < 0 ? cut : cut.slice(0, sig)).join('\n');
  const trimmed = body.replace(/(?:\r?\n)+$/, '') + (crlf ? '\r\n' : '\n');
  const candidates = [whole, body, trimmed, whole.replace(/\r\n/g, '\n'), trimmed.replace(/\r\n/g, '\n')];
  return [...new Set(candidates)];
}

/** A gpg-only player's signatures and files in one received text; a letter to such a player has none. */
export function gpgMailIn(text: string): { signatures: string[]; files: string[][] } {
  if (text.includes(LETTER_MARK)) return { signatures: [], files: [] };
  const signatures: string[] = [];
  const files: string[][] = [];
  for (const leaf of mimeLeaves(text)) {
    signatures.push(...signaturesIn(leaf));
    const f = fileIn(leaf);
    if (f.length > 0) files.push(f);
  }
  return { signatures, files };
}

// ---------------------------------------------------------------- keeping and carrying

const ITEMS = 'gpg-mail.jsonl';
const LETTERS = 'gpg-letters.json';

export function loadItems(dir: string): GpgItem[] {
  const path = join(dir, ITEMS);
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as GpgItem);
}

function saveItems(dir: string, items: readonly GpgItem[]): void {
  writeAtomic(join(dir, ITEMS), items.map((i) => JSON.stringify(i)).join('\n') + (items.length > 0 ? '\n' : ''));
}

/** Adds what was read to the folder's items (an item already kept is not kept twice). */
export function keepGpgMail(dir: string, found: { signatures: string[]; files: string[][] }): number {
  const items = loadItems(dir);
  const key = (texts: readonly string[]): string => toHex(sha256(utf8(texts[0]!)));
  const have = new Set(items.map((i) => key(i.texts)));
  let added = 0;
  const keep = (kind: GpgItem['kind'], texts: string[]): void => {
    if (have.has(key(texts))) return;
    items.push({ kind, texts, carried: [] });
    have.add(key(texts));
    added++;
  };
  for (const s of found.signatures) {
    try {
      commitSignature(s);
    } catch (e) {
      if (e instanceof FairtableError) continue;
      throw e;
    }
    keep('signature', [s]);
  }
  for (const f of found.files) keep('file', f);
  if (added > 0) saveItems(dir, items);
  return added;
}

/** The gpg-only player a signature names, by its key in the setup. */
function signerOf(s: DiplomacyState, signature: string): string | null {
  let sig;
  try {
    sig = commitSignature(signature);
  } catch {
    return null;
  }
  for (const [player, armored] of Object.entries(s.gpgKeys)) {
    const key = gpgKey(armored);
    if (sig.issuerFingerprint === key.fingerprint || sig.issuerKeyId === key.keyId) return player;
  }
  return null;
}

/**
 * What this folder's seat should carry now (one body at most: a seat signs one envelope at a time), and the
 * item it is; the machine's own checks decide, so an honest folder never carries what the machine refuses.
 */
export function nextCarry(s: DiplomacyState, items: readonly GpgItem[]): { index: number; body: { [key: string]: JsonValue } } | null {
  if (s.phase !== 'commit' && s.phase !== 'reveal') return null;
  const label = s.stage === 'assign' ? 'powers' : phaseLabel(s.position);
  for (const [index, item] of items.entries()) {
    if (item.carried.includes(s.round)) continue;
    if (item.kind === 'signature' && s.phase === 'commit') {
      const player = signerOf(s, item.texts[0]!);
      if (player === null || s.commits[player] !== undefined || !s.active.includes(player) || s.excused[player] === true) continue;
      const binding = notationValue(s.gameId, s.round, label, player);
      if (!checkCarriedCommit(s.gpgKeys[player]!, item.texts[0]!, s.phaseStart, s.pgpSkewMs, s.pgpUsed[player] ?? [], binding).ok) continue;
      return { index, body: { type: 'pgp-commit', round: s.round, player, signature: item.texts[0]! } };
    }
    if (item.kind === 'file' && s.phase === 'reveal') {
      for (const player of Object.keys(s.pgpCommits)) {
        if (s.reveals[player] !== undefined || s.claims[player] === undefined || s.excused[player] === true) continue;
        const prefix = saltPrefix(s.gameId, s.round, label, player);
        const mine = item.texts.filter((t) => saltProblem(t, prefix) === null);
        if (mine.length === 0) continue;
        // The form that fits the signature if one does (mail may have changed line ends); else the file as received.
        const file = mine.find((t) => fileMatches(s.pgpCommits[player]!, t)) ?? mine[0]!;
        return { index, body: { type: 'pgp-reveal', round: s.round, player, file } };
      }
    }
  }
  return null;
}

/** Carries the next item when the seat is idle; returns a note, or null when nothing was carried. */
export function carryGpgMail(
  dir: string,
  seat: { readonly idle: boolean; readonly referee: Referee; sendUnasked(body: { type: string }): void } | null,
): string | null {
  if (seat === null || !seat.idle) return null;
  const s = seat.referee.state as DiplomacyState;
  if (s.gpgKeys === undefined || Object.keys(s.gpgKeys).length === 0) return null;
  const items = loadItems(dir);
  const next = nextCarry(s, items);
  if (next === null) return null;
  const item = items[next.index]!;
  items[next.index] = { ...item, carried: [...item.carried, s.round] };
  saveItems(dir, items);
  seat.sendUnasked(next.body as { type: string });
  return `carried ${String(next.body.player)}'s ${next.body.type === 'pgp-commit' ? 'signed commitment (.asc)' : 'orders file'} for round ${s.round} into the log`;
}

// ---------------------------------------------------------------- letters

/** The letters the recorder owes gpg-only players now: one per player, round and step. */
export function lettersDue(s: DiplomacyState, written: readonly string[]): { key: string; player: string; step: 'commit' | 'reveal' }[] {
  if (s.gpgKeys === undefined || (s.phase !== 'commit' && s.phase !== 'reveal')) return [];
  const out: { key: string; player: string; step: 'commit' | 'reveal' }[] = [];
  for (const player of Object.keys(s.gpgKeys)) {
    if (!s.active.includes(player) || s.excused[player] === true) continue;
    const due =
      s.phase === 'commit'
        ? s.commits[player] === undefined && committers(s).includes(player)
        : s.claims[player] !== undefined && s.reveals[player] === undefined && s.pgpCommits[player] !== undefined;
    const key = `${s.round}/${s.phase}/${player}`;
    if (due && !written.includes(key)) out.push({ key, player, step: s.phase });
  }
  return out;
}

/** The letter itself: plain text, no fairtable block; what the player does next, step by step. */
export function letterText(s: DiplomacyState, player: string, step: 'commit' | 'reveal', board: string): string {
  const label = s.stage === 'assign' ? 'powers' : phaseLabel(s.position);
  const prefix = saltPrefix(s.gameId, s.round, label, player);
  const deadline = new Date(s.phaseStart + s.timeoutMs).toISOString();
  const what = s.stage === 'assign' ? 'your preference list' : `your orders for ${s.powers[player] ?? '?'} (${label})`;
  const head = [LETTER_MARK, `To: ${player}`, `Game ${s.gameId}, round ${s.round}: ${what}.`, ''];
  // An RSA key signs the file itself (its signature gives the digest back at once); an Ed25519 key signs the
  // file's SHA-256 digest, clearsigned, which anyone can check before the file is known (§11.2).
  const rsa = gpgKey(s.gpgKeys[player]!).algorithm === 'rsa';
  if (step === 'commit')
    return [
      ...head,
      `Your ${s.stage === 'assign' ? 'list' : 'orders'} are due by ${deadline} (UTC).`,
      '',
      '1. Make a secret for this round:   gpg --armor --gen-random 1 24',
      '2. Write a text file, say orders.txt. Its FIRST line is this line, a space, and the secret from step 1:',
      '',
      `   ${prefix}`,
      '',
      s.stage === 'assign'
        ? "   The second line is your preference list in seed 003's notation without your number (AE(GI)R, %REG), or nothing."
        : '   Then one order a line: A Par-Bur, F Bre-MAO, A Mar S A Par-Bur, F Nth C A Lon-Nwy, Build A Par, Remove F Kie, Waive.\n   A unit without an order holds. Lines starting with # are comments.',
      ...(rsa
        ? ['3. Sign it:   gpg --detach-sign --armor orders.txt      (this makes orders.txt.asc)']
        : [
            '3. Sign its SHA-256 digest (your key is Ed25519, so you sign the digest, not the file), one command:',
            '',
            `      gpg --print-md SHA256 orders.txt | gpg --clearsign -N ${NOTATION}=${notationValue(s.gameId, s.round, label, player)} --output orders.txt.asc`,
            '',
            '   (this makes orders.txt.asc; "sha256sum orders.txt | gpg --clearsign ..." with the same -N and --output does the same.',
            '   The -N part names this game and round inside your signature: copy it exactly.)',
          ]),
      '4. Mail orders.txt.asc to every player (attached, or pasted in the mail). Do NOT mail orders.txt yet, and do not change it.',
      '',
      'When every commitment is in you will get a second letter asking for orders.txt itself.',
      'Make the signature after this letter arrived: a signature dated before the round began is not taken.',
      '',
      board,
    ].join('\n');
  return [
    ...head,
    `Every commitment of round ${s.round} is in. Mail orders.txt now, by ${deadline} (UTC):`,
    '',
    rsa
      ? '1. Check it is the file you signed:   gpg --verify orders.txt.asc orders.txt   must say "Good signature".'
      : '1. Check it is the file whose digest you signed:   gpg --verify orders.txt.asc   must say "Good signature",\n   and   gpg --print-md SHA256 orders.txt   must print the digest written in orders.txt.asc.',
    '2. Mail orders.txt to every player, attached, unchanged.',
    '',
    'A file that does not match your signature counts as orders that do not match (your units hold) if no',
    'matching one reaches the game by the deadline.',
    '',
    board,
  ].join('\n');
}

export function loadLetters(dir: string): string[] {
  const path = join(dir, LETTERS);
  return existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as string[]) : [];
}

export function saveLetters(dir: string, written: readonly string[]): void {
  writeAtomic(join(dir, LETTERS), JSON.stringify(written) + '\n');
}
