/**
 * Seed 000's key-committed random streams, implemented as written (docs/SPEC.md §7.3).
 *
 * Each player publishes the public key of a fresh "stream key" pair (Ed25519)
 * and draws its numbers from the stream seeded by H("keyed-stream", secret).
 * Who goes first: the public keys read as big-endian integers are summed, the
 * 7s in the decimal sum are counted (c), and players[(c + N − 1) mod N] starts
 * (for two players: c odd → A, even → B, the seed's rule). A turn: the mover
 * draws X = below(skipLimit) from its own stream and sends it; the next player
 * (the roller) skips 4·X bytes of its own stream (X numbers of 32 bits) and
 * plays the mover's turn on what follows, sending the draws back together with
 * the start of its own turn. Nobody can check a draw until the audit: each
 * player reveals its stream secret, everybody checks it against the published
 * key and replays every number that player produced. What this cannot catch
 * before the audit, and the steering of "who goes first", are in the spec.
 *
 * The seed's audit "at any point during the game" is a rule too: any seated
 * player may send an audit request naming players; each named player answers
 * with its secret and a fresh stream key, everybody replays its numbers so
 * far, and its numbers from then on come from the new key. The switch happens
 * at the answer's place in the transcript, so play never pauses and nothing
 * races: every number a player drew before its answer is covered by the secret
 * it reveals. A named player who does not answer, or reveals but keeps back
 * its new key, is named `withheld` by a deadline claim.
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { bytesToBigInt, fromHex, isHex, toHex } from '../bytes.js';
import { canonicalize, type JsonValue } from '../jcs.js';
import { taggedHash } from '../hash.js';
import { RecordingChance, ScriptedChance, ScriptMismatch } from '../chance.js';
import { RandomStream } from '../stream.js';
import { FairtableError, type ViolationCode } from '../errors.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import { BUILTIN_GAMES, gameByName, type GameBook } from '../games/index.js';
import { isDecisionGame, type ChanceGame, type DecisionGame } from '../games/game.js';
import { KEYED_STREAM_MESSAGES } from './messages.js';
import {
  ASK_PHASES,
  askDecide,
  completeAsk,
  askDecision,
  askMissing,
  askTick,
  autoUnseal,
  onAskDeadline,
  onAskMessage,
  deadlinesParam,
  type Ask,
  type AskHooks,
} from './asking.js';
import type { Opening } from '../commitment.js';
import { forfeitSeat, turnsOutcome } from './rotation.js';
import { isStrictPublicKey } from '../identity.js';
import { deadlineTick, intParam, refuseDecision, isDeadlineBody, settleClaim, Stepper, type Ctx, type Machine, type StepResult } from './machine.js';

type Op = { kind: 'x'; limit: number; value: number } | { kind: 'roll'; skip: number; draws: [number, number][] };

/** An audit asked for during play: the named players still owing their secret and a new key. */
export interface AuditRequest {
  readonly n: number;
  readonly by: string;
  readonly time: number;
  waiting: string[];
  claimed: boolean;
}

export interface KeyedState {
  readonly gameId: string;
  readonly gameName: string;
  readonly rules: ChanceGame<unknown>;
  readonly timeoutMs: number;
  readonly skipLimit: number;
  /** An honest seat asks for an audit of the player whose turn message ends every k-th turn (0: never). */
  readonly auditEvery: number;
  game: unknown;
  order: string[];
  active: string[];
  phase: 'keys' | 'play' | 'audit' | 'done';
  phaseStart: number;
  keys: Record<string, string>;
  turn: number;
  mover: number;
  pending: { turn: number; mover: string; x: number } | null;
  history: Record<string, OpList>;
  audited: Record<string, boolean>;
  forfeits: { player: string; code: ViolationCode }[];
  me: string | null;
  mine: { secret: string; consumed: number } | null;
  claimed: string | null;
  requests: AuditRequest[];
  requestCount: number;
  /** Players who revealed their secret during play and have not yet published the next key. */
  keyless: Record<string, boolean>;
  /** Public keys whose secrets are public: none may be published again. */
  spent: string[];
  /** Audits each player passed during play (its current key is number epochs + 1). */
  epochs: Record<string, number>;
  /** The local player sent an audit answer the transcript has not yet shown. */
  answering: boolean;
  /** Decision games (docs/SPEC.md §7.7): the deadline of each decision, the open ask round, the local player's seal. */
  readonly decisionMs: number;
  readonly deadlines: Readonly<Record<string, number>>;
  ask: Ask | null;
  mySeal: { readonly turn: number; readonly opening: Opening; readonly opened: boolean } | null;
  answered: number;
  /** The roller's X for the roll awaited now, once sent. */
  stepX: { readonly turn: number; readonly x: number; readonly mover: string } | null;
  /** The turn for which the local player has sent its X, or its roll for another (-1: none). */
  sentX: number;
  sentRoll: number;
  rolls: number;
}

