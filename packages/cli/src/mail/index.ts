/**
 * Play by e-mail (docs/spec/mail.md): the `fairtable mail` commands as functions, so the command line, the
 * tests and the benchmark run the same code. Each takes a game folder and the clock; each returns what it
 * wrote to the outbox and plain words saying what happens next.
 */
import { parseDice } from '@fairtable/core/games/dice-expr.js';
import { join, resolve } from 'node:path';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { FairtableError, type ErrorCode } from '@fairtable/core/errors.js';
import { BUILTIN_GAMES } from '@fairtable/core/games/index.js';
import { DEFAULT_SKIP_LIMIT } from '@fairtable/core/protocols/keyed-stream.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { parseDuration, formatDuration } from './duration.js';
import { GameFolder, isGameFolder, type FolderStatus, type HouseSecret, type Report } from './folder.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import { readMail, type MailMessage } from './message.js';
import { standingText, turnsText } from './chance-text.js';
import { phaseResults, resultsText, type PhaseResults } from './diplomacy-results.js';
import { ordersAnswer, prefsAnswer, writeOrdersTemplate } from './diplomacy.js';
import { carryGpgMail, gpgMailIn, keepGpgMail, LETTER_MARK, letterText, lettersDue, loadLetters, saveLetters } from './gpg-player.js';
import { readPgpKey } from '@fairtable/core/pgp/verify.js';
import { readGpgPlayers } from '@fairtable/diplomacy/protocol/gpg.js';
import type { DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { writeAtomic } from './files.js';
import { forwardPress, markPressRead, powerNames, readPress, takePress, writePress, type PressView } from './press.js';
import { mayRevise, readyAnswer } from '@fairtable/diplomacy/protocol/revise.js';
import { pressRulesSchema } from '@fairtable/core/press/index.js';
import { checkBindings, openPgpMail, pgpFingerprint } from './pgp-mail.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { readKeyFile, readPublicKeyFile } from '../key-files.js';
import { standing } from '../verdict-words.js';

export { parseDuration, formatDuration } from './duration.js';
export { readMail, mailText, armorMessage, type MailMessage } from './message.js';
export type { FolderStatus, Report, Problem } from './folder.js';
export { keepFolders, useSnapshots } from './folder.js';
export { pgpBlocks, openPgpMail, checkBindings } from './pgp-mail.js';
export { diplomacyText } from './diplomacy.js';
export { pressLine, readPress, type PressItem, type PressView } from './press.js';
export { DiplomacyFollower, phaseResults, progressText, resultsText, type PhaseResults } from './diplomacy-results.js';

/** Protocols a game by mail can run (the names `fairtable simulate` takes, Signidice aside: see the spec). */
export const MAIL_PROTOCOLS = ['beacon', 'chain', 'keyed-stream', 'dice', 'snakes', 'monopoly', 'rochambeau', 'signidice', 'diplomacy'] as const;

export const DEFAULT_TIMEOUT = '3d';

export interface MailNewOptions {
  readonly protocol: string;
  readonly dir: string;
  readonly key: string;
  readonly players: readonly string[];
  readonly turns?: number;
  readonly timeout?: string;
  /** Who records: the creator by default; else a participant who does not play (an id among `players`, or a public key file). */
  readonly recorder?: string;
  /** chain, keyed-stream: the game played. */
  readonly game?: string;
  /** The dice game: the dice expression each turn rolls (docs/spec/dice.md), e.g. `3d6+2`. */
  readonly roll?: string;
  /** Message types the recorder collects sealed (docs/spec/sealed.md): held until every player's is in. */
  readonly sealed?: readonly string[];
  /** OpenPGP bindings for the setup (docs/spec/pgp.md §3.2): `{player, publicKey, binding, signature}` each, as `fairtable pgp bind` prints. */
  readonly bindings?: readonly JsonValue[];
  /** Diplomacy's parameters (docs/spec/diplomacy.md §10.1), as `fairtable play diplomacy` takes them. */
  readonly diplomacy?: DiplomacyOptions;
  /** The game's press rules (docs/spec/press.md §2), `params.press`; without it, table chat, signed. */
  readonly press?: { readonly rule: string; readonly mode: string };
  readonly clock?: () => number;
}

export interface DiplomacyOptions {
  readonly years?: number;
  readonly assign?: string;
  readonly typos?: string;
  readonly escrow?: string;
  readonly threshold?: number;
  /** Orders may be sent as drafts a later answer replaces (docs/spec/diplomacy.md §10.14); commitments are then not sealed. */
  readonly revisable?: boolean;
  /** Players with only gpg and a mail client (docs/spec/diplomacy.md §11): each id and armored OpenPGP public key. */
  readonly gpgPlayers?: readonly { readonly id: string; readonly publicKey: string }[];
}

export interface MailResult extends Report {
  readonly status: FolderStatus;
  /** A Diplomacy game in plain text, as the folder's messages carry it (docs/spec/mail.md §11); empty for other games. */
  readonly board: string;
  /** Diplomacy: the last phase adjudicated, every order with its outcome (docs/spec/mail.md §11.1); null before the first, and for other games. */
  readonly results: PhaseResults | null;
  /** Diplomacy: this player's orders for the phase as they stand: a `draft` a later answer replaces, `final`, or null (none yet, or not asked). */
  readonly orders: 'draft' | 'final' | null;
  /** The game's press as this folder reads it (docs/spec/mail.md §13): `mail status` only; null elsewhere. */
  readonly press: PressView | null;
}

const realClock = (): number => Date.now();

export const loadKey = (path: string): { name: string; keys: KeyPair } => readKeyFile(path);
const loadPublicKey = (path: string): { id: string; key: string } => readPublicKeyFile(path);

function paramsFor(
  protocol: string,
  turns: number | undefined,
  game: string | undefined,
  diplomacy: DiplomacyOptions | undefined,
  roll?: string,
): { protocol: string; game: string | null; params: Record<string, JsonValue> } {
  if (!(MAIL_PROTOCOLS as readonly string[]).includes(protocol))
    throw new FairtableError('unknown_protocol', `"${protocol}": choose one of ${MAIL_PROTOCOLS.join(', ')}`, { field: 'protocol' });
  const rollable = protocol === 'dice' || ((protocol === 'chain' || protocol === 'keyed-stream') && (game ?? 'dice') === 'dice');
  if (roll !== undefined && !rollable) throw new FairtableError('bad_input', '--roll is for the dice game', { field: 'roll' });
  if (diplomacy !== undefined && protocol !== 'diplomacy') {
    const given = Object.keys(diplomacy).find((k) => diplomacy[k as keyof DiplomacyOptions] !== undefined);
    if (given !== undefined) throw new FairtableError('bad_input', `--${given} is for diplomacy`, { field: given });
  }
  if (protocol === 'diplomacy') return { protocol, game: null, params: diplomacyParams(turns, game, diplomacy ?? {}) };
  if (protocol === 'signidice') {
    if (game !== undefined && game !== 'roulette' && game !== 'dice')
      throw new FairtableError('bad_input', '--game for signidice is the wheel: roulette or dice', { field: 'game' });
    return { protocol, game: null, params: { rounds: turns ?? 1, wheel: game ?? 'roulette' } };
  }
  if (game !== undefined && protocol !== 'chain' && protocol !== 'keyed-stream')
    throw new FairtableError('bad_input', '--game is for chain and keyed-stream (and the wheel of signidice)', { field: 'game' });
  if (game !== undefined && !BUILTIN_GAMES.has(game)) throw new FairtableError('unknown_game', `unknown game "${game}"`, { field: 'game' });
  const params: Record<string, JsonValue> = {};
  if (protocol === 'beacon') {
    if (turns !== undefined) params.rounds = turns;
    return { protocol, game: null, params };
  }
  if (protocol === 'rochambeau') return { protocol, game: null, params: { N: '3' } };
  const g = protocol === 'dice' || protocol === 'snakes' || protocol === 'monopoly' ? protocol : (game ?? 'dice');
  if (turns !== undefined) params[g === 'snakes' ? 'maxRounds' : 'rounds'] = turns;
  if (roll !== undefined) {
    if (g !== 'dice') throw new FairtableError('bad_input', '--roll is for the dice game', { field: 'roll' });
    params.roll = parseDice(roll).text;
  }
  if (protocol === 'keyed-stream') params.skipLimit = DEFAULT_SKIP_LIMIT;
  return { protocol: protocol === 'keyed-stream' ? 'keyed-stream' : 'chain', game: g, params };
}

/** Diplomacy's setup parameters, checked as `fairtable play diplomacy` checks them (docs/spec/mail.md §11). */
function diplomacyParams(turns: number | undefined, game: string | undefined, d: DiplomacyOptions): Record<string, JsonValue> {
  const bad = (field: string, message: string): never => {
    throw new FairtableError('bad_input', message, { field });
  };
  if (turns !== undefined) bad('turns', 'diplomacy counts game years: give --years, not --turns');
  if (game !== undefined) bad('game', '--game is for chain and keyed-stream');
  const assign = d.assign ?? 'weighted';
  if (!['weighted', 'serial', 'fixed'].includes(assign)) bad('assign', '--assign must be weighted, serial or fixed');
  const typos = d.typos ?? 'ignore-unit-letter';
  if (!['ignore-unit-letter', 'strict'].includes(typos)) bad('typos', '--typos must be ignore-unit-letter or strict');
  // Escrow on by default (docs/SPEC.md §7.4), where every player runs fairtable: a gpg-only player can hold no share.
  const escrow = d.escrow ?? ((d.gpgPlayers ?? []).length > 0 ? 'none' : 'threshold');
  if (!['none', 'threshold', 'layers'].includes(escrow)) bad('escrow', '--escrow must be none, threshold or layers');
  if (d.threshold !== undefined && escrow !== 'threshold') bad('threshold', '--threshold needs --escrow threshold');
  if (d.revisable !== undefined && typeof d.revisable !== 'boolean') bad('revisable', '--revisable is on or off');
  // People play by mail until a solo or an agreed ending (docs/spec/diplomacy.md §10.12); --years sets a last year.
  const years = d.years;
  if (years !== undefined && (!Number.isSafeInteger(years) || years < 1 || years > 200))
    throw new FairtableError('out_of_range', '--years must be an integer from 1 to 200', { field: 'years' });
  const gpgPlayers = (d.gpgPlayers ?? []).map((g) => {
    let fingerprint: string;
    try {
      fingerprint = readPgpKey(g.publicKey).fingerprint;
    } catch (e) {
      if (e instanceof FairtableError) throw new FairtableError(e.code, `--gpg-player ${g.id}: ${e.message}`, { field: 'gpg-player' });
      throw e;
    }
    return { id: g.id, publicKey: g.publicKey, fingerprint };
  });
  // The machine's own check of the keys (RSA, the fingerprint), before any folder is made.
  readGpgPlayers(gpgPlayers, []);
  return {
    ...(years === undefined ? {} : { years }),
    assign,
    typos,
    escrow,
    ...(d.threshold === undefined ? {} : { threshold: d.threshold }),
    ...(d.revisable === true ? { revisable: true } : {}),
    ...(gpgPlayers.length === 0 ? {} : { gpgPlayers }),
  };
}

interface NewGame {
  readonly setup: GameSetup;
  readonly keyPath: string;
  readonly me: { name: string; keys: KeyPair };
  readonly myId: string;
  readonly recorder: { id: string; key: string };
  readonly players: readonly { id: string; key: string }[];
  readonly timeoutMs: number;
  /** Signidice: the house's unique-signature secret, kept in its folder. */
  readonly house?: HouseSecret;
}

/**
 * `fairtable mail new`: signs the setup, opens the creator's folder and writes the invitation. A setup with
 * OpenPGP bindings goes through `mailNewChecked`, which checks them first as every seat will.
 */
export function mailNew(o: MailNewOptions): MailResult {
  const game = newGame(o);
  if (game.setup.params.pgp !== undefined)
    throw new FairtableError('bad_binding', 'a setup with OpenPGP bindings is created with mailNewChecked, which checks them', { field: 'bindings' });
  return createGame(o, game, []);
}

/** `mail new` with OpenPGP bindings: they are checked (docs/spec/pgp.md §3.3) before anything is signed. */
export async function mailNewChecked(o: MailNewOptions, pgp: { readonly fingerprint?: string } = {}): Promise<MailResult> {
  const game = newGame(o);
  const notes = await checkBindings(game.setup, pgp.fingerprint === undefined ? undefined : { player: game.myId, fingerprint: pgp.fingerprint });
  return createGame(o, game, notes);
}

function newGame(o: MailNewOptions): NewGame {
  const clock = o.clock ?? realClock;
  if (isGameFolder(o.dir)) throw new FairtableError('bad_input', `${o.dir} already holds a game`, { field: 'dir' });
  const keyPath = resolve(o.key);
  const me = loadKey(keyPath);
  const entries = o.players.map(loadPublicKey);
  const myKey = toHex(me.keys.publicKey);
  if (!entries.some((p) => p.key === myKey)) entries.unshift({ id: me.name, key: myKey });
  let recorder = entries.find((p) => p.key === myKey)!;
  let players = entries;
  if (o.recorder !== undefined) {
    const named = entries.find((p) => p.id === o.recorder) ?? (o.recorder.endsWith('.json') ? loadPublicKey(o.recorder) : undefined);
    if (named === undefined)
      throw new FairtableError('bad_input', `--recorder ${o.recorder}: name one of --players (who then does not play) or a public key file`, {
        field: 'recorder',
      });
    if (named.key === myKey)
      throw new FairtableError('bad_input', '--recorder: the creator records by default; a named recorder is a participant who does not play', {
        field: 'recorder',
      });
    recorder = named;
    players = entries.filter((p) => p.key !== named.key);
  }
  if (players.length < 2) throw new FairtableError('out_of_range', 'a game by mail needs at least two players', { field: 'players' });
  const timeoutMs = parseDuration(o.timeout ?? DEFAULT_TIMEOUT);
  const shape = paramsFor(o.protocol, o.turns, o.game, o.diplomacy, o.roll);
  // Diplomacy's commitments are collected sealed unless told otherwise: the recorder is seed 003's third party
  // that collects the hashes and publishes them when all are in (docs/spec/mail.md §11).
  // A revisable game's drafts are replaced before every commitment is in, which a sealed set cannot do
  // (docs/spec/diplomacy.md §10.14): its commitments go into the log as they come.
  const revisable = o.diplomacy?.revisable === true;
  const sealed = (o.sealed ?? (o.protocol === 'diplomacy' && !revisable ? ['commit'] : [])).filter((t) => t !== 'none');
  if (revisable && sealed.includes('commit'))
    throw new FairtableError('bad_input', '--revisable cannot be used with --sealed commit: a sealed set holds one commitment per player until all are in', {
      field: 'sealed',
    });
  const press = o.press === undefined ? undefined : pressRulesSchema.safeParse(o.press);
  if (press !== undefined && !press.success)
    throw new FairtableError('bad_input', '--press must be full, public or none, and --press-mode signed or deniable', { field: 'press' });
  let house: HouseSecret | undefined;
  if (o.protocol === 'signidice') {
    // The creator is the house (docs/spec/mail.md §10): its seat is named "house", and the contract's
    // unique-signature key is made here, for this game only.
    if (players.some((p) => p.id === HOUSE && p.key !== myKey))
      throw new FairtableError('bad_input', `a player may not be named "${HOUSE}": the creator of a Signidice game is the house`, { field: 'players' });
    players = players.map((p) => (p.key === myKey ? { id: HOUSE, key: p.key } : p));
    if (recorder.key === myKey) recorder = { id: HOUSE, key: myKey };
    house = { scheme: 'ecvrf-ell2', secret: toHex(randomBytes(32)) };
    const h = ecvrfHouse(house.scheme, fromHex(house.secret));
    shape.params.houseKey = h.key as unknown as JsonValue;
    shape.params.maxPlayers = players.length - 1;
  }
  const setup: GameSetup = {
    protocol: shape.protocol,
    game: shape.game,
    params: {
      ...shape.params,
      timeoutMs,
      recorder: { id: recorder.id, key: recorder.key },
      ...(sealed.length === 0 ? {} : { sealed: { types: sealed } }),
      ...(press === undefined ? {} : { press: { rule: press.data!.rule, mode: press.data!.mode } }),
      ...(o.bindings === undefined || o.bindings.length === 0 ? {} : { pgp: [...o.bindings] }),
    },
    players: players.map((p) => ({ id: p.id, key: p.key })),
    nonce: toHex(randomBytes(32)),
    created: clock(),
  };
  return { setup, keyPath, me, myId: players.find((p) => p.key === myKey)!.id, recorder, players, timeoutMs, ...(house === undefined ? {} : { house }) };
}

function createGame(o: MailNewOptions, g: NewGame, notes: readonly string[]): MailResult {
  const clock = o.clock ?? realClock;
  const { setup, keyPath, me, recorder, players, timeoutMs } = g;
  const setupLine = envelopeLine(createSetupEnvelope(setup, g.myId, me.keys));
  const folder = GameFolder.create(o.dir, setupLine, keyPath, me, clock, g.house);
  for (const n of notes) folder.note(n);
  for (const n of gpgPlayerNotes(setup)) folder.note(n);
  folder.invite();
  folder.note(
    `game ${folder.config.game.slice(0, 16)}… (${folder.config.protocol}) created: players ${players.map((p) => p.id).join(', ')}; recorder ${recorder.id}; ` +
      `deadlines ${formatDuration(timeoutMs)}`,
  );
  if (setup.protocol === 'diplomacy' && recorder.key === setup.players.find((p) => p.id === g.myId)?.key)
    folder.note(
      'you record this game and play in it: your folder sees who has committed before you commit (never what); a recorder who does not play (--recorder ID) hides that from everyone',
    );
  return finish(folder);
}

/**
 * `fairtable mail read`: takes in received e-mails (texts). The first message read into an empty folder must be
 * an invitation, and `keyPath` says whose seat the folder is. A text that cannot be read (a checksum that does
 * not match, a block that is not ours) is refused whole and reported; the others are taken in.
 */
export function mailRead(
  dir: string,
  texts: readonly { name: string; text: string }[],
  keyPath?: string,
  clock: () => number = realClock,
  checked: { readonly bindings?: readonly string[] } = {},
): MailResult & { refused: string[] } {
  const messages: MailMessage[] = [];
  const refused: string[] = [];
  const gpgMail: ReturnType<typeof gpgMailIn>[] = [];
  for (const t of texts) {
    // A gpg-only player's mail (docs/spec/mail.md §12) has no fairtable block; a letter to that player neither.
    const gpg = gpgMailIn(t.text);
    const gpgOnly = gpg.signatures.length > 0 || gpg.files.length > 0 || t.text.includes(LETTER_MARK);
    if (gpg.signatures.length > 0 || gpg.files.length > 0) gpgMail.push(gpg);
    try {
      messages.push(...readMail(t.text));
    } catch (e) {
      if (gpgOnly) continue;
      const err = e as { code?: string; message?: string };
      refused.push(`${t.name}: [${err.code ?? 'bad_input'}] ${err.message ?? String(e)}`);
    }
  }
  let folder: GameFolder;
  if (isGameFolder(dir)) folder = GameFolder.open(dir, loadKey, clock);
  else {
    const invitation = messages.find((m) => m.kind === 'invitation');
    if (invitation === undefined || invitation.kind !== 'invitation')
      throw new FairtableError(
        'bad_input',
        `${dir} holds no game yet: the first message read into it must be an invitation${refused.length ? ` (refused: ${refused.join('; ')})` : ''}`,
        {
          field: 'dir',
        },
      );
    if (keyPath === undefined)
      throw new FairtableError('bad_input', '--key: say which key is yours when reading an invitation into a new folder', { field: 'key' });
    const path = resolve(keyPath);
    const { setup } = readSetupLine(invitation.setupLine);
    if (setup.params.pgp !== undefined && checked.bindings === undefined)
      throw new FairtableError(
        'bad_binding',
        'this invitation carries OpenPGP bindings: read it with mailReadChecked (fairtable mail read), which checks them',
        {
          field: 'params.pgp',
        },
      );
    folder = GameFolder.create(dir, invitation.setupLine, path, loadKey(path), clock);
    for (const n of checked.bindings ?? []) folder.note(n);
    for (const n of gpgPlayerNotes(setup)) folder.note(n);
    folder.note(`joined game ${folder.config.game.slice(0, 16)}… (${folder.config.protocol}) as ${folder.config.me} (${folder.config.role})`);
  }
  // Invitations first, then what the recorder takes (submissions), then the ordered lines.
  const rank = { invitation: 0, submission: 1, entries: 2, holding: 3, press: 4 } as const;
  const seen = folder.log.length;
  for (const m of [...messages].sort((a, b) => rank[a.kind] - rank[b.kind])) folder.take(m);
  // Press beside the game (docs/spec/mail.md §13): kept and read on its own, so nothing in it touches the log.
  try {
    takePress(folder, messages);
  } catch (e) {
    folder.note(`press not read: ${(e as Error).message}`);
  }
  if (folder.config.protocol === 'diplomacy')
    for (const g of gpgMail) {
      const added = keepGpgMail(folder.dir, g);
      if (added > 0) folder.note(`kept ${added} piece(s) of a gpg-only player's mail, to carry into the log at its step`);
    }
  folder.tick();
  for (const r of refused) folder.note(`refused ${r}`);
  return { ...finish(folder, seen), refused };
}

/** A fairtable block of the text's own (quoted or not), not one dash-escaped inside a clearsigned message. */
const OWN_BLOCK = /^(?:[ \t]*>[ \t]?)*[ \t]*-----BEGIN FAIRTABLE MESSAGE-----[ \t]*\r?$/m;

/**
 * `fairtable mail read` as the command line runs it: OpenPGP-encrypted and clearsigned mail is opened first
 * (`pgp.secretKey`, docs/spec/mail.md §9), and an invitation that opens a folder has its OpenPGP bindings
 * checked (docs/spec/pgp.md §3.3) before the seat takes its seat: a bad one is refused, naming the player.
 */
export async function mailReadChecked(
  dir: string,
  texts: readonly { name: string; text: string }[],
  keyPath?: string,
  clock: () => number = realClock,
  pgp: { readonly secretKey?: Uint8Array; readonly passphrase?: string } = {},
): Promise<MailResult & { refused: string[] }> {
  const opened: { name: string; text: string }[] = [];
  const refused: string[] = [];
  let firstCode: string | null = null;
  for (const t of texts) {
    try {
      const parts = await openPgpMail(t.text, pgp);
      // The text around OpenPGP blocks is read only when it holds a fairtable block of its own.
      parts.forEach((text, i) => {
        if (i === 0 && parts.length > 1 && !OWN_BLOCK.test(text)) return;
        opened.push({ name: i === 0 ? t.name : `${t.name} (OpenPGP part ${i})`, text });
      });
    } catch (e) {
      const err = e as { code?: string; message?: string };
      firstCode ??= err.code ?? 'bad_input';
      refused.push(`${t.name}: [${err.code ?? 'bad_input'}] ${err.message ?? String(e)}`);
    }
  }
  let bindings: string[] | undefined;
  if (!isGameFolder(dir)) {
    const invitation = opened
      .flatMap((t) => {
        try {
          return readMail(t.text);
        } catch {
          return [];
        }
      })
      .find((m) => m.kind === 'invitation');
    if (invitation !== undefined && invitation.kind === 'invitation' && keyPath !== undefined) {
      const { setup } = readSetupLine(invitation.setupLine);
      const mine = toHex(loadKey(resolve(keyPath)).keys.publicKey);
      const seat = setup.players.find((p) => p.key === mine);
      const me =
        seat !== undefined && pgp.secretKey !== undefined ? { player: seat.id, fingerprint: await pgpFingerprint(pgp.secretKey, pgp.passphrase) } : undefined;
      bindings = await checkBindings(setup, me);
    } else if (invitation === undefined && firstCode !== null)
      // Nothing to open the folder with, because the mail could not be opened: say why, with its code.
      throw new FairtableError(firstCode as ErrorCode, `${dir} holds no game yet, and the mail read could not be opened: ${refused.join('; ')}`, {
        field: 'dir',
      });
  }
  const r = mailRead(dir, opened, keyPath, clock, bindings === undefined ? {} : { bindings });
  for (const x of refused) r.notes.unshift(`refused ${x}`);
  return { ...r, refused: [...refused, ...r.refused] };
}

/** `fairtable mail decide`: answers the decision the game asks of this folder's player. */
export function mailDecide(dir: string, choice: JsonValue, clock: () => number = realClock): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  folder.decide(choice);
  folder.tick();
  return finish(folder);
}

