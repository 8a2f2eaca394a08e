/**
 * Play by e-mail (docs/spec/mail.md): the `fairtable mail` commands as functions, so the command line, the
 * tests and the benchmark run the same code. Each takes a game folder and the clock; each returns what it
 * wrote to the outbox and plain words saying what happens next.
 */
import { resolve } from 'node:path';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { FairtableError, type ErrorCode } from '@fairtable/core/errors.js';
import { BUILTIN_GAMES } from '@fairtable/core/games/index.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { parseDuration, formatDuration } from './duration.js';
import { GameFolder, isGameFolder, type FolderStatus, type HouseSecret, type Report } from './folder.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import { readMail, type MailMessage } from './message.js';
import { writeAtomic } from './files.js';
import { checkBindings, openPgpMail, pgpFingerprint } from './pgp-mail.js';
import { readSetupLine } from '@fairtable/core/transcript.js';
import { readKeyFile, readPublicKeyFile } from '../key-files.js';
import { standing } from '../verdict-words.js';

export { parseDuration, formatDuration } from './duration.js';
export { readMail, mailText, armorMessage, type MailMessage } from './message.js';
export type { FolderStatus, Report, Problem } from './folder.js';
export { keepFolders, useSnapshots } from './folder.js';
export { pgpBlocks, openPgpMail, checkBindings } from './pgp-mail.js';

/** Protocols a game by mail can run (the names `fairtable simulate` takes, Signidice aside: see the spec). */
export const MAIL_PROTOCOLS = ['beacon', 'chain', 'keyed-stream', 'dice', 'snakes', 'monopoly', 'rochambeau', 'signidice'] as const;

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
  /** Message types the recorder collects sealed (docs/spec/sealed.md): held until every player's is in. */
  readonly sealed?: readonly string[];
  /** OpenPGP bindings for the setup (docs/spec/pgp.md §3.2): `{player, publicKey, binding, signature}` each, as `fairtable pgp bind` prints. */
  readonly bindings?: readonly JsonValue[];
  readonly clock?: () => number;
}

export interface MailResult extends Report {
  readonly status: FolderStatus;
}

const realClock = (): number => Date.now();

export const loadKey = (path: string): { name: string; keys: KeyPair } => readKeyFile(path);
const loadPublicKey = (path: string): { id: string; key: string } => readPublicKeyFile(path);

function paramsFor(
  protocol: string,
  turns: number | undefined,
  game: string | undefined,
): { protocol: string; game: string | null; params: Record<string, JsonValue> } {
  if (!(MAIL_PROTOCOLS as readonly string[]).includes(protocol))
    throw new FairtableError('unknown_protocol', `"${protocol}": choose one of ${MAIL_PROTOCOLS.join(', ')}`, { field: 'protocol' });
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
  return { protocol: protocol === 'keyed-stream' ? 'keyed-stream' : 'chain', game: g, params };
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
  const shape = paramsFor(o.protocol, o.turns, o.game);
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
      ...(o.sealed === undefined || o.sealed.length === 0 ? {} : { sealed: { types: [...o.sealed] } }),
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
  folder.invite();
  folder.note(
    `game ${folder.config.game.slice(0, 16)}… (${folder.config.protocol}) created: players ${players.map((p) => p.id).join(', ')}; recorder ${recorder.id}; ` +
      `deadlines ${formatDuration(timeoutMs)}`,
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
  for (const t of texts) {
    try {
      messages.push(...readMail(t.text));
    } catch (e) {
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
    folder.note(`joined game ${folder.config.game.slice(0, 16)}… (${folder.config.protocol}) as ${folder.config.me} (${folder.config.role})`);
  }
  // Invitations first, then what the recorder takes (submissions), then the ordered lines.
  const rank = { invitation: 0, submission: 1, entries: 2, holding: 3 } as const;
  for (const m of [...messages].sort((a, b) => rank[a.kind] - rank[b.kind])) folder.take(m);
  folder.tick();
  for (const r of refused) folder.note(`refused ${r}`);
  return { ...finish(folder), refused };
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

/** `fairtable mail status`: also lets the seat claim a deadline that has passed (the seat's tick on the real clock). */
export function mailStatus(dir: string, clock: () => number = realClock): MailResult {
  const folder = GameFolder.open(dir, loadKey, clock);
  folder.tick();
  return finish(folder);
}

/** `fairtable mail transcript`: the transcript as this folder holds it, for `fairtable audit`. */
export function mailTranscript(dir: string, out: string, clock: () => number = realClock): number {
  const folder = GameFolder.open(dir, loadKey, clock);
  writeAtomic(out, folder.log.join('\n') + '\n');
  return folder.log.length;
}

function finish(folder: GameFolder): MailResult {
  const report = folder.save();
  const status = folder.status();
  return { ...report, notes: [...report.notes, ...plainNext(status, report)], status };
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
