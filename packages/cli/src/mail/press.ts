/**
 * Press by mail (docs/spec/mail.md §13): the talk messages of core's `press` (docs/spec/press.md), written by a
 * player with `fairtable mail press`, mailed in a small `press` mail to the game's list, forwarded by the
 * recorder in its next mail, and read by every folder with core's `TalkReader`.
 *
 * Press is kept beside the game, never in it: `press.jsonl` holds every message text the folder has taken, in
 * the order it took them, and `press-state.json` what was shown to the player and (the recorder) forwarded.
 * Neither is part of the folder's snapshot, the seat never sees them, and nothing here can refuse a line of the
 * log or hold up a phase: a bad message is refused on its own, with the finding core's reader makes.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from '@fairtable/core/bytes.js';
import { FairtableError } from '@fairtable/core/errors.js';
import {
  pressRulesOf,
  talkId,
  talkText,
  TalkReader,
  writeTalk,
  type PressRules,
  type TalkFinding,
  type TalkRead,
  type TalkTo,
} from '@fairtable/core/press/index.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import type { PlayerEntry } from '@fairtable/core/setup.js';
import { writeAtomic } from './files.js';
import type { GameFolder } from './folder.js';
import type { MailMessage } from './message.js';

const PRESS_FILE = 'press.jsonl';
const STATE_FILE = 'press-state.json';

interface PressState {
  /** Messages of press.jsonl the player has been shown (`mail status`). */
  read: number;
  /** Recorder: messages of press.jsonl already considered for forwarding. */
  forwarded: number;
  /** The highest `seq` this folder's seat has written. */
  seq: number;
}

/** One message as this folder reads it. */
export interface PressItem {
  /** Its place in this folder's press.jsonl (0 first). */
  readonly index: number;
  readonly id: string;
  readonly from: string;
  /** `table`, `observers`, or the seats it is sealed to. */
  readonly to: TalkTo;
  readonly at: number;
  /** The text; null for a private message sealed to others. */
  readonly body: string | null;
  /** Bytes of the sealed box, for a private message. */
  readonly sealedBytes: number | null;
  readonly proof: 'signed' | 'deniable' | 'unverified';
  readonly mine: boolean;
  readonly unread: boolean;
}

export interface PressView {
  /** The game's press rules; null when its setup's `press` is not press rules (no talk). */
  readonly rules: PressRules | null;
  readonly items: readonly PressItem[];
  /** Messages refused, each with core's finding (the player named only where its own key stands on the fault). */
  readonly refused: readonly (TalkFinding & { readonly index: number })[];
  /** Messages from others this folder can read and has not been shown. */
  readonly unread: number;
  /** Diplomacy: each seat with its power, `ann (France)`, once assigned. */
  readonly names: Record<string, string>;
}

function players(folder: GameFolder): PlayerEntry[] {
  return readSetupLine(folder.setupLine).setup.players.map((p) => ({ id: p.id, key: p.key }));
}

export const pressRules = (folder: GameFolder): PressRules | null => pressRulesOf(readSetupLine(folder.setupLine).setup.params);

function loadTexts(dir: string): string[] {
  const file = join(dir, PRESS_FILE);
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => (JSON.parse(l) as { text: string }).text);
}

function loadState(dir: string): PressState {
  const file = join(dir, STATE_FILE);
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as PressState) : { read: 0, forwarded: 0, seq: 0 };
}

const saveState = (dir: string, s: PressState): void => writeAtomic(join(dir, STATE_FILE), JSON.stringify(s) + '\n');

/** Keeps the message texts not held yet (a copy read twice, or from the author and again from the recorder, is kept once). Returns how many were new. */
export function keepPress(dir: string, texts: readonly string[]): number {
  const held = loadTexts(dir);
  const known = new Set(held);
  const added: string[] = [];
  for (const t of texts) {
    // A line that is not even a string of reasonable size is refused by the reader like any other: keep it once.
    if (known.has(t)) continue;
    known.add(t);
    added.push(t);
  }
  if (added.length > 0) writeAtomic(join(dir, PRESS_FILE), [...held, ...added].map((text) => JSON.stringify({ text }) + '\n').join(''));
  return added.length;
}