/**
 * `fairtable mail decide --orders FILE` (Diplomacy, docs/spec/mail.md §11): the orders file read against the
 * phase's position (a coded error names the line at fault, and nothing is sent), then answered as the
 * decision; notes say what was read differently from what was written, or left to the defaults.
 */
export function mailOrders(dir: string, text: string, clock: () => number = realClock, o: { readonly draft?: boolean } = {}): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  const referee = folder.seat?.referee;
  const { choice, notes } = ordersAnswer(referee?.state ?? null, folder.seat?.decision() ?? null, text);
  if (o.draft === true) {
    const s = referee?.state as DiplomacyState | undefined;
    if (s?.revisable !== true)
      throw new FairtableError('illegal_choice', 'this game takes no drafts (it was made without --revisable): every orders file sent is final', {
        field: 'draft',
      });
  }
  folder.decide(o.draft === true ? { ...(choice as Record<string, JsonValue>), ready: false } : choice);
  if (o.draft === true) folder.note('sent as a draft: decide again to replace it, or mail ready to make it final (at the deadline it is final anyway)');
  for (const n of notes) folder.note(n);
  folder.tick();
  return finish(folder);
}

/**
 * `fairtable mail ready` (Diplomacy with `revisable`, docs/spec/diplomacy.md §10.14): this player's draft is
 * final. The seat sends `{type: "ready"}` naming the draft's commitment, and nothing is committed anew.
 */