export function streamOfSecret(secret: Uint8Array): RandomStream {
  return new RandomStream(taggedHash('keyed-stream', secret), 'keyed-stream');
}

/**
 * The bound of X that fairtable writes into every new keyed-stream setup (docs/SPEC.md §7.3): X uniform in
 * [0, 2^32). A roller that grinds stream keys can pick one whose first values are good for it at more of the
 * offsets X may name, and the more offsets there are, the less any key can favour (the spec gives the numbers).
 */
export const DEFAULT_SKIP_LIMIT = 2 ** 32;
/**
 * The bound of a setup that does not state `skipLimit`: 256, the bound such setups were played with, so that
 * their transcripts replay every X as it was drawn and still audit.
 */
export const UNSTATED_SKIP_LIMIT = 256;

/** The seed's "who goes first": count the 7s in the decimal sum of the public keys. */
export function firstPlayerIndex(publicKeys: readonly string[]): number {
  const sum = publicKeys.reduce((acc, k) => acc + bytesToBigInt(fromHex(k, 'key', 32)), 0n);
  const sevens = [...sum.toString()].filter((d) => d === '7').length;
  const n = publicKeys.length;
  return (sevens + n - 1) % n;
}

/** Replays a player's numbers from its revealed secret; returns the index of the first op that does not match, or -1. */
export function replayOps(secret: Uint8Array, ops: readonly Op[]): number {
  const stream = streamOfSecret(secret);
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i]!;
    if (op.kind === 'x') {
      if (stream.below(op.limit) !== op.value) return i;
    } else {
      stream.skip(4 * op.skip);
      for (const [n, value] of op.draws) if (stream.below(n) !== value) return i;
    }
  }
  return -1;
}

/**
 * A player's numbers, newest first: an immutable list that successive states share, so recording a
 * number costs O(1) and never changes a state a caller still holds (docs/SPEC.md §7).
 */
type OpList = { readonly op: Op; readonly rest: OpList; readonly length: number } | null;
const pushOp = (list: OpList, op: Op): OpList => ({ op, rest: list, length: (list?.length ?? 0) + 1 });
function opsOf(list: OpList): Op[] {
  const out: Op[] = [];
  for (let x = list; x !== null; x = x.rest) out.push(x.op);
  return out.reverse();
}

/** A copy deep enough for a step: containers are copied, histories are immutable lists. */
function copy(s: KeyedState): KeyedState {
  return {
    ...s,
    active: [...s.active],
    keys: { ...s.keys },
    history: { ...s.history },
    audited: { ...s.audited },
    forfeits: [...s.forfeits],
    requests: s.requests.map((r) => ({ ...r, waiting: [...r.waiting] })),
    keyless: { ...s.keyless },
    spent: [...s.spent],
    epochs: { ...s.epochs },
  };
}

function myStream(s: KeyedState): RandomStream {
  const stream = streamOfSecret(fromHex(s.mine!.secret));
  stream.skip(s.mine!.consumed);
  return stream;
}

/** A decision game's roll: the player who rolls, and the next player in, who produces the dice from its stream. */
function dgRoll(s: KeyedState): { mover: string; roller: string } | null {
  if (!isDecisionGame(s.rules) || s.phase !== 'play') return null;
  const w = s.rules.waiting(s.game);
  if (w.kind !== 'roll' || !s.active.includes(w.player)) return null;
  const at = s.active.indexOf(w.player);
  return { mover: w.player, roller: s.active[(at + 1) % s.active.length]! };
}

/** The awaited roll's X, if its mover has sent it (an X of a mover who has since left is void). */
function currentX(s: KeyedState): { readonly x: number } | null {
  const r = dgRoll(s);
  return s.stepX !== null && r !== null && s.stepX.turn === s.turn && s.stepX.mover === r.mover ? s.stepX : null;
}

function roller(s: KeyedState): string | null {
  if (isDecisionGame(s.rules)) {
    const r = dgRoll(s);
    return r === null ? null : currentX(s) === null ? r.mover : r.roller;
  }
  return s.phase === 'play' ? (s.active[s.mover % Math.max(1, s.active.length)] ?? null) : null;
}

function gameOver(s: KeyedState): boolean {
  return s.active.length <= 1 || s.rules.winners(s.game) !== null;
}

/** The local player's turn message: the previous mover's roll (when pending) and its own X. True when that roll ends the game. */
function actIfMine(s: KeyedState, st: Stepper): boolean {
  if (isDecisionGame(s.rules)) {
    actDecisionGame(s.rules, s, st);
    return false;
  }
  if (s.me === null || roller(s) !== s.me || s.mine === null || s.keyless[s.me]) return false;
  const stream = myStream(s);
  const before = stream.consumed;
  let roll: JsonValue = null;
  // A mover that has left is not rolled for: nothing is drawn.
  if (s.pending !== null && s.active.includes(s.pending.mover)) {
    stream.skip(4 * s.pending.x);
    const chance = new RecordingChance(stream);
    s.rules.play(s.game, s.pending.mover, chance, null);
    roll = { turn: s.pending.turn, draws: chance.draws };
  }
  // Whether the game ends with this roll decides whether a new X is drawn.
  let x: number | null = null;
  const after = roll === null ? s.game : playClaimed(s, s.pending!.mover, (roll as { draws: [number, number][] }).draws);
  const ends = after === null ? false : s.active.length <= 1 || s.rules.winners(after) !== null;
  if (!ends) x = stream.below(s.skipLimit);
  s.mine = { secret: s.mine.secret, consumed: s.mine.consumed + (stream.consumed - before) };
  st.send({ type: 'turn', turn: s.turn, roll, x });
  return ends;
}

