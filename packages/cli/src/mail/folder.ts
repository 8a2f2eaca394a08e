/**
 * A game folder: one player's (or the recorder's) whole game by mail as plain files (docs/spec/mail.md).
 * Every command loads the folder, rebuilds the seat from it (`Seat.resume`: the copy of the log, the journal
 * of decisions, the seat secret and the envelope in flight, docs/SPEC.md §10.2), applies what came in, lets
 * the seat act (its decisions, its deadline claims on the real clock), and writes the folder back and what
 * must be mailed into `outbox/`.
 *
 * The recorder orders the game as the relay does (docs/spec/relay.md): submissions pass core's door
 * (SPEC §10.1), each recorded line gets a signed receipt (`order/receipt.ts`), and the ordered lines go out
 * with their receipts. Players accept a line only with a receipt that verifies under the recorder's key
 * (named in the setup, so it is part of the game id) and continues the running log hash, and only if the
 * line passes their own copy of the door: a recorder that forks or alters a line is caught with its own
 * signature as evidence.
 *
 * Sealed mode (docs/spec/sealed.md §7): in a game whose setup seals some message types, the recorder holds
 * those submissions out of the log with core's `Sealer`, as the relay does, keeps them in `sealed.jsonl`,
 * mails each author alone a holding receipt, and records a set in seat order once it is complete or due.
 */