/** Every message the folder holds, read in order by core's reader as this folder's seat (or, for a recorder who does not play, as an observer). */
export function readPress(folder: GameFolder): PressView {
  const rules = pressRules(folder);
  const state = loadState(folder.dir);
  const texts = loadTexts(folder.dir);
  const items: PressItem[] = [];
  const refused: (TalkFinding & { index: number })[] = [];
  const names = powerNames(folder);
  if (rules === null) return { rules, items, refused, unread: 0, names };
  const reader = new TalkReader({
    game: folder.config.game,
    players: players(folder),
    rules,
    ...(folder.seat === null ? {} : { me: { id: folder.config.me, secretKey: folder.secretKey } }),
  });
  texts.forEach((text, index) => {
    const r: TalkRead = reader.read(text);
    if (r.kind === 'refused') refused.push({ ...r.finding, index });
    if (r.kind !== 'shown') return;
    const t = r.talk;
    const canRead = t.body !== null;
    items.push({
      index,
      id: t.id,
      from: t.from,
      to: t.to,
      at: t.at,
      body: t.body,
      sealedBytes: t.message.sealed === undefined ? null : t.message.sealed.box.length / 2,
      proof: t.proof,
      mine: t.mine,
      unread: !t.mine && canRead && index >= state.read,
    });
  });
  return { rules, items, refused, unread: items.filter((i) => i.unread).length, names };
}

/** `mail status` showed everything: nothing is unread any more. */
export function markPressRead(dir: string): void {
  const s = loadState(dir);
  const n = loadTexts(dir).length;
  if (s.read !== n) saveState(dir, { ...s, read: n });
}

/**
 * The recorder passes on the press it took since it last did, in its next mail: the messages its own reader
 * shows (shape, game, author and recipients seated, the game's rules, and in a signed game the author's
 * signature). What it refuses is not forwarded, and is said in a note with the finding's code and whom it names.
 */
export function forwardPress(folder: GameFolder): void {
  if (!folder.isRecorder) return;
  const state = loadState(folder.dir);
  const texts = loadTexts(folder.dir);
  if (texts.length <= state.forwarded) return;
  const view = readPress(folder);
  const lines = view.items.filter((i) => i.index >= state.forwarded).map((i) => texts[i.index]!);
  for (const f of view.refused.filter((x) => x.index >= state.forwarded))
    folder.note(`press not forwarded: [${f.code}]${f.player === null ? '' : ` ${f.player}`}: ${f.message}`);
  if (lines.length > 0) folder.mailPress({ kind: 'press', game: folder.config.game, from: folder.config.me, lines });
  saveState(folder.dir, { ...state, forwarded: texts.length });
}

/** The press messages of some mail, kept in the folder; notes for the player about what is new and readable. */
export function takePress(folder: GameFolder, messages: readonly MailMessage[]): void {
  const texts = messages.flatMap((m) => (m.kind === 'press' && m.game === folder.config.game ? m.lines : []));
  if (texts.length === 0) return;
  const before = loadTexts(folder.dir).length;
  if (keepPress(folder.dir, texts) === 0) return;
  const view = readPress(folder);
  const fresh = view.items.filter((i) => i.index >= before && !i.mine);
  for (const i of fresh) folder.note(`press: ${pressLine(i, view.names)}`);
  for (const f of view.refused.filter((x) => x.index >= before))
    folder.note(`press refused: [${f.code}] ${f.player === null ? 'names nobody' : `names ${f.player}`}: ${f.message}`);
  if (view.unread > 0) folder.note(`press: ${view.unread} unread (mail status shows them)`);
}

/** Diplomacy: each seat's power once powers are assigned (`ann (France)`); the seat ids alone otherwise. */
export function powerNames(folder: GameFolder): Record<string, string> {
  const state = folder.view().state as { powers?: Record<string, string> } | null;
  const out: Record<string, string> = {};
  for (const [seat, power] of Object.entries(state?.powers ?? {})) out[seat] = `${seat} (${power.charAt(0).toUpperCase()}${power.slice(1)})`;
  return out;
}