function playClaimed(s: KeyedState, mover: string, draws: [number, number][]): unknown {
  const chance = new ScriptedChance(draws);
  const result = s.rules.play(s.game, mover, chance, null);
  if (!chance.exhausted) throw new ScriptMismatch(`the claim holds ${draws.length} draws, the game used fewer`);
  return result.state;
}

/**
 * A forfeit keeps a pending turn of the player who left: its roller may have
 * drawn the roll before it saw the forfeit, and those numbers are part of the
 * roller's stream, so the roller's next turn message settles it either way.
 */
function forfeit(s: KeyedState, st: Stepper, player: string, code: ViolationCode): void {
  forfeitSeat(s, st, player, code);
  closeAnswered(s);
}

/** A claimed roll for a mover who has left: only its form can be checked now, its numbers at the audit. */
function checkDrawList(draws: readonly unknown[]): void {
  for (const d of draws) {
    const ok =
      Array.isArray(d) &&
      d.length === 2 &&
      Number.isSafeInteger(d[0]) &&
      Number.isSafeInteger(d[1]) &&
      d[0] >= 1 &&
      d[0] <= 2 ** 53 &&
      d[1] >= 0 &&
      d[1] < d[0];
    if (!ok) throw new ScriptMismatch(`${canonicalize(d as JsonValue)} is not a draw [n, value] with 0 ≤ value < n`);
  }
}

/** Drops from the open requests whoever has answered or left; a request nobody owes is closed. */
function closeAnswered(s: KeyedState, answered: string | null = null): void {
  for (const r of s.requests) r.waiting = r.waiting.filter((p) => p !== answered && s.active.includes(p));
  s.requests = s.requests.filter((r) => r.waiting.length > 0);
}

function startAudit(s: KeyedState, st: Stepper, time: number): void {
  s.phase = 'audit';
  s.phaseStart = time;
  s.claimed = null;
  s.requests = [];
  // A player caught between revealing and publishing its next key has drawn nothing since: nothing is left to audit.
  for (const p of s.active) if (s.keyless[p]) s.audited[p] = true;
  st.emit({ type: 'game-over', winners: s.active.length <= 1 ? [...s.active] : (s.rules.winners(s.game) ?? []) });
  // An answer still in flight reveals the key the transcript holds for us, so it is our final audit.
  if (s.me !== null && s.active.includes(s.me) && s.mine !== null && !s.keyless[s.me] && !s.answering) st.send({ type: 'audit', secret: s.mine.secret });
  if (s.active.every((p) => s.audited[p])) s.phase = 'done';
}

/** The local player answers an audit request: its secret, and the public key of the next one, which it uses from now on. */
function answerIfNamed(s: KeyedState, st: Stepper, named: readonly string[], ctx: Ctx): void {
  if (s.me === null || s.mine === null || s.answering || !named.includes(s.me) || !s.active.includes(s.me) || s.keyless[s.me]) return;
  const next = ctx.random(32);
  st.send({ type: 'audit', secret: s.mine.secret, key: toHex(ed25519.getPublicKey(next)) });
  s.mine = { secret: toHex(next), consumed: 0 };
  s.answering = true;
}

/** Why a key cannot be a player's next stream key, or null when it can. */
function unusableKey(s: KeyedState, key: unknown): string | null {
  if (!isHex(key, 32) || !isStrictPublicKey(fromHex(key))) return 'is not a usable Ed25519 public key';
  if (s.spent.includes(key)) return 'belongs to a secret already revealed';
  if (Object.values(s.keys).includes(key)) return 'is already in use';
  return null;
}

/** A new stream key after an audit during play: numbers from here on come from it. */
function takeNewKey(s: KeyedState, st: Stepper, from: string, key: unknown, msg: Accepted): void {
  const why = unusableKey(s, key);
  if (why !== null) {
    st.violation('bad_key', from, msg, `${from}'s new stream key ${why}`);
    forfeit(s, st, from, 'bad_key');
    return;
  }
  s.keys[from] = key as string;
  s.keyless[from] = false;
  closeAnswered(s, from);
  st.emit({ type: 'stream-key', player: from, key: key as string, epoch: (s.epochs[from] ?? 0) + 1 });
}