export function mailReady(dir: string, clock: () => number = realClock): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  const s = folder.seat?.referee.state as DiplomacyState | undefined;
  if (s === undefined || !mayRevise(s))
    throw new FairtableError(
      'illegal_choice',
      s?.revisable === true ? 'you have no draft in this phase to make final' : 'this game takes no drafts: every orders file sent is final',
      { field: 'ready' },
    );
  folder.decide(readyAnswer(s)!);
  folder.note('your draft is final: it counts as your orders for this phase');
  folder.tick();
  return finish(folder);
}

/** `fairtable mail press --to LIST TEXT` (docs/spec/mail.md §13): press written, kept, and mailed. */
export function mailPress(dir: string, to: string, body: string, clock: () => number = realClock): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  const r = writePress(folder, to, body, clock());
  const names = powerNames(folder);
  const whom = r.to === 'table' ? 'everyone' : r.to === 'observers' ? 'observers (public)' : r.to.map((id) => names[id] ?? id).join(', ');
  folder.note(
    `press written to ${whom}${Array.isArray(r.to) ? ', sealed to their keys' : ''}; ${folder.isRecorder ? 'it goes out with your next mail' : 'mail it with the outbox'}`,
  );
  folder.tick();
  return finish(folder);
}

/** `fairtable mail decide --prefs LIST` (Diplomacy): this player's preference list in seed 003's notation. */
export function mailPrefs(dir: string, list: string, clock: () => number = realClock): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  folder.decide(prefsAnswer(folder.seat?.referee.state ?? null, folder.seat?.decision() ?? null, list));
  folder.tick();
  return finish(folder);
}