import { createHash, createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { Door, MAX_LINE_LENGTH } from '@fairtable/core/door.js';
import { envelopeHash, envelopeLine, type Envelope } from '@fairtable/core/envelope.js';
import { FairtableError } from '@fairtable/core/errors.js';
import type { KeyPair } from '@fairtable/core/identity.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { holdingReceiptError, lostHeldProof, signHoldingReceipt, type HoldingReceipt } from '@fairtable/core/order/holding.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import { checkReceipt, firstLogHash, forkProof, nextLogHash, signReceipt, type Receipt } from '@fairtable/core/order/receipt.js';
import { Sealer, type Release } from '@fairtable/core/order/sealer.js';
import type { Decision, Outcome } from '@fairtable/core/protocols/machine.js';
import { Referee, type RefereeSnapshot } from '@fairtable/core/referee.js';
import { Seat, seatRandom, type JournalEntry, type SeatSnapshot } from '@fairtable/core/seat/seat.js';
import { prepareLine, readSetupLine, type CheckerSnapshot, type VerifyFn } from '@fairtable/core/transcript.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { cliRegistry } from '../registry.js';
import { linesText, readText, writeAtomic, writeAtomic as writeFile } from './files.js';
import { boardText, mailText, type MailMessage } from './message.js';
import { phaseResults, resultsText } from './diplomacy-results.js';
import { decideCommand } from './choice-text.js';

export type Role = 'player' | 'recorder' | 'player+recorder';

/** game.json: what never changes in a folder. */
export interface FolderConfig {
  readonly type: 'fairtable-mail-folder';
  readonly version: 1;
  readonly game: string;
  readonly protocol: string;
  /** This folder's participant: a player id, or the recorder's id. */
  readonly me: string;
  readonly role: Role;
  /** The key file this folder signs with (a reference, not a copy of the secret). */
  readonly key: string;
  readonly recorder: { readonly id: string; readonly key: string };
  readonly players: readonly string[];
}

/** state.json: counters and what has been mailed. */
interface FolderState {
  /** The next outbox file's number. */
  outboxCount: number;
  /** Recorder: lines of the log already mailed as entries. */
  mailed: number;
  /** Player: hashes of the envelope lines already written as submissions (a resend is not mailed twice). */
  submitted: string[];
}

/** What a player found wrong with the recorder (or the recorder with a submission): kept in problems.jsonl. */
export interface Problem {
  readonly code: string;
  readonly message: string;
  readonly line?: number;
  readonly player?: string;
  readonly evidence?: JsonValue;
}

export interface Report {
  /** Plain words for the person at the keyboard. */
  readonly notes: string[];
  /** Files written to outbox/ by this command. */
  readonly written: string[];
}

const F = {
  config: 'game.json',
  secret: 'seat-secret.json',
  state: 'state.json',
  log: 'transcript.jsonl',
  receipts: 'receipts.jsonl',
  journal: 'journal.jsonl',
  inflight: 'in-flight.jsonl',
  pending: 'pending.jsonl',
  held: 'held.jsonl',
  sealed: 'sealed.jsonl',
  holdings: 'holdings.jsonl',
  problems: 'problems.jsonl',
  snapshot: 'snapshot.json',
  house: 'house-secret.json',
  outbox: 'outbox',
} as const;

export const folderFile = (dir: string, name: keyof typeof F): string => join(dir, F[name]);

export function isGameFolder(dir: string): boolean {
  return existsSync(join(dir, F.config));
}

/**
 * snapshot.json (docs/spec/mail.md §2): the seat and the door as they stood when the folder was last written,
 * so a command does not replay the whole log. Sealed with a MAC under the participant's signing key (kept
 * outside the folder) and bound to the digest of every other file of the folder: a snapshot that was
 * edited, or that no longer matches the files, is ignored and the folder is replayed in full.
 */
interface FolderSnapshot {
  readonly v: 1;
  /** SHA-256 of the folder's files as written with this snapshot (`fingerprint`). */
  readonly files: string;
  /** Bytes the seat had drawn from its random source. */
  readonly drawn: number;
  readonly seat: SeatSnapshot | null;
  readonly door: CheckerSnapshot | null;
  /** A recorder who does not play: its observer of the game (for `status`), on a prefix of the log. */
  readonly observer?: RefereeSnapshot | null;
}

const SNAPSHOT_DOMAIN = 'fairtable/mail-snapshot/v1\u0000';

function snapshotMac(secretKey: Uint8Array, body: string): string {
  return createHmac('sha256', secretKey).update(SNAPSHOT_DOMAIN).update(body).digest('hex');
}

interface Pending {
  readonly line: number;
  readonly text: string;
  readonly receipt: Receipt;
}

export class GameFolder {
  readonly dir: string;
  readonly config: FolderConfig;
  readonly setupLine: string;
  private readonly keys: KeyPair;
  private clock: () => number;
  private readonly state: FolderState;
  readonly log: string[];
  readonly receipts = new Map<number, Receipt>();
  private readonly pending = new Map<number, Pending>();
  private held: string[];
  readonly problems: Problem[];
  private readonly journal: JournalEntry[];
  private inflight: string | null;
  /** L_n of the log as this folder holds it. */
  private logHash: string;
  private readonly door: Door | null;
  readonly seat: Seat | null;
  /** Signature checks are skipped only while the folder replays what it already checked. */
  private trusting = true;
  private readonly verify: VerifyFn = (s, m, k) => this.trusting || nativeVerify(s, m, k);
  /** Envelopes this folder's own seat wants recorded (recorder-player) or mailed (player). */
  private readonly toSubmit: string[] = [];
  /** Press the recorder forwards with its next mail. */
  private readonly pressOut: (MailMessage & { kind: 'press' })[] = [];
  private report: Report = { notes: [], written: [] };
  /** True once this folder holds evidence against the recorder: no more lines are taken from it. */
  private recorderFault: boolean;
  /** Recorder of a sealed game: the rule, and the sealed submissions it holds with their holding receipts. */
  private readonly sealer: Sealer | null = null;
  private sealedHeld: { text: string; receipt: HoldingReceipt }[] = [];
  /** Player: holding receipts for this player's sealed envelopes not yet seen in the log. */
  private holdings: HoldingReceipt[];
  /** Signidice's house: its unique-signature prover, from the folder's house-secret.json (docs/spec/mail.md §10). */
  private readonly prover: ((alpha: Uint8Array) => Uint8Array) | null;
  /** Bytes the seat has drawn from its random source (a snapshot restores the source to this point). */
  private drawn = 0;
  /** A recorder who does not play: its observer of the game (`observer`). */
  private watcher: Referee | null = null;
  /** The folder's files as this command read or wrote them. */
  private readonly texts = new Map<StateFile, string | null>();
  /** Whether this command started from the snapshot (false: the folder was replayed). */
  readonly fromSnapshot: boolean;

  private constructor(dir: string, config: FolderConfig, keys: KeyPair, clock: () => number) {
    this.dir = dir;
    this.config = config;
    this.keys = keys;
    this.clock = clock;
    this.prover = houseProver(dir, this.file('house'));
    this.state = JSON.parse(this.file('state') ?? '{"outboxCount":0,"mailed":0,"submitted":[]}') as FolderState;
    this.log = lines(this.file('log'));
    if (this.log.length === 0) throw new FairtableError('bad_input', `${dir}: the folder's transcript is missing its setup line`, { field: 'dir' });
    this.setupLine = this.log[0]!;
    for (const r of jsonLines<Receipt>(this.file('receipts'))) this.receipts.set(r.line, r);
    for (const p of jsonLines<Pending>(this.file('pending'))) this.pending.set(p.line, p);
    this.held = lines(this.file('held'));
    this.problems = jsonLines<Problem>(this.file('problems'));
    this.recorderFault = this.problems.some((p) => p.code.startsWith('recorder_'));
    this.journal = jsonLines<JournalEntry>(this.file('journal'));
    this.inflight = lines(this.file('inflight'))[0] ?? null;
    this.holdings = jsonLines<HoldingReceipt>(this.file('holdings'));

    // Replay what this folder already checked, trusting its own signature checks.
    const gameId = config.game;
    const last = this.receipts.get(this.log.length - 1);
    this.logHash = last !== undefined ? last.log : firstLogHash(gameId, hashOf(readSetupLine(this.setupLine).envelope));
    const secretText = config.role === 'recorder' ? null : (JSON.parse(this.file('secret') ?? 'null') as { secret?: string } | null);
    if (config.role !== 'recorder' && (secretText === null || typeof secretText.secret !== 'string'))
      throw new FairtableError('bad_input', `${dir}: the seat secret is missing`, { field: 'dir' });
    const secret = secretText === null ? null : fromHex(secretText.secret!, 'secret', 32);
    const restored = this.restore(secret);
    this.fromSnapshot = restored !== null;
    if (restored !== null) {
      this.door = restored.door;
      this.seat = restored.seat;
    } else {
      // Only an orderer needs a door; a player checks the recorder's lines with its own seat's checker.
      this.door = config.role === 'player' ? null : new Door(this.setupLine, { verify: this.verify });
      if (this.door !== null)
        for (let n = 1; n < this.log.length; n++) {
          const text = this.log[n]!;
          const admitted = this.door.admit(text, fromOf(text));
          if (!admitted.ok || admitted.duplicate)
            throw new FairtableError('bad_input', `${dir}: line ${n} of the folder's transcript does not pass the door again`);
        }
      // The seat replays the log below, with any sealed set released while the held ones are taken back.
      this.seat = null;
    }
    // The sealed submissions are taken back from sealed.jsonl the same way whether the door came from the
    // snapshot or was replayed (docs/spec/mail.md §2.1): the file is part of the snapshot's digest.
    if (this.door !== null) {
      this.sealer = Sealer.of(this.door.checker.setup);
      if (this.sealer !== null) this.restoreSealed();
    }
    if (restored === null && secret !== null) this.seat = this.replaySeat(secret);
    this.trusting = false;
  }

  /** The seat's random source, counting what it draws; `skip` bytes already drawn are passed over. */
  private randomSource(secret: Uint8Array, skip: number): (length: number) => Uint8Array {
    const base = seatRandom(secret, this.config.game);
    if (skip > 0) base(skip);
    this.drawn = skip;
    return (length) => {
      this.drawn += length;
      return base(length);
    };
  }

  private seatOptions(secret: Uint8Array, skip: number): ConstructorParameters<typeof Seat>[0] {
    return {
      id: this.config.me,
      keys: this.keys,
      setupLine: this.setupLine,
      transport: { submit: (text) => this.toSubmit.push(text), sync: () => {} },
      clock: () => this.clock(),
      random: this.randomSource(secret, skip),
      verify: this.verify,
      sign: nativeSign,
      // The core's machines and Diplomacy's, as every `play` seat has them (docs/spec/diplomacy.md §10.10).
      registry: cliRegistry,
      ...(this.prover === null ? {} : { prover: this.prover }),
      onDecision: (entry) => this.journal.push(entry),
      onSubmit: (text) => {
        this.inflight = text;
      },
    };
  }

  /**
   * The door and the seat from snapshot.json, when it is sealed by this participant's key and was written
   * with the very files the folder holds now; null (replay everything) otherwise.
   */
  private restore(secret: Uint8Array | null): { door: Door | null; seat: Seat | null } | null {
    if (!snapshotsOn) return null;
    const text = readText(folderFile(this.dir, 'snapshot'));
    if (text === null) return null;
    const nl = text.indexOf('\n');
    const mac = text.slice(0, nl);
    const body = text.slice(nl + 1);
    if (nl < 0 || mac !== snapshotMac(this.keys.secretKey, body)) {
      this.note("snapshot.json is not sealed by this folder's key: it is ignored and the folder replayed");
      return null;
    }
    let snap: FolderSnapshot;
    try {
      snap = JSON.parse(body) as FolderSnapshot;
    } catch {
      return null;
    }
    if (snap.v !== 1 || snap.files !== this.filesDigest()) return null;
    if ((this.config.role !== 'player') !== (snap.door !== null) || (secret !== null) !== (snap.seat !== null)) return null;
    try {
      const door = snap.door === null ? null : new Door(this.setupLine, { verify: this.verify, from: snap.door });
      if (door !== null && door.length !== this.log.length) return null;
      const seat = secret === null || snap.seat === null ? null : Seat.restore(this.seatOptions(secret, snap.drawn), this.log, snap.seat);
      if (seat !== null) this.resendInflight(seat);
      const o = snap.observer ?? null;
      if (o !== null && o.checker.lines <= this.log.length)
        this.watcher = new Referee(this.setupLine, null, undefined, { verify: trustAll, registry: cliRegistry }, o);
      return { door, seat };
    } catch (e) {
      if (!(e instanceof FairtableError)) throw e;
      this.toSubmit.length = 0;
      return null;
    }
  }

  /** Still unconfirmed: it goes out again (a recorder keeps it once; a player's outbox has it already). */
  private resendInflight(seat: Seat): void {
    if (this.inflight === null) return;
    const e = JSON.parse(this.inflight) as Envelope;
    if (e.seq >= seat.referee.checker.authorPosition(this.config.me)!.count && !this.toSubmit.includes(this.inflight)) this.toSubmit.unshift(this.inflight);
  }

  /** Writes snapshot.json for the files just written (or removes it when the seat's machine cannot save). */
  private writeSnapshot(): void {
    const path = folderFile(this.dir, 'snapshot');
    const seat = this.seat === null ? null : this.seat.save();
    if (this.seat !== null && seat === null) {
      if (existsSync(path)) rmSync(path);
      return;
    }
    const observer = this.seat === null ? this.observer().save() : null;
    const snap: FolderSnapshot = {
      v: 1,
      files: this.filesDigest(),
      drawn: this.drawn,
      seat,
      door: this.door === null ? null : this.door.checker.save(),
      observer,
    };
    const body = JSON.stringify(snap);
    // Written in place, not through a rename: a torn snapshot fails its MAC and the folder is replayed.
    writeFileSync(path, `${snapshotMac(this.keys.secretKey, body)}\n${body}`);
  }

  /** A file of the folder as this command read or wrote it (each is read at most once). */
  private file(name: StateFile): string | null {
    if (!this.texts.has(name)) this.texts.set(name, readText(folderFile(this.dir, name)));
    return this.texts.get(name)!;
  }

  /** The folder's files, as `fingerprint` reads them from disk, from what this command read and wrote. */
  private fingerprintText(): string {
    return STATE_FILES.map((f) => this.file(f) ?? '\u0000').join('\u0001');
  }

  private filesDigest(): string {
    return createHash('sha256').update(this.fingerprintText()).digest('hex');
  }

  /**
   * Rebuilds this folder's seat from its copy of the log, its journal and the envelope in flight
   * (`Seat.resume`, docs/SPEC.md §10.2): the seat replays the log and its decisions, each on the log it was
   * taken on, reconciles its own envelopes in the log with what it would have sent (its deadline claims
   * came from the clock and are not replayed), and the envelope in flight goes out again byte for byte, so
   * the recorder sees a duplicate, never an equivocation.
   */
  private replaySeat(secret: Uint8Array): Seat {
    const seat = Seat.resume(this.seatOptions(secret, 0), this.log, this.journal, this.inflight);
    this.resendInflight(seat);
    return seat;
  }

  /** Opens an existing folder with the key it names (or `keyFile` when given). */
  static open(dir: string, loadKey: (path: string) => { name: string; keys: KeyPair }, clock: () => number): GameFolder {
    const kept = KEPT.get(dir);
    // Taken out while in use: a command that fails half way leaves nothing behind but the files.
    KEPT.delete(dir);
    if (kept !== undefined && kept.files === fingerprint(dir)) {
      kept.folder.clock = clock;
      kept.folder.report = { notes: [], written: [] };
      return kept.folder;
    }
    const text = readText(folderFile(dir, 'config'));
    if (text === null)
      throw new FairtableError('bad_input', `${dir} is not a game folder (no ${F.config}); read an invitation into it first`, { field: 'dir' });
    const config = JSON.parse(text) as FolderConfig;
    const { keys } = loadKey(config.key);
    const folder = new GameFolder(dir, config, keys, clock);
    folder.flushSeat();
    return folder;
  }

  /** Creates a folder from a setup line this participant is named in (as a player or as the recorder). */
  static create(dir: string, setupLine: string, keyPath: string, key: { name: string; keys: KeyPair }, clock: () => number, house?: HouseSecret): GameFolder {
    if (isGameFolder(dir)) throw new FairtableError('bad_input', `${dir} already holds a game`, { field: 'dir' });
    if (existsSync(dir) && readdirSync(dir).some((f) => f !== F.outbox)) throw new FairtableError('bad_input', `${dir} is not empty`, { field: 'dir' });
    const { setup, gameId } = readSetupLine(setupLine);
    const recorder = recorderOf(setup.params);
    const pk = toHex(key.keys.publicKey);
    const seated = setup.players.find((p) => p.key === pk);
    const records = recorder.key === pk;
    if (seated === undefined && !records)
      throw new FairtableError('bad_input', `this game does not name the key of ${key.name}: it is neither a player nor the recorder`, { field: 'key' });
    const role: Role = seated !== undefined && records ? 'player+recorder' : seated !== undefined ? 'player' : 'recorder';
    const config: FolderConfig = {
      type: 'fairtable-mail-folder',
      version: 1,
      game: gameId,
      protocol: setup.game === null ? setup.protocol : `${setup.protocol}/${setup.game}`,
      me: seated?.id ?? recorder.id,
      role,
      key: keyPath,
      recorder,
      players: setup.players.map((p) => p.id),
    };
    mkdirSync(join(dir, F.outbox), { recursive: true });
    writeAtomic(folderFile(dir, 'secret'), JSON.stringify({ secret: toHex(randomBytes(32)) }) + '\n', 0o600);
    if (setup.protocol === 'signidice' && seated?.id === HOUSE) {
      if (house === undefined)
        throw new FairtableError('bad_input', "this is the house's seat of a Signidice game: its folder is made by mail new, which keeps the house's key", {
          field: 'key',
        });
      if (
        canonicalize(ecvrfHouse(house.scheme, fromHex(house.secret, 'secret', 32)).key as unknown as JsonValue) !== canonicalize(setup.params.houseKey ?? null)
      )
        throw new FairtableError('bad_input', "the house's unique-signature secret is not the one of this game's houseKey", { field: 'houseKey' });
      writeAtomic(folderFile(dir, 'house'), JSON.stringify(house) + '\n', 0o600);
    }
    writeAtomic(folderFile(dir, 'log'), linesText([setupLine]));
    writeAtomic(folderFile(dir, 'config'), JSON.stringify(config, null, 2) + '\n');
    const folder = new GameFolder(dir, config, key.keys, clock);
    if (role !== 'player') folder.recordReceipt(0, folder.logHash);
    folder.flushSeat();
    return folder;
  }

  /** This participant's signing key (press is signed or MACed with it: press.ts). */
  get secretKey(): Uint8Array {
    return this.keys.secretKey;
  }

  get isRecorder(): boolean {
    return this.config.role !== 'player';
  }

  note(text: string): void {
    this.report.notes.push(text);
  }

  /** Takes in one message read from the mail. Idempotent: a message read twice changes nothing. */
  take(m: MailMessage): void {
    if (m.game !== this.config.game) {
      this.note(`ignored a ${m.kind} for another game (${m.game.slice(0, 16)}…)`);
      return;
    }
    switch (m.kind) {
      case 'invitation':
        if (m.setupLine !== this.setupLine)
          this.problem({ code: 'bad_message', message: 'an invitation for this game id with another setup line', evidence: m.setupLine });
        return;
      case 'submission':
        if (this.isRecorder) this.submit([m.line]);
        return;
      case 'entries':
        if (this.config.role === 'player') this.entries(m.first, m.lines, m.receipts);
        return;
      case 'holding':
        if (this.config.role === 'player' && m.to === this.config.me) this.holding(m.receipt);
        return;
      case 'press':
        // Press is kept beside the game (press.ts), never in its log: the folder's seat does not see it.
        return;
    }
  }

  /**
   * Recorder of a sealed game: takes back the sealed submissions it holds (in arrival order, so a set's
   * deadline is its first one's), forgetting those already in the log.
   */
  private restoreSealed(): void {
    const kept = jsonLines<{ text: string; receipt: HoldingReceipt }>(this.file('sealed')).sort((a, b) => a.receipt.time - b.receipt.time);
    for (let n = 1; n < this.log.length; n++) {
      const e = JSON.parse(this.log[n]!) as Envelope;
      this.sealer!.observe(e.from, e.body);
    }
    for (const h of kept) {
      const e = JSON.parse(h.text) as Envelope;
      const check = this.door!.check(h.text, e.from);
      if (check.ok && check.duplicate) continue;
      const a = this.sealer!.arrive({ from: e.from, seq: e.seq, hash: h.receipt.hash, body: e.body }, h.receipt.time);
      if (!check.ok || a.kind !== 'hold') throw new FairtableError('bad_input', `${this.dir}: a sealed submission the recorder holds cannot be held again`);
      this.sealedHeld.push(h);
      const r = this.sealer!.hold({ set: a.set, from: e.from, seq: e.seq, hash: h.receipt.hash, text: h.text, time: h.receipt.time, until: h.receipt.until });
      if (r !== null) this.recordRelease(r);
    }
  }

  /** Recorder: a line the door admitted goes into the log, receipted at `time`. */
  private recordLine(text: string, hash: string, time: number): void {
    this.logHash = nextLogHash(this.logHash, hash);
    const n = this.log.length;
    this.log.push(text);
    this.recordReceipt(n, this.logHash, time);
    this.seat?.receive(n, text);
    if (this.sealer !== null) {
      const e = JSON.parse(text) as Envelope;
      this.sealer.observe(e.from, e.body);
    }
  }

  /** Recorder: a sealed set goes into the log, in seat order, each line receipted at the release's time. */
  private recordRelease(r: Release): void {
    for (const e of r.envelopes) {
      const admitted = this.door!.admit(e.text, e.from);
      if (admitted.ok && !admitted.duplicate) this.recordLine(e.text, admitted.hash, r.time);
    }
    const out = new Set(r.envelopes.map((e) => e.hash));
    this.sealedHeld = this.sealedHeld.filter((h) => !out.has(h.receipt.hash));
    this.note(
      `released sealed set ${r.set} (${r.reason}): ${r.envelopes.map((e) => e.from).join(', ')}${r.missing.length > 0 ? `; missing ${r.missing.join(', ')}` : ''}`,
    );
  }

  /**
   * Recorder of a sealed game: what to do with a submission before the door records it (sealed.md §2).
   * `door`: the door handles it as usual; `taken`: held, or a resend of a held one (nothing to do);
   * `wait`: its author's earlier sealed envelope is held, so it waits like a gap; `released`: it completed its set.
   */
  private sealedArrival(text: string, now: number): 'door' | 'taken' | 'wait' | 'released' {
    let e: Envelope;
    try {
      e = JSON.parse(text) as Envelope;
    } catch {
      return 'door';
    }
    if (e === null || typeof e !== 'object' || typeof e.from !== 'string' || typeof e.body?.type !== 'string' || typeof e.seq !== 'number') return 'door';
    const check = this.door!.check(text, e.from);
    if (!check.ok && check.code !== 'bad_position' && check.code !== 'equivocation') return 'door';
    const hash = check.ok ? check.hash : hashOfLine(text);
    const a = this.sealer!.arrive({ from: e.from, seq: e.seq, hash, body: e.body }, now);
    switch (a.kind) {
      case 'pass':
        return 'door';
      case 'again':
        return 'taken';
      case 'pending':
        return 'wait';
      case 'equivocation':
        this.problem({ code: 'equivocation', player: e.from, message: `${e.from} sent another envelope for the position its held sealed envelope takes` });
        return 'taken';
      case 'hold': {
        if (!check.ok || check.duplicate) return 'door';
        const receipt = signHoldingReceipt(
          { v: 1, game: this.config.game, hash, time: now, until: now + this.sealer!.rule.timeoutMs },
          this.keys.secretKey,
          nativeSign,
        );
        const release = this.sealer!.hold({ set: a.set, from: e.from, seq: e.seq, hash, text, time: now, until: a.until });
        if (release !== null) {
          this.recordRelease(release);
          return 'released';
        }
        this.sealedHeld.push({ text, receipt });
        // For its author alone: a holding message on the list would tell everyone that someone has committed.
        if (e.from !== this.config.me) this.outbox({ kind: 'holding', game: this.config.game, to: e.from, receipt });
        return 'taken';
      }
    }
  }

  /** Recorder: passes submissions through the door; keeps those that wait for an earlier one (a gap). */
  private submit(texts: readonly string[]): void {
    // One time for the whole command: a set due by then is recorded before any line receipted at it (sealed.md §2).
    const now = this.clock();
    if (this.sealer !== null) for (const r of this.sealer.due(now)) this.recordRelease(r);
    const queue = [...this.held, ...texts];
    this.held = [];
    let progress = true;
    while (progress) {
      progress = false;
      const rest: string[] = [];
      for (const text of queue) {
        if (this.sealer !== null) {
          const sealed = this.sealedArrival(text, now);
          if (sealed === 'released') progress = true;
          if (sealed === 'wait') rest.push(text);
          if (sealed !== 'door') continue;
        }
        const admitted = this.door!.admit(text, fromOf(text));
        if (admitted.ok) {
          if (admitted.duplicate) continue;
          this.recordLine(text, admitted.hash, now);
          progress = true;
        } else if (admitted.code === 'bad_position') rest.push(text);
        else
          this.problem({
            code: admitted.code,
            player: admitted.player,
            message: `refused at the door: ${admitted.message}`,
            evidence: admitted.evidence as unknown as JsonValue,
          });
      }
      queue.length = 0;
      queue.push(...rest);
      if (this.seat !== null && this.toSubmit.length > 0) {
        queue.push(...this.toSubmit);
        this.toSubmit.length = 0;
        progress = true;
      }
    }
    // A submission waiting for an earlier one of its author's: kept until that one arrives (mail crosses).
    this.held = [...new Set(queue)].slice(-1000);
  }

  private recordReceipt(n: number, log: string, time = this.clock()): void {
    const hash = n === 0 ? hashOf(readSetupLine(this.setupLine).envelope) : hashOfLine(this.log[n]!);
    this.receipts.set(n, signReceipt({ v: 1, game: this.config.game, line: n, hash, log, time }, this.keys.secretKey, nativeSign));
  }

  /** Player: the recorder's holding receipt for this player's sealed envelope (sealed.md §3), kept until the envelope is in the log. */
  private holding(receipt: HoldingReceipt): void {
    const why = holdingReceiptError(receipt, fromHex(this.config.recorder.key, 'recorder key', 32), nativeVerify);
    if (why !== null) return this.note(`ignored a holding receipt that is not the recorder's: ${why}`);
    if (receipt.game !== this.config.game || this.holdings.some((h) => h.hash === receipt.hash)) return;
    if ([...this.receipts.values()].some((r) => r.hash === receipt.hash)) return;
    this.holdings.push(receipt);
    this.note(`the recorder holds your sealed move until every player's is in (at the latest ${new Date(receipt.until).toISOString()})`);
  }

  /** Player: a line receipted after a holding receipt's `until`, on a log without its envelope, convicts the recorder. */
  private checkHoldings(n: number, receipt: Receipt): void {
    this.holdings = this.holdings.filter((h) => h.hash !== receipt.hash);
    if (this.holdings.length === 0) return;
    const hashes = Array.from({ length: n + 1 }, (_, i) => this.receipts.get(i)?.hash ?? '');
    for (const h of this.holdings) {
      const proof = lostHeldProof(h, receipt, hashes);
      if (proof !== null)
        return this.problem({ code: 'recorder_lost_sealed', line: n, message: proof, evidence: { holding: h, receipt } as unknown as JsonValue });
    }
  }

  /** Player: ordered lines from the recorder, checked, in any order, repeated or not. */
  private entries(first: number, lines: readonly string[], receipts: readonly Receipt[]): void {
    const recorderKey = fromHex(this.config.recorder.key, 'recorder key', 32);
    lines.forEach((text, i) => {
      const n = first + i;
      let receipt: Receipt;
      try {
        receipt = checkReceipt(receipts[i], recorderKey, nativeVerify);
      } catch (e) {
        this.problem({
          code: 'bad_receipt',
          line: n,
          message: `line ${n}: ${(e as Error).message}; the message is ignored`,
          evidence: (receipts[i] ?? null) as unknown as JsonValue,
        });
        return;
      }
      if (receipt.game !== this.config.game || receipt.line !== n) {
        this.problem({
          code: 'recorder_bad_receipt',
          line: n,
          message: `line ${n}: the recorder's receipt is for line ${receipt.line} of game ${receipt.game}`,
          evidence: receipt as unknown as JsonValue,
        });
        return;
      }
      const known = this.receipts.get(n) ?? this.pending.get(n)?.receipt;
      if (known !== undefined) {
        const fork = forkProof(known, receipt);
        if (fork !== null) this.problem({ code: 'recorder_fork', line: n, message: fork, evidence: [known, receipt] as unknown as JsonValue });
        return;
      }
      if (n === 0) {
        this.checkAndKeep(0, text, receipt);
        return;
      }
      if (n < this.log.length) {
        // A line this folder holds without its receipt cannot happen past line 0; keep the receipt if it fits.
        this.checkAndKeep(n, text, receipt);
        return;
      }
      this.pending.set(n, { line: n, text, receipt });
    });
    this.applyPending();
  }

  private checkAndKeep(n: number, text: string, receipt: Receipt): void {
    if (text !== this.log[n] || receipt.hash !== hashOfLine(text)) {
      this.problem({
        code: 'recorder_altered',
        line: n,
        message: `line ${n}: the recorder signed a receipt for another line than this folder holds`,
        evidence: { text, receipt } as unknown as JsonValue,
      });
      return;
    }
    this.receipts.set(n, receipt);
  }

  private applyPending(): void {
    while (!this.recorderFault && this.pending.has(this.log.length)) {
      const n = this.log.length;
      const { text, receipt } = this.pending.get(n)!;
      this.pending.delete(n);
      const admitted = this.judge(n, text);
      if (!admitted.ok) {
        const why = admitted.why;
        this.problem({
          code: 'recorder_altered',
          line: n,
          message: `line ${n}: the recorder signed a line no door records (${why}): the recorder altered the log`,
          evidence: { text, receipt } as unknown as JsonValue,
        });
        return;
      }
      const log = nextLogHash(this.logHash, admitted.hash);
      if (receipt.hash !== admitted.hash || receipt.log !== log) {
        this.problem({
          code: 'recorder_altered',
          line: n,
          message: `line ${n}: the recorder's receipt does not match the line or the log before it (a dropped, reordered or altered line)`,
          evidence: { text, receipt, expected: { hash: admitted.hash, log } } as unknown as JsonValue,
        });
        return;
      }
      this.logHash = log;
      this.log.push(text);
      this.receipts.set(n, receipt);
      this.checkHoldings(n, receipt);
      this.seat?.receive(n, text);
    }
  }

  /** The door's rules (docs/SPEC.md §10.1) on a line the recorder says it recorded: one no door records convicts it. */
  private judge(n: number, text: string): { ok: true; hash: string } | { ok: false; why: string } {
    if (text.length > MAX_LINE_LENGTH) return { ok: false, why: `a line of ${text.length} characters` };
    const checker = this.seat!.referee.checker;
    const prepared = prepareLine(n, text, checker.keys, this.verify);
    const j = checker.judge(prepared);
    if (j.kind === 'accept' && j.brokenChain === null) return { ok: true, hash: prepared.hash! };
    if (j.kind === 'accept') return { ok: false, why: `broken_chain: ${j.brokenChain!.message}` };
    if (j.kind === 'duplicate') return { ok: false, why: `a line already in the log (line ${j.line})` };
    return { ok: false, why: `${j.violation.code}: ${j.violation.message}` };
  }

  private problem(p: Problem): void {
    if (this.problems.some((q) => q.code === p.code && q.line === p.line && q.message === p.message)) return;
    this.problems.push(p);
    if (p.code.startsWith('recorder_')) this.recorderFault = true;
    this.note(`${p.code}${p.player === undefined ? '' : ` (${p.player})`}: ${p.message}`);
  }

  /** Sends what the seat wants sent: to the door when this folder records, as a submission otherwise. */
  private flushSeat(): void {
    if (this.seat === null || this.toSubmit.length === 0) return;
    if (this.isRecorder) {
      this.submit([]);
      return;
    }
    const texts = [...this.toSubmit];
    this.toSubmit.length = 0;
    for (const text of texts) {
      const hash = hashOfLine(text);
      if (this.state.submitted.includes(hash)) continue;
      this.state.submitted.push(hash);
      this.outbox({ kind: 'submission', game: this.config.game, from: this.config.me, line: text });
    }
  }

  /** The player's answer to the seat's decision (docs/SPEC.md §7.5). */
  decide(choice: JsonValue): void {
    if (this.seat === null) throw new FairtableError('illegal_choice', 'the recorder of this game does not play: there is nothing to decide');
    if (this.recorderFault)
      throw new FairtableError('illegal_choice', 'this folder holds evidence against the recorder (see problems): the game is not played on its log any more');
    if (this.seat.decision() === null) throw new FairtableError('illegal_choice', 'there is no decision to take now');
    this.seat.decide(choice);
    this.flushSeat();
  }

  /** Time passed (the real clock): the seat claims deadlines that have passed, the recorder retries what it holds. */
  tick(): void {
    // Only an idle seat claims: its claim is then signed at once, at the point of the log where the replay
    // makes it again (replaySeat).
    if (this.seat !== null && !this.recorderFault && this.seat.idle) {
      this.seat.tick();
      this.flushSeat();
    }
    if (this.isRecorder && (this.held.length > 0 || (this.sealer?.size ?? 0) > 0)) this.submit([]);
  }

  private outbox(m: MailMessage, more: readonly MailMessage[] = []): void {
    const n = ++this.state.outboxCount;
    const detail =
      m.kind === 'submission' || m.kind === 'press'
        ? `${m.from}`
        : m.kind === 'entries'
          ? `${m.first}-${m.first + m.lines.length - 1}`
          : m.kind === 'holding'
            ? `for-${m.to}`
            : '';
    const name = `${String(n).padStart(4, '0')}-${m.kind}${detail === '' ? '' : `-${detail}`}.txt`;
    const board = m.kind === 'press' ? '' : boardText(this.setupLine, () => this.seat?.referee ?? this.observer()) + this.resultsIn(m);
    writeAtomic(join(this.dir, F.outbox, name), mailText(m, board, more));
    this.report.written.push(join(F.outbox, name));
  }

  /**
   * Press to mail (docs/spec/mail.md §13): a player's goes out at once in a small mail of its own; what the
   * recorder forwards rides in its next entries mail (the phase's mail), or in a press mail when no line is due.
   */
  mailPress(m: MailMessage & { kind: 'press' }): void {
    if (this.isRecorder) this.pressOut.push(m);
    else this.outbox(m);
  }

  /** Diplomacy: the results of every phase the lines of an entries mail adjudicated, as text for the mail (spec/mail.md §11.1). */
  private resultsIn(m: MailMessage): string {
    if (m.kind !== 'entries' || this.config.protocol !== 'diplomacy') return '';
    const end = m.first + m.lines.length;
    const told = phaseResults(this.log.slice(0, end)).filter((p) => p.line >= m.first);
    return told.map((p) => `\n${resultsText(p).join('\n')}\n`).join('');
  }

  /** A plain letter to a player outside fairtable (a gpg-only player, docs/spec/mail.md §12): no fairtable block in it. */
  letter(to: string, text: string): void {
    const n = ++this.state.outboxCount;
    const name = `${String(n).padStart(4, '0')}-letter-to-${to}.txt`;
    writeAtomic(join(this.dir, F.outbox, name), text);
    this.report.written.push(join(F.outbox, name));
  }

  /** The game as this folder follows it: its seat's referee, or the recorder's observer. */
  view(): Referee {
    return this.seat?.referee ?? this.observer();
  }

  /** The invitation to the game (written by `mail new`). */
  invite(): void {
    this.outbox({ kind: 'invitation', game: this.config.game, setupLine: this.setupLine });
  }

  /** Writes the folder back, and, for the recorder, one message with every line not mailed yet. */
  save(): Report {
    this.flushSeat();
    if (this.isRecorder && this.log.length > this.state.mailed) {
      const first = this.state.mailed;
      const lines = this.log.slice(first);
      this.outbox({ kind: 'entries', game: this.config.game, first, lines, receipts: lines.map((_, i) => this.receipts.get(first + i)!) }, this.pressOut);
      this.state.mailed = this.log.length;
      this.pressOut.length = 0;
    }
    for (const m of this.pressOut.splice(0)) this.outbox(m);
    const d = this.dir;
    const writeAtomic = (name: StateFile, text: string): void => {
      if (this.file(name) === text) return;
      writeFile(folderFile(d, name), text);
      this.texts.set(name, text);
    };
    writeAtomic('log', linesText(this.log));
    writeAtomic('receipts', linesText([...this.receipts.values()].sort((a, b) => a.line - b.line).map((r) => JSON.stringify(r))));
    writeAtomic('pending', linesText([...this.pending.values()].map((p) => JSON.stringify(p))));
    writeAtomic('held', linesText(this.held));
    if (this.sealer !== null || this.file('sealed') !== null) writeAtomic('sealed', linesText(this.sealedHeld.map((h) => JSON.stringify(h))));
    if (this.holdings.length > 0 || this.file('holdings') !== null) writeAtomic('holdings', linesText(this.holdings.map((h) => JSON.stringify(h))));
    writeAtomic('problems', linesText(this.problems.map((p) => JSON.stringify(p))));
    writeAtomic('journal', linesText(this.journal.map((c) => JSON.stringify(c))));
    writeAtomic('inflight', linesText(this.inflight === null ? [] : [this.inflight]));
    writeAtomic('state', JSON.stringify(this.state) + '\n');
    this.writeSnapshot();
    if (keepFoldersOpen) KEPT.set(d, { folder: this, files: this.fingerprintText() });
    return this.report;
  }

  /** The game in plain text as the folder's messages carry it (docs/spec/mail.md §3.1, §11); empty for most games. */
  board(): string {
    return boardText(this.setupLine, () => this.seat?.referee ?? this.observer());
  }

  /** The game as this folder sees it, for `mail status`. */
  status(): FolderStatus {
    const referee = this.seat?.referee ?? this.observer();
    const outcome = this.seat?.outcome() ?? (referee.stopped ? null : referee.outcome());
    const decision = this.seat?.decision() ?? null;
    const st = referee.state as { phase?: unknown; phaseStart?: unknown; timeoutMs?: unknown };
    const phase = typeof st.phase === 'string' ? st.phase : null;
    const deadline = typeof st.phaseStart === 'number' && typeof st.timeoutMs === 'number' ? st.phaseStart + st.timeoutMs : null;
    const claimFrom = deadline === null || typeof st.timeoutMs !== 'number' ? null : deadline + Math.floor(st.timeoutMs / 2);
    let who: string[] = [];
    let what: string;
    if (outcome !== null) what = 'nothing: the game is over';
    else if (this.recorderFault) what = 'nothing: this folder holds evidence that the recorder altered or forked the log (see problems)';
    else if (decision !== null) {
      who = [this.config.me];
      const how =
        decision.kind === 'orders'
          ? 'fairtable mail decide --dir DIR --orders FILE'
          : decision.kind === 'preferences'
            ? 'fairtable mail decide --dir DIR --prefs LIST'
            : decideCommand(this.dir, decision.choices);
      what = `${this.config.me} decides: ${decision.prompt} (answer with: ${how})`;
    } else if (this.seat !== null && !this.seat.idle) {
      who = [this.config.recorder.id];
      what = `the recorder (${this.config.recorder.id}) records ${this.config.me}'s message; mail the outbox files`;
    } else {
      who = this.missing(referee);
      what = who.length > 0 ? `waiting for ${who.join(', ')}` : 'waiting for the mail';
    }
    return {
      game: this.config.game,
      protocol: this.config.protocol,
      seat: this.config.me,
      role: this.config.role,
      recorder: this.config.recorder.id,
      lines: this.log.length,
      phase,
      next: { who, what, deadline, claimFrom },
      decision,
      done: outcome !== null,
      outcome,
      problems: this.problems,
      pending: this.pending.size,
      held: this.held.length,
    };
  }

  /** Who the machine would name in a deadline claim: the players it waits for (a pure look, nothing is sent). */
  private missing(referee: Referee): string[] {
    try {
      const r = referee.machine.tick(referee.state, { now: Number.MAX_SAFE_INTEGER, random: () => new Uint8Array(0) });
      for (const b of r.out) if (b.type === 'deadline' && Array.isArray(b.missing)) return b.missing as string[];
    } catch {
      // A machine that cannot say is treated as waiting for the mail.
    }
    return [];
  }

  /**
   * A recorder who does not play follows the game with an observer, for `status`: kept up to date from
   * where the snapshot left it. Every line in the log passed this folder's door, signatures checked, so
   * the observer does not check them again.
   */
  private observer(): Referee {
    this.watcher ??= new Referee(this.setupLine, null, undefined, { verify: trustAll, registry: cliRegistry });
    for (let n = this.watcher.checker.lines; n < this.log.length; n++) this.watcher.feedText(n, this.log[n]!);
    return this.watcher;
  }
}

/**
 * A process that runs many commands (a mail filter, an app, the benchmark) may keep each folder's seat in
 * memory between commands instead of replaying the folder every time; a kept folder is used only while
 * every file of the folder is byte for byte what it last wrote, so a change on disk (another process, a
 * person) always wins. The command line runs one command per process and never keeps anything.
 */
let keepFoldersOpen = false;
/** Whether folders start from their snapshot (the benchmark turns it off to measure the full replay). */
let snapshotsOn = true;

export function useSnapshots(on: boolean): void {
  snapshotsOn = on;
}
const KEPT = new Map<string, { folder: GameFolder; files: string }>();

export function keepFolders(on: boolean): void {
  keepFoldersOpen = on;
  if (!on) KEPT.clear();
}

const STATE_FILES = [
  'config',
  'secret',
  'house',
  'state',
  'log',
  'receipts',
  'journal',
  'inflight',
  'pending',
  'held',
  'sealed',
  'holdings',
  'problems',
] as const;
type StateFile = (typeof STATE_FILES)[number];

function lines(text: string | null): string[] {
  return text === null ? [] : text.split('\n').filter((l) => l.length > 0);
}

function jsonLines<T>(text: string | null): T[] {
  return lines(text).map((l) => JSON.parse(l) as T);
}

function fingerprint(dir: string): string {
  return STATE_FILES.map((f) => readText(folderFile(dir, f)) ?? '\u0000').join('\u0001');
}

export interface FolderStatus {
  readonly game: string;
  readonly protocol: string;
  readonly seat: string;
  readonly role: Role;
  readonly recorder: string;
  readonly lines: number;
  readonly phase: string | null;
  readonly next: { readonly who: readonly string[]; readonly what: string; readonly deadline: number | null; readonly claimFrom: number | null };
  readonly decision: Decision | null;
  readonly done: boolean;
  readonly outcome: Outcome | null;
  readonly problems: readonly Problem[];
  readonly pending: number;
  readonly held: number;
}

/** The recorder named in a setup's params (docs/spec/mail.md §4). */
export function recorderOf(params: { readonly [key: string]: JsonValue }): { id: string; key: string } {
  const r = params.recorder as { id?: unknown; key?: unknown } | undefined;
  if (r === undefined || r === null || typeof r !== 'object' || typeof r.id !== 'string' || typeof r.key !== 'string')
    throw new FairtableError('bad_setup', 'this game names no recorder (params.recorder {id, key}): it is not a game by mail', { field: 'params.recorder' });
  return { id: r.id, key: r.key };
}

/** Signidice: the house's unique-signature secret, a copy kept in the house's folder (docs/spec/mail.md §10). */
export interface HouseSecret {
  readonly scheme: 'ecvrf-ell2' | 'ecvrf-tai';
  readonly secret: string;
}

function houseProver(dir: string, text: string | null): ((alpha: Uint8Array) => Uint8Array) | null {
  if (text === null) return null;
  const h = JSON.parse(text) as HouseSecret;
  if ((h.scheme !== 'ecvrf-ell2' && h.scheme !== 'ecvrf-tai') || typeof h.secret !== 'string')
    throw new FairtableError('bad_input', `${dir}: ${F.house} is not a house secret {scheme, secret}`, { field: 'dir' });
  return ecvrfHouse(h.scheme, fromHex(h.secret, 'secret', 32)).prove;
}

const trustAll: VerifyFn = () => true;

function fromOf(text: string): string {
  try {
    const from = (JSON.parse(text) as { from?: unknown }).from;
    return typeof from === 'string' ? from : '?';
  } catch {
    return '?';
  }
}

function hashOf(envelope: Envelope): string {
  return hashOfLine(envelopeLine(envelope));
}

function hashOfLine(text: string): string {
  try {
    return envelopeHash(JSON.parse(text) as Envelope);
  } catch {
    return '';
  }
}