/** Checks a revealed secret against the player's current key and replays its numbers under that key; false when it forfeited. */
function checkSecret(s: KeyedState, st: Stepper, from: string, secret: unknown, msg: Accepted): boolean {
  if (!isHex(secret, 32) || toHex(ed25519.getPublicKey(fromHex(secret))) !== s.keys[from]) {
    st.violation('bad_key', from, msg, `${from}'s revealed stream secret does not belong to its published key ${s.keys[from] ?? '?'}`);
    forfeit(s, st, from, 'bad_key');
    return false;
  }
  const ops = opsOf(s.history[from] ?? null);
  const bad = replayOps(fromHex(secret), ops);
  if (bad >= 0) {
    const op = ops[bad]!;
    const epoch = s.epochs[from] ?? 0;
    st.violation(
      'audit_mismatch',
      from,
      msg,
      `${from}'s stream does not produce its ${op.kind === 'x' ? `X = ${op.value}` : `roll ${canonicalize(op.draws)} (after skipping ${op.skip})`} (its number #${bad}${epoch > 0 ? ` under its stream key #${epoch + 1}` : ''})`,
    );
    forfeit(s, st, from, 'audit_mismatch');
    return false;
  }
  return true;
}

function missing(s: KeyedState): string[] {
  if (s.phase === 'keys') return s.active.filter((p) => s.keys[p] === undefined);
  if (s.phase === 'audit') return s.active.filter((p) => !s.audited[p]);
  const r = roller(s);
  return r === null ? [] : [r];
}

const deadlineRound = (s: KeyedState): number => (s.phase === 'play' ? s.turn : 0);

/** Audit-request deadlines are a phase of their own, running beside play; `round` is the request's number. */
const REQUEST_PHASE = 'audit-request';
const requestView = (s: KeyedState, r: AuditRequest) => ({
  phase: REQUEST_PHASE,
  phaseStart: r.time,
  timeoutMs: s.timeoutMs,
  claimed: r.claimed ? `${REQUEST_PHASE}/${r.n}` : null,
});
const requestMissing = (s: KeyedState, r: AuditRequest): string[] => r.waiting.filter((p) => s.active.includes(p));

/** After a forfeit during play: the game may be over, or the next roller may be us. */
function afterForfeits(s: KeyedState, st: Stepper, wasRoller: string | null, time: number): void {
  if (s.phase !== 'play') return;
  if (isDecisionGame(s.rules)) {
    if (!gameOver(s)) completeAsk(s.rules, s, st, time, askHooks(s, st));
    if (gameOver(s)) startAudit(s, st, time);
    else actDecisionGame(s.rules, s, st);
    return;
  }
  if (gameOver(s)) startAudit(s, st, time);
  else if (wasRoller !== null && !s.active.includes(wasRoller)) {
    s.phaseStart = time;
    s.claimed = null;
    actIfMine(s, st);
  }
}

/*
 * Decision games on seed 000's streams (docs/SPEC.md §7.7). A roll is two messages: the mover's `x`
 * (its intent, with X drawn from its own stream) and the `roll` of the next player in, who skips 4·X
 * bytes of its own stream and plays the roll on what follows. Decisions between rolls are the asking
 * rounds of asking.ts; every number is checked at the audit, as for plain games.
 */
const DG_BODIES = ['x', 'roll', 'answer', 'seal', 'unseal'];

function isDecisionGameBody(body: { readonly type: string; readonly phase?: unknown }): boolean {
  return DG_BODIES.includes(body.type) || (isDeadlineBody(body as never) && body.phase !== REQUEST_PHASE);
}

/** The game learns who goes first by seed 000's rule (a game without the hook starts with its own first player). */
function startWith(s: KeyedState): void {
  if (!isDecisionGame(s.rules)) return;
  const first = s.active[s.mover]!;
  s.game = s.rules.firstPlayer?.(s.game, first) ?? s.game;
}

function actDecisionGame(rules: DecisionGame<unknown>, s: KeyedState, st: Stepper): void {
  if (s.me === null || s.mine === null || s.phase !== 'play' || !s.active.includes(s.me)) return;
  autoUnseal(rules, s, st);
  const r = dgRoll(s);
  if (r === null || s.keyless[s.me]) return;
  const sx = currentX(s);
  if (sx === null && r.mover === s.me && s.sentX !== s.turn) {
    const stream = myStream(s);
    const before = stream.consumed;
    const x = stream.below(s.skipLimit);
    s.mine = { secret: s.mine.secret, consumed: s.mine.consumed + (stream.consumed - before) };
    s.sentX = s.turn;
    st.send({ type: 'x', turn: s.turn, x });
  } else if (sx !== null && r.roller === s.me && s.sentRoll !== s.turn) {
    const stream = myStream(s);
    const before = stream.consumed;
    stream.skip(4 * sx.x);
    const chance = new RecordingChance(stream);
    rules.play(s.game, r.mover, chance, null);
    s.mine = { secret: s.mine.secret, consumed: s.mine.consumed + (stream.consumed - before) };
    s.sentRoll = s.turn;
    st.send({ type: 'roll', turn: s.turn, draws: chance.draws });
  }
}