/** One message in a line: `#3 2026-11-27T17:00:00.000Z ann (France) to ben (England), private, signed: text` (or `[sealed to …: N bytes]`). */
export function pressLine(i: PressItem, names: Record<string, string> = {}): string {
  const name = (id: string): string => names[id] ?? id;
  const to = i.to === 'table' ? 'all' : i.to === 'observers' ? 'observers' : i.to.map(name).join(', ');
  const how = i.proof === 'unverified' ? 'author not checked' : i.proof;
  const text = i.body ?? `[sealed to ${Array.isArray(i.to) ? i.to.map(name).join(', ') : to}: ${i.sealedBytes ?? 0} bytes]`;
  return `#${i.index} ${new Date(i.at).toISOString()} ${name(i.from)} to ${to}${Array.isArray(i.to) ? ', private' : ''}, ${how}${i.unread ? ' (new)' : ''}: ${text}`;
}

/**
 * `--to` in the players' words: `all` (or `table`), `observers`, or seats and powers, comma-separated
 * (`england,france`, `ben`). Powers are the game's own once assigned.
 */
export function recipients(folder: GameFolder, to: string): TalkTo {
  const words = to
    .split(',')
    .map((w) => w.trim().toLowerCase())
    .filter((w) => w.length > 0);
  if (words.length === 0) throw new FairtableError('bad_input', '--to: name all, observers, or the powers or seats to write to', { field: 'to' });
  if (words.length === 1 && (words[0] === 'all' || words[0] === 'table')) return 'table';
  if (words.length === 1 && words[0] === 'observers') return 'observers';
  const seats = players(folder).map((p) => p.id);
  const powers = (folder.view().state as { powers?: Record<string, string> } | null)?.powers ?? {};
  const ids = words.map((w) => {
    if (w === 'all' || w === 'table' || w === 'observers')
      throw new FairtableError('bad_input', `--to: ${w} stands alone (press to ${w} is public)`, { field: 'to' });
    const seat = seats.find((s) => s.toLowerCase() === w) ?? Object.keys(powers).find((s) => powers[s] === w);
    if (seat === undefined)
      throw new FairtableError('bad_input', `--to: "${w}" is no power or seat of this game (seats: ${seats.join(', ')})`, { field: 'to' });
    if (seat === folder.config.me) throw new FairtableError('bad_input', `--to: ${w} is you`, { field: 'to' });
    return seat;
  });
  return [...new Set(ids)].sort();
}

/**
 * `fairtable mail press`: a message from this folder's seat, under the game's press rules (refused with
 * `no_press` where they forbid it), signed or with MACs as the game's mode says and sealed when private; kept
 * in the folder and mailed (a player: a press mail of its own; a recorder who plays: with its next mail).
 */
export function writePress(folder: GameFolder, to: string, body: string, now: number): { id: string; to: TalkTo } {
  const rules = pressRules(folder);
  if (folder.seat === null)
    throw new FairtableError('bad_input', 'the recorder of this game does not play: it carries press and writes none', { field: 'dir' });
  if (rules === null || rules.rule === 'none') throw new FairtableError('no_press', 'this game has no press: nothing can be written', { field: 'to' });
  const target = recipients(folder, to);
  if (Array.isArray(target) && rules.rule !== 'full')
    throw new FairtableError('no_press', 'this game has public press only: write to all (or observers), never privately', { field: 'to' });
  const state = loadState(folder.dir);
  const own = readPress(folder).items.filter((i) => i.mine).length;
  // press.md §1: above every seq of our own, and at·1000 plus three random digits (two devices never collide).
  const r = randomBytes(2);
  const seq = Math.max(state.seq + 1, own + 1, now * 1000 + (((r[0]! << 8) | r[1]!) % 1000));
  const m = writeTalk(
    { game: folder.config.game, from: folder.config.me, to: target, seq, at: now, body },
    { mode: rules.mode, secretKey: folder.secretKey, players: players(folder), random: randomBytes },
  );
  const text = talkText(m);
  keepPress(folder.dir, [text]);
  saveState(folder.dir, { ...loadState(folder.dir), seq });
  if (!folder.isRecorder) folder.mailPress({ kind: 'press', game: folder.config.game, from: folder.config.me, lines: [text] });
  return { id: talkId(m), to: target };
}