/** `fairtable mail status`: also lets the seat claim a deadline that has passed (the seat's tick on the real clock). */
export function mailStatus(dir: string, clock: () => number = realClock): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  folder.tick();
  const r = finish(folder);
  // Every message shown: none is unread after it (the view keeps which were new).
  const press = readPress(folder);
  markPressRead(folder.dir);
  return { ...r, press, notes: [...chanceNotes(folder), ...r.notes] };
}

/**
 * A game of dice or Snakes & Ladders in words for `mail status` (docs/spec/mail.md §3.2): where it stands,
 * then every turn rolled so far; nothing for other games.
 */
function chanceNotes(folder: GameFolder): string[] {
  const standing = standingText(folder.view().state);
  if (standing.length === 0) return [];
  const turns = turnsText(folder.log);
  return [...standing, ...(turns.length === 0 ? ['No turn played yet.'] : ['Turns so far:', ...turns.map((t) => `  ${t}`)])];
}

/** `fairtable mail transcript`: the transcript as this folder holds it, for `fairtable audit`. */
export function mailTranscript(dir: string, out: string, clock: () => number = realClock): number {
  const folder = GameFolder.open(dir, loadKey, clock);
  writeAtomic(out, folder.log.join('\n') + '\n');
  return folder.log.length;
}