function askHooks(s: KeyedState, st: Stepper): AskHooks {
  return {
    forfeit: (player, code) => forfeit(s, st, player, code),
    accepted: () => undefined,
    resolved: () => undefined,
  };
}

function stepDecisionGame(rules: DecisionGame<unknown>, s: KeyedState, st: Stepper, msg: Accepted): void {
  const from = msg.envelope.from;
  const body = msg.envelope.body;
  const r = dgRoll(s);
  if (body.type === 'x' || body.type === 'roll') {
    const sx = currentX(s);
    const expected = r === null ? null : sx === null ? r.mover : r.roller;
    const wanted = sx === null ? 'x' : 'roll';
    if (expected !== from || body.type !== wanted || body.turn !== s.turn || s.keyless[from]) {
      st.violation(
        'out_of_turn',
        from,
        msg,
        `${from} sent "${body.type}" for turn ${String(body.turn)}, but the game waits for ${expected === null ? 'a decision' : `${wanted} ${s.turn} from ${expected}`}`,
      );
      return;
    }
    if (body.type === 'x') {
      if (typeof body.x !== 'number' || !Number.isSafeInteger(body.x) || body.x < 0 || body.x >= s.skipLimit) {
        st.violation('unexpected_message', from, msg, `${from}'s x is not in [0, ${s.skipLimit})`);
        forfeit(s, st, from, 'unexpected_message');
      } else {
        s.history[from] = pushOp(s.history[from] ?? null, { kind: 'x', limit: s.skipLimit, value: body.x });
        s.stepX = { turn: s.turn, x: body.x, mover: from };
      }
    } else {
      const draws = body.draws as [number, number][];
      let next: unknown = null;
      let bad: string | null = null;
      try {
        next = playClaimed(s, r!.mover, draws);
      } catch (e) {
        if (!(e instanceof ScriptMismatch)) throw e;
        bad = e.message;
      }
      if (bad !== null) {
        st.violation('wrong_result', from, msg, `${from}'s roll for ${r!.mover}'s turn ${s.turn} is not a possible roll: ${bad}`);
        forfeit(s, st, from, 'wrong_result');
      } else {
        s.history[from] = pushOp(s.history[from] ?? null, { kind: 'roll', skip: sx!.x, draws });
        s.game = next;
        st.emit({ type: 'turn', turn: s.turn, player: r!.mover, rolledBy: from, draws: canonicalize(draws) });
        s.turn++;
        s.rolls++;
        s.stepX = null;
        // The mover whose dice these were asks, every k-th roll, for an audit of the player who produced them.
        if (s.auditEvery > 0 && s.rolls % s.auditEvery === 0 && s.me === r!.mover && s.me !== from && !gameOver(s))
          st.send({ type: 'audit-request', players: [from] });
      }
    }
    s.phaseStart = msg.time;
    s.claimed = null;
  } else if (isDeadlineBody(body) && (ASK_PHASES as readonly string[]).includes(body.phase)) {
    onAskDeadline(rules, s, st, msg, body, s.timeoutMs, askHooks(s, st));
  } else if (isDeadlineBody(body)) {
    const late = settleClaim(st, msg, body, s, { round: deadlineRound(s), late: missing(s), isOut: (p) => !s.active.includes(p) });
    if (late === null) return;
    for (const p of late) {
      // A roller knew its roll before it went silent (docs/SPEC.md §7.4); a missing x steers nothing.
      st.withheld(
        p,
        currentX(s) !== null,
        msg,
        `${p} did not send its ${currentX(s) === null ? 'x' : 'roll'} for turn ${s.turn} before the deadline; claimed by ${from}`,
      );
      forfeit(s, st, p, 'withheld');
    }
    s.phaseStart = msg.time;
    s.claimed = null;
    if (!gameOver(s)) completeAsk(rules, s, st, msg.time, askHooks(s, st));
  } else {
    onAskMessage(rules, s, st, msg, askHooks(s, st));
  }
  if (gameOver(s)) startAudit(s, st, msg.time);
  else actDecisionGame(rules, s, st);
}

