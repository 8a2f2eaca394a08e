/**
 * The messages of a game played by mail (docs/spec/mail.md §3): each is one armored block (docs/SPEC.md §11)
 * whose payload is a typed header line followed by transcript lines. The armor's checksum covers the header,
 * so a message mangled in transit is refused whole; signatures and receipts inside say who wrote what.
 *
 *   invitation  {fairtable: "mail/v1", kind: "invitation", game}                       + the setup line
 *   submission  {fairtable: "mail/v1", kind: "submission", game, from}                 + one envelope line
 *   entries     {fairtable: "mail/v1", kind: "entries", game, first, receipts: [...]}  + lines first … first+k−1
 *   holding     {fairtable: "mail/v1", kind: "holding", game, to, receipt}             (no lines; for `to` only: sealed.md §7)
 *   press       {fairtable: "mail/v1", kind: "press", game, from}                      + talk messages (press.md §1), one a line (mail.md §13)
 */
import { armor, dearmor } from '@fairtable/core/armor.js';
import { fromUtf8, isHex, utf8 } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { HoldingReceipt } from '@fairtable/core/order/holding.js';
import type { Receipt } from '@fairtable/core/order/receipt.js';
import { boardSummary, legalDecisions, type MonopolyState } from '@fairtable/core/games/monopoly/index.js';
import { diplomacyText } from './diplomacy.js';
import { standingText } from './chance-text.js';

export const MAIL_VERSION = 'mail/v1';

export type MailMessage =
  | { readonly kind: 'invitation'; readonly game: string; readonly setupLine: string }
  | { readonly kind: 'submission'; readonly game: string; readonly from: string; readonly line: string }
  | { readonly kind: 'entries'; readonly game: string; readonly first: number; readonly lines: readonly string[]; readonly receipts: readonly Receipt[] }
  | { readonly kind: 'holding'; readonly game: string; readonly to: string; readonly receipt: HoldingReceipt }
  | { readonly kind: 'press'; readonly game: string; readonly from: string; readonly lines: readonly string[] };

function payloadOf(m: MailMessage): { header: Record<string, unknown>; lines: readonly string[] } {
  switch (m.kind) {
    case 'invitation':
      return { header: { fairtable: MAIL_VERSION, kind: m.kind, game: m.game }, lines: [m.setupLine] };
    case 'submission':
      return { header: { fairtable: MAIL_VERSION, kind: m.kind, game: m.game, from: m.from }, lines: [m.line] };
    case 'entries':
      return { header: { fairtable: MAIL_VERSION, kind: m.kind, game: m.game, first: m.first, receipts: m.receipts }, lines: m.lines };
    case 'holding':
      return { header: { fairtable: MAIL_VERSION, kind: m.kind, game: m.game, to: m.to, receipt: m.receipt }, lines: [] };
    case 'press':
      return { header: { fairtable: MAIL_VERSION, kind: m.kind, game: m.game, from: m.from }, lines: m.lines };
  }
}

/** The armored block alone. */
export function armorMessage(m: MailMessage): string {
  const { header, lines } = payloadOf(m);
  return armor(utf8([JSON.stringify(header), ...lines].join('\n') + '\n'));
}

/** What a person sees around the block: a line saying what it is and how to read it. */
export function describe(m: MailMessage): string {
  const game = m.game.slice(0, 16);
  switch (m.kind) {
    case 'invitation':
      return `fairtable: an invitation to game ${game}…`;
    case 'submission':
      return `fairtable: ${m.from}'s move in game ${game}…, for the recorder`;
    case 'entries':
      return `fairtable: game ${game}…, recorded lines ${m.first} to ${m.first + m.lines.length - 1}`;
    case 'holding':
      return `fairtable: FOR ${m.to} ONLY (do not send to the list): the recorder holds ${m.to}'s sealed move in game ${game}… until all are in`;
    case 'press':
      return `fairtable: press in game ${game}…, ${m.lines.length} message(s) sent by ${m.from} (private ones sealed to their readers)`;
  }
}

/**
 * A whole outbox file: a short plain preface, the board in words when the game has one, and the armored block;
 * `more` (a phase's press the recorder forwards with its entries) follows as blocks of their own.
 */
export function mailText(m: MailMessage, board = '', more: readonly MailMessage[] = []): string {
  const extra = more.map((x) => `\n${describe(x)}\n${armorMessage(x)}`).join('');
  return `${describe(m)}\nRead it with: fairtable mail read --dir YOUR-GAME-FOLDER THIS-FILE\n\n${board === '' ? '' : `${board}\n`}${armorMessage(m)}${extra}`;
}