/**
 * The folder written back and what to tell the player. `seen`: the log's length before the mail just read; a
 * Diplomacy phase adjudicated by a line after it has its results told (docs/spec/mail.md §11.1).
 */
function finish(folder: GameFolder, seen?: number): MailResult {
  try {
    forwardPress(folder);
  } catch (e) {
    folder.note(`press not forwarded: ${(e as Error).message}`);
  }
  let report = folder.save();
  if (folder.config.protocol === 'diplomacy' && gpgMailDue(folder)) report = folder.save();
  const status = folder.status();
  const template = writeOrdersTemplate(folder.dir, folder.seat?.referee.state ?? null, status.decision);
  const extra =
    template === null ? [] : [`your orders are due: fill in ${join(folder.dir, template)} (it lists the orders offered), then mail decide --orders it`];
  const phases = folder.config.protocol === 'diplomacy' ? phaseResults(folder.log) : [];
  const told = seen === undefined ? [] : phases.filter((p) => p.line >= seen).flatMap(resultsText);
  return {
    ...report,
    notes: [...told, ...report.notes, ...plainNext(status, report), ...extra],
    status,
    board: folder.config.protocol === 'diplomacy' ? folder.board() : '',
    results: phases[phases.length - 1] ?? null,
    orders: folder.config.protocol === 'diplomacy' ? ordersStanding(folder.seat?.referee.state as DiplomacyState | undefined) : null,
    press: null,
  };
}