/** Seed 000's protocol playing the games of `book` (docs/SPEC.md §7.3). */
export function keyedStreamMachine(book: GameBook = BUILTIN_GAMES): Machine<KeyedState> {
  return {
    protocol: 'keyed-stream',
    messages: KEYED_STREAM_MESSAGES,
    // The roller computes the mover's roll, so a plain game takes no actions; a decision game asks between rolls.
    decision: (state: KeyedState) => (isDecisionGame(state.rules) && state.phase === 'play' ? askDecision(state.rules, state, state.timeoutMs) : null),
    decide(state: KeyedState, choice: JsonValue, ctx: Ctx): StepResult<KeyedState> {
      if (!isDecisionGame(state.rules) || state.phase !== 'play' || askDecision(state.rules, state, state.timeoutMs) === null) return refuseDecision();
      const s = copy(state);
      const st = new Stepper();
      askDecide(state.rules, s, st, choice, ctx, {});
      return st.result(s);
    },

    // Everything but the rules is data; the histories go as arrays (a linked list would nest as deep as
    // the game is long), and the rules come back from the book by the game's name (docs/spec/mail.md §2.1).
    saveState(s: KeyedState): JsonValue {
      const { rules, history, ...data } = s;
      void rules;
      const ops: Record<string, Op[]> = {};
      for (const [p, list] of Object.entries(history)) ops[p] = opsOf(list);
      return { ...data, history: ops } as unknown as JsonValue;
    },

    loadState(saved: JsonValue): KeyedState {
      const data = saved as unknown as Omit<KeyedState, 'rules' | 'history'> & { history: Record<string, Op[]> };
      if (data === null || typeof data !== 'object' || typeof data.gameName !== 'string')
        throw new FairtableError('bad_input', 'a saved keyed-stream state names no game', { field: 'gameName' });
      const history: Record<string, OpList> = {};
      for (const [p, ops] of Object.entries(data.history)) history[p] = ops.reduce<OpList>(pushOp, null);
      return { ...data, history, rules: gameByName(data.gameName, book) };
    },

    init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<KeyedState> {
      const gameName = setup.game ?? 'dice';
      const players = setup.players.map((p) => p.id);
      const rules = gameByName(gameName, book);
      const s: KeyedState = {
        gameId,
        gameName,
        rules,
        timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
        skipLimit: intParam(setup.params, 'skipLimit', UNSTATED_SKIP_LIMIT, 1, 2 ** 32),
        game: rules.init(players, setup.params),
        order: players,
        active: [...players],
        phase: 'keys',
        phaseStart: setup.created,
        keys: {},
        turn: 0,
        mover: 0,
        pending: null,
        history: Object.fromEntries(players.map((p) => [p, null as OpList])),
        audited: {},
        forfeits: [],
        me,
        mine: null,
        claimed: null,
        auditEvery: intParam(setup.params, 'auditEvery', 0, 0, 2 ** 32),
        requests: [],
        requestCount: 0,
        keyless: {},
        spent: [],
        epochs: Object.fromEntries(players.map((p) => [p, 0])),
        answering: false,
        decisionMs: intParam(setup.params, 'decisionMs', intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40), 1, 2 ** 40),
        deadlines: deadlinesParam(setup.params),
        ask: null,
        mySeal: null,
        answered: -1,
        stepX: null,
        sentX: -1,
        sentRoll: -1,
        rolls: 0,
      };
      const st = new Stepper();
      if (me !== null && players.includes(me)) {
        const secret = ctx.random(32);
        s.mine = { secret: toHex(secret), consumed: 0 };
        st.send({ type: 'stream-key', key: toHex(ed25519.getPublicKey(secret)) });
      }
      return st.result(s);
    },

    step(state: KeyedState, msg: Accepted, ctx: Ctx): StepResult<KeyedState> {
      const st = new Stepper();
      const { envelope } = msg;
      const from = envelope.from;
      const body = envelope.body;
      if (body.type === 'setup' || !state.active.includes(from)) return st.result(state);
      const s = copy(state);
      if (s.phase === 'done') {
        // Players race to the end; what arrives after it changes nothing and is held against no one.
        return st.result(s);
      } else if (isDecisionGame(s.rules) && s.phase === 'play' && isDecisionGameBody(body)) {
        stepDecisionGame(s.rules, s, st, msg);
      } else if (body.type === 'stream-key' && s.phase === 'play' && s.keyless[from]) {
        takeNewKey(s, st, from, body.key, msg);
        afterForfeits(s, st, roller(state), msg.time);
      } else if (body.type === 'stream-key') {
        if (s.phase !== 'keys' || s.keys[from] !== undefined) st.violation('out_of_turn', from, msg, `${from} published a stream key outside the key phase`);
        else if (!isHex(body.key, 32) || !isStrictPublicKey(fromHex(body.key)))
          st.violation('bad_key', from, msg, `${from}'s stream key is not a usable Ed25519 public key`);
        else {
          s.keys[from] = body.key;
          if (s.active.every((p) => s.keys[p] !== undefined)) {
            s.phase = 'play';
            s.phaseStart = msg.time;
            s.mover = firstPlayerIndex(s.active.map((p) => s.keys[p]!));
            startWith(s);
            st.emit({ type: 'first-player', player: s.active[s.mover]! });
            actIfMine(s, st);
          }
        }
      } else if (body.type === 'turn') {
        const r = roller(s);
        if (r !== from || body.turn !== s.turn) {
          st.violation(
            'out_of_turn',
            from,
            msg,
            `${from} sent turn ${String(body.turn)}, but it is ${r === null ? `the ${s.phase} phase` : `${r}'s turn ${s.turn}`}`,
          );
          return st.result(s);
        }
        if (s.keyless[from]) {
          st.violation('out_of_turn', from, msg, `${from} sent turn ${s.turn} with no stream key: it revealed its last one and has not published the next`);
          return st.result(s);
        }
        if (s.pending !== null) {
          const roll = body.roll as { turn?: unknown; draws?: unknown } | null;
          const draws = roll?.draws;
          const gone = !s.active.includes(s.pending.mover);
          let next: unknown = null;
          try {
            if (!(gone && roll === null)) {
              if (roll === null || roll.turn !== s.pending.turn || !Array.isArray(draws)) throw new ScriptMismatch('no roll for the pending turn');
              if (gone) checkDrawList(draws);
              else next = playClaimed(s, s.pending.mover, draws as [number, number][]);
            }
          } catch (e) {
            if (!(e instanceof ScriptMismatch)) throw e;
            st.violation('wrong_result', from, msg, `${from}'s roll for ${s.pending.mover}'s turn ${s.pending.turn} is not a possible roll: ${e.message}`);
            forfeit(s, st, from, 'wrong_result');
            s.phaseStart = msg.time;
            if (gameOver(s)) startAudit(s, st, msg.time);
            else actIfMine(s, st);
            return st.result(s);
          }
          if (roll !== null) s.history[from] = pushOp(s.history[from] ?? null, { kind: 'roll', skip: s.pending.x, draws: draws as [number, number][] });
          if (!gone) {
            s.game = next;
            st.emit({ type: 'turn', turn: s.pending.turn, player: s.pending.mover, rolledBy: from, draws: canonicalize(draws) });
          }
          s.pending = null;
        }
        if (gameOver(s)) {
          startAudit(s, st, msg.time);
          return st.result(s);
        }
        if (typeof body.x !== 'number' || !Number.isSafeInteger(body.x) || body.x < 0 || body.x >= s.skipLimit) {
          st.violation('unexpected_message', from, msg, `${from}'s turn carries no X in [0, ${s.skipLimit})`);
          forfeit(s, st, from, 'unexpected_message');
        } else {
          s.history[from] = pushOp(s.history[from] ?? null, { kind: 'x', limit: s.skipLimit, value: body.x });
          s.pending = { turn: s.turn, mover: from, x: body.x };
          s.turn++;
          s.mover = (s.mover + 1) % s.active.length;
        }
        s.phaseStart = msg.time;
        s.claimed = null;
        if (gameOver(s)) startAudit(s, st, msg.time);
        else {
          const ends = actIfMine(s, st);
          // The request goes after our own turn (the turn's deadline is already running), unless that turn ends the game.
          const completed = s.pending !== null && s.pending.mover === from ? s.turn : 0;
          if (s.auditEvery > 0 && completed > 0 && completed % s.auditEvery === 0 && roller(s) === s.me && s.me !== from && !ends) {
            st.send({ type: 'audit-request', players: [from] });
          }
        }
      } else if (body.type === 'audit-request') {
        const named = body.players;
        // A request overtaken by the end of the game is stale, not wrong: the final audit covers it.
        if (s.phase === 'audit') return st.result(s);
        if (s.phase === 'keys') st.violation('out_of_turn', from, msg, `${from} asked for an audit before play began: no number has been drawn`);
        else if (
          !Array.isArray(named) ||
          named.length === 0 ||
          new Set(named).size !== named.length ||
          !named.every((p) => typeof p === 'string' && s.order.includes(p))
        ) {
          st.violation('unexpected_message', from, msg, `${from}'s audit request must name one or more distinct players of the game`);
        } else {
          // Names of players already out are a race with their forfeit, not an error.
          const waiting = (named as string[]).filter((p) => s.active.includes(p) && !s.keyless[p]);
          if (waiting.length > 0) {
            const n = s.requestCount++;
            s.requests.push({ n, by: from, time: msg.time, waiting, claimed: false });
            st.emit({ type: 'audit-request', n, by: from, players: waiting });
            answerIfNamed(s, st, waiting, ctx);
          }
        }
      } else if (body.type === 'audit' && s.phase === 'play') {
        if (from === s.me) s.answering = false;
        if (s.keyless[from]) {
          st.violation('out_of_turn', from, msg, `${from} sent an audit with no stream key to audit: it owes its next key`);
          return st.result(s);
        }
        const wasRoller = roller(s);
        if (checkSecret(s, st, from, body.secret, msg)) {
          const numbers = s.history[from]?.length ?? 0;
          s.spent.push(s.keys[from]!);
          s.history[from] = null;
          s.epochs[from] = (s.epochs[from] ?? 0) + 1;
          st.emit({ type: 'audited', player: from, numbers, epoch: s.epochs[from] });
          if (body.key === undefined || body.key === null) {
            // Revealed, but no next key yet: it may still send one as a stream-key before the request's deadline.
            s.keyless[from] = true;
          } else takeNewKey(s, st, from, body.key, msg);
        }
        afterForfeits(s, st, wasRoller, msg.time);
      } else if (body.type === 'audit') {
        if (from === s.me) s.answering = false;
        if (s.phase !== 'audit' || s.audited[from]) st.violation('out_of_turn', from, msg, `${from} sent an audit outside the audit phase`);
        else if (checkSecret(s, st, from, body.secret, msg)) s.audited[from] = true;
        if (s.active.every((p) => s.audited[p])) s.phase = 'done';
      } else if (isDeadlineBody(body) && body.phase === REQUEST_PHASE) {
        const r = s.requests.find((q) => q.n === body.round);
        if (s.phase !== 'play' || r === undefined) return st.result(s);
        const late = settleClaim(st, msg, body, requestView(s, r), { round: r.n, late: requestMissing(s, r), isOut: (p) => !s.active.includes(p) });
        if (late === null) return st.result(s);
        const wasRoller = roller(s);
        for (const p of late) {
          const what = s.keyless[p] ? 'publish its next stream key' : 'reveal its stream secret and publish a new key';
          st.violation('withheld', p, msg, `${p} did not ${what} within ${s.timeoutMs} ms of audit request ${r.n} by ${r.by}; claimed by ${from}`);
          forfeit(s, st, p, 'withheld');
        }
        s.requests = s.requests.filter((q) => q.n !== r.n);
        afterForfeits(s, st, wasRoller, msg.time);
      } else if (isDeadlineBody(body)) {
        const late = settleClaim(st, msg, body, s, { round: deadlineRound(s), late: missing(s), isOut: (p) => !s.active.includes(p) });
        if (late === null) return st.result(s);
        const phase = s.phase;
        for (const p of late) {
          // A key not yet published steers nothing; a turn or a secret withheld by one who knows what it shows does.
          st.withheld(
            p,
            phase !== 'keys',
            msg,
            `${p} did not ${phase === 'audit' ? 'reveal its stream secret' : phase === 'keys' ? 'publish a stream key' : `send turn ${s.turn}`} before the deadline; claimed by ${from}`,
          );
          forfeit(s, st, p, 'withheld');
        }
        s.phaseStart = msg.time;
        s.claimed = null;
        if (phase === 'audit') {
          if (s.active.every((p) => s.audited[p])) s.phase = 'done';
        } else if (phase === 'keys') {
          if (s.active.length > 0 && s.active.every((p) => s.keys[p] !== undefined)) {
            s.phase = 'play';
            s.mover = firstPlayerIndex(s.active.map((p) => s.keys[p]!));
            startWith(s);
            actIfMine(s, st);
          }
        } else if (gameOver(s)) startAudit(s, st, msg.time);
        else actIfMine(s, st);
      } else {
        st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which the keyed-stream protocol does not know`);
      }
      return st.result(s);
    },

    tick(state: KeyedState, ctx: Ctx): StepResult<KeyedState> {
      const seated = state.me !== null && state.active.includes(state.me);
      if (isDecisionGame(state.rules) && state.phase === 'play' && askMissing(state.rules, state).length > 0) {
        const { claim, key } = askTick(state.rules, state, ctx, state.timeoutMs);
        if (claim !== null) {
          const s = copy(state);
          s.claimed = key;
          return { state: s, out: [claim], events: [], violations: [] };
        }
      }
      const main = deadlineTick(state, ctx, { me: state.me, seated, round: deadlineRound(state), missing: () => missing(state) }, copy);
      if (state.phase !== 'play' || state.requests.length === 0) return main;
      // Older obligations first: a claim on an audit request names why the player stopped.
      const out = [];
      let s = main.state;
      for (const r of state.requests) {
        const claim = deadlineTick(requestView(state, r), ctx, { me: state.me, seated, round: r.n, missing: () => requestMissing(state, r) }, (v) => ({
          ...v,
        }));
        if (claim.out.length === 0) continue;
        if (s === state) s = copy(state);
        s.requests.find((q) => q.n === r.n)!.claimed = true;
        out.push(...claim.out);
      }
      return { state: s, out: [...out, ...main.out], events: main.events, violations: main.violations };
    },

    penalize(state: KeyedState, player: string, code: ViolationCode, _line: number, _ctx: Ctx, time: number): StepResult<KeyedState> {
      const st = new Stepper();
      if (!state.active.includes(player) || state.phase === 'done') return st.result(state);
      const s = copy(state);
      const wasRoller = roller(s) === player;
      forfeit(s, st, player, code);
      if (s.phase === 'play' && isDecisionGame(s.rules)) {
        afterForfeits(s, st, player, time);
      } else if (s.phase === 'play') {
        if (wasRoller) s.phaseStart = time;
        if (gameOver(s)) startAudit(s, st, time);
        else if (wasRoller) actIfMine(s, st);
      } else if (s.phase === 'audit' && s.active.every((p) => s.audited[p])) s.phase = 'done';
      return st.result(s);
    },

    outcome: turnsOutcome,
  };
}

export const keyedStream: Machine<KeyedState> = keyedStreamMachine();