/**
 * The board of a Monopoly game in plain text (docs/spec/mail.md §3.1), for a message's readable part: the
 * summary, then every player asked something now with its legal decisions, numbered. The text is only for
 * reading; what counts is the armored block. A Diplomacy game's text is `diplomacyText`'s; a game of dice or
 * Snakes & Ladders says each player's score or square (§3.2). Empty for other games. `referee` is asked for only
 * when the setup line names one of those, since a recorder's folder replays its log to make one.
 */
export function boardText(setupLine: string, referee: () => { readonly state: unknown }): string {
  let game: unknown;
  let protocol: unknown;
  try {
    const setup = (JSON.parse(setupLine) as { body?: { setup?: { game?: unknown; protocol?: unknown } } }).body?.setup;
    game = setup?.game;
    protocol = setup?.protocol;
  } catch {
    return '';
  }
  // Diplomacy: the position, the step and the orders offered (docs/spec/mail.md §11).
  if (protocol === 'diplomacy') return diplomacyText(referee().state);
  // Dice, Snakes & Ladders: each player's score or square (docs/spec/mail.md §3.2).
  if ((protocol === 'chain' || protocol === 'keyed-stream') && game !== 'monopoly') {
    const standing = standingText(referee().state);
    return standing.length === 0 ? '' : standing.join('\n') + '\n';
  }
  if (game !== 'monopoly') return '';
  const s = (referee().state as { game?: MonopolyState } | null)?.game;
  if (s === undefined || s === null || !Array.isArray(s.players)) return '';
  const lines = [boardSummary(s).trimEnd()];
  for (const p of s.players) {
    const legal = legalDecisions(s, p);
    if (legal.length === 0) continue;
    lines.push('', `${p}'s choices now (answer with: fairtable mail decide --dir YOUR-GAME-FOLDER 'JSON'):`);
    legal.forEach((l, i) => lines.push(`  ${i + 1}. ${l.label}: ${JSON.stringify(l.choice)}${l.form === undefined ? '' : ' (fill in)'}`));
  }
  return lines.join('\n') + '\n';
}

const bad = (message: string): FairtableError => new FairtableError('bad_message', message, { field: 'header' });

function parsePayload(text: string): MailMessage {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  let header: Record<string, unknown>;
  try {
    header = JSON.parse(lines[0] ?? '') as Record<string, unknown>;
  } catch {
    throw bad('an armored block that is not a fairtable mail message (its first line is not a JSON header)');
  }
  if (header === null || typeof header !== 'object' || header.fairtable !== MAIL_VERSION)
    throw bad(`an armored block that is not a fairtable mail message (header "fairtable" is not "${MAIL_VERSION}")`);
  if (!isHex(header.game, 32)) throw bad('header.game must be 64 hex digits');
  const game = header.game as string;
  const body = lines.slice(1);
  switch (header.kind) {
    case 'invitation':
      if (body.length !== 1) throw bad('an invitation carries exactly one line, the setup');
      return { kind: 'invitation', game, setupLine: body[0]! };
    case 'submission':
      if (body.length !== 1) throw bad('a submission carries exactly one envelope line');
      if (typeof header.from !== 'string') throw bad('header.from must be a player id');
      return { kind: 'submission', game, from: header.from, line: body[0]! };
    case 'entries': {
      const first = header.first;
      if (typeof first !== 'number' || !Number.isSafeInteger(first) || first < 0) throw bad('header.first must be a line number');
      if (!Array.isArray(header.receipts) || header.receipts.length !== body.length) throw bad('entries carry one receipt per line');
      return { kind: 'entries', game, first, lines: body, receipts: header.receipts as Receipt[] };
    }
    case 'holding':
      if (body.length !== 0) throw bad('a holding message carries no lines');
      if (typeof header.to !== 'string') throw bad('header.to must be a player id');
      if (header.receipt === null || typeof header.receipt !== 'object') throw bad('header.receipt must be a holding receipt');
      return { kind: 'holding', game, to: header.to, receipt: header.receipt as HoldingReceipt };
    case 'press':
      // Each line is a talk message, checked one by one by its readers (press.ts): one bad line refuses only itself.
      if (typeof header.from !== 'string') throw bad('header.from must be a participant id');
      return { kind: 'press', game, from: header.from, lines: body };
    default:
      throw bad(`unknown message kind ${JSON.stringify(header.kind)}`);
  }
}

/**
 * Every fairtable message in a text (a saved e-mail with headers, quoting, re-wrapping and other text around
 * it). Throws `bad_checksum` / `bad_armor` when a block was mangled, `bad_message` when a block is not ours,
 * and `bad_armor` when the text holds no block at all.
 */
export function readMail(text: string): MailMessage[] {
  const payloads = dearmor(text);
  if (payloads.length === 0) throw new FairtableError('bad_input', 'no fairtable message (no armored block) in this text');
  return payloads.map((p) => parsePayload(fromUtf8(p)));
}