/** This player's orders in the current phase: a draft a later answer replaces, final, or none sent. */
function ordersStanding(s: DiplomacyState | undefined): 'draft' | 'final' | null {
  if (s === undefined || s.me === null || s.stage !== 'play' || s.phase !== 'commit' || s.mine === null || s.mine.round !== s.round) return null;
  return s.mine.draft === true ? 'draft' : 'final';
}

/** `; scores: alice 13, bob 15`, or nothing when the game's summary has no such table. */
const standingOf = (summary: unknown): string => {
  const text = standing(summary);
  return text === null ? '' : `; ${text}`;
};

/** What happens next, in plain words. */
export function plainNext(s: FolderStatus, report: Report): string[] {
  const out: string[] = [];
  if (report.written.length > 0)
    out.push(`send to every other participant (the game's mailing list): ${report.written.join(', ')}; then delete them from the outbox or move them away`);
  if (s.done && s.outcome !== null) {
    const o = s.outcome;
    out.push(
      `the game is over: winners ${o.winners.join(', ') || '(none)'}${o.forfeits.length ? `; forfeited: ${o.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}` : ''}${standingOf(o.summary)}`,
    );
    return out;
  }
  out.push(`next: ${s.next.what}`);
  if (s.next.deadline !== null) {
    const when = new Date(s.next.deadline).toISOString();
    const claim = s.next.claimFrom === null ? '' : `; a deadline claim can be posted from ${new Date(s.next.claimFrom).toISOString()}`;
    out.push(`deadline of this phase: ${when}${claim}`);
  }
  return out;
}

/**
 * A gpg-only player's part of a Diplomacy folder (docs/spec/mail.md §12): a player's folder carries the mail
 * it keeps into the log when the game is at its step; the recorder's folder writes the letters due. True
 * when something was written, so the folder is saved again.
 */
function gpgMailDue(folder: GameFolder): boolean {
  const s = folder.view().state as DiplomacyState;
  if (s.gpgKeys === undefined || Object.keys(s.gpgKeys).length === 0) return false;
  let wrote = false;
  const carried = carryGpgMail(folder.dir, folder.seat);
  if (carried !== null) {
    folder.note(carried);
    wrote = true;
  }
  if (folder.isRecorder) {
    const written = loadLetters(folder.dir);
    const due = lettersDue(folder.view().state as DiplomacyState, written);
    for (const d of due) {
      folder.letter(d.player, letterText(folder.view().state as DiplomacyState, d.player, d.step, folder.board()));
      written.push(d.key);
      folder.note(`wrote a letter to ${d.player} (gpg only): ${d.step === 'commit' ? 'orders due, with the salt line' : 'the orders file is due'}`);
    }
    if (due.length > 0) {
      saveLetters(folder.dir, written);
      wrote = true;
    }
  }
  return wrote;
}

/** The gpg-only players a setup names, with the fingerprints every player compares with what those players told them. */
function gpgPlayerNotes(setup: GameSetup): string[] {
  const list = setup.params.gpgPlayers;
  if (!Array.isArray(list)) return [];
  return list.map((g) => {
    const e = g as { id?: unknown; fingerprint?: unknown };
    return `${String(e.id)} plays with gpg alone, OpenPGP key ${String(e.fingerprint)}: compare it with the fingerprint ${String(e.id)} gave you`;
  });
}
