/**
 * The auditor for a page (docs/spec/explain.md §4): core's `Auditor`, the one
 * the CLI's `fairtable audit` runs (docs/SPEC.md §9), fed in slices that yield
 * to the event loop so that a page stays responsive while a long transcript is
 * checked. Lines are cut by core's lines.ts rule (§4.5), signatures are
 * checked by an injected `Verifier` (noble by default, WebCrypto where
 * `webCryptoVerifier` finds it), and the result has the shape of
 * `fairtable audit --json`.
 */
import { Auditor, emptyTranscript, setupText, type Verdict } from '@fairtable/core/audit.js';
import type { Registry } from '@fairtable/core/registry.js';
import { violationKind, type Evidence, type ViolationCode, type ViolationKind } from '@fairtable/core/errors.js';
import { verify as nobleVerify } from '@fairtable/core/identity.js';
import { evidenceOfLine, linesNamed, withLineEvidence, type LineEvidence } from '@fairtable/core/evidence-lines.js';
import { LineSplitter, splitText, type TranscriptLine } from '@fairtable/core/lines.js';
import type { Outcome } from '@fairtable/core/protocols/machine.js';
import { prepareLine, unreadableLine, type PreparedLine } from '@fairtable/core/transcript.js';

/**
 * Checks one Ed25519 signature by the rule of docs/SPEC.md §3.2. A verifier may answer at once or later;
 * whatever it answers must be what the noble rule answers.
 */
export interface Verifier {
  /** Shown beside the figures: "noble", "webcrypto". */
  readonly name: string;
  verify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean | Promise<boolean>;
}

/** The rule itself, in JavaScript: works everywhere, including pages without `crypto.subtle`. */
export const nobleVerifier: Verifier = { name: 'noble', verify: nobleVerify };

/** One violation as `fairtable audit --json` prints it. */
export interface AuditViolation {
  readonly code: ViolationCode;
  readonly player: string | null;
  readonly seq: number;
  /** `rule`: a rule broken; `absence`: a deadline missed, "timed out" (docs/SPEC.md §12). */
  readonly kind: ViolationKind;
  readonly message: string;
  readonly evidence: readonly Evidence[];
}

/** A verdict, as `fairtable audit --json` prints it (exit 0, 1 or 3). */
export interface AuditVerdict {
  /** No rule broken on the lines read; absences and a game in progress leave it true. */
  readonly valid: boolean;
  /** True when the game has ended on these lines. */
  readonly finished: boolean;
  /** True when the transcript stops before the game does: "in progress, N lines so far check". */
  readonly inProgress: boolean;
  readonly violations: readonly AuditViolation[];
  readonly omitted: number;
  readonly game: string;
  readonly protocol: string;
  readonly lines: number;
  readonly outcome: Outcome | null;
  readonly alteredAt: number | null;
}

/** A transcript that could not be audited at all (the CLI's exit 2), in the CLI's --json shape. */
export interface AuditUnreadable {
  readonly valid: false;
  readonly error: { readonly code: string; readonly message: string };
}

export type AuditResult = AuditVerdict | AuditUnreadable;

export interface AuditOptions {
  /** Called after each slice: `done` of `total`, counted in the input's units (characters of text, or bytes). */
  onProgress?(done: number, total: number): void;
  /** Signature checks; noble when left out. */
  verifier?: Verifier;
  /** Stops the audit between slices: the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /** The machines a protocol from outside the core needs (Diplomacy's); the built-ins when left out. */
  registry?: Registry;
}

/** The CLI's --json object for a verdict (packages/cli/src/commands/audit.ts prints the same members). */
export function verdictJson(verdict: Verdict): AuditVerdict {
  return {
    valid: verdict.valid,
    finished: verdict.finished,
    inProgress: verdict.inProgress,
    violations: verdict.violations.map((v) => ({
      code: v.code,
      player: v.player,
      seq: v.seq,
      kind: violationKind(v),
      message: v.message,
      evidence: v.evidence,
    })),
    omitted: verdict.omitted,
    game: verdict.gameId,
    protocol: verdict.protocol,
    lines: verdict.lines,
    outcome: verdict.outcome,
    alteredAt: verdict.alteredAt,
  };
}

/** How long one slice may hold the thread before the page gets it back (ms): about one frame. */
const SLICE_MS = 12;
/** Lines prepared together: their signatures go to the verifier at once, so an asynchronous one can overlap them. */
const BATCH_LINES = 32;
/**
 * Lines between looks at the clock when the verifier answers at once (noble: over a millisecond a line in a
 * page): nothing is gained by gathering its answers, and 32 of them would hold the page for a frame or more.
 */
const SYNC_BATCH_LINES = 4;
/** Bytes of a file handed to the line splitter at a time. */
const CHUNK_BYTES = 1 << 18;

const clock = (): number => globalThis.performance?.now() ?? Date.now();

/**
 * Gives the event loop a turn. A MessageChannel round trip is not clamped the way nested timers are (4 ms
 * each after five), which would add seconds to a long audit.
 */
function yieldToPage(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  if (typeof MessageChannel === 'function') {
    return new Promise((resolve) => {
      const channel = new MessageChannel();
      channel.port1.onmessage = () => {
        channel.port1.close();
        resolve();
      };
      channel.port2.postMessage(null);
    });
  }
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Lines of the input, one at a time, with how far into the input each ends. */
function* linesOf(input: string | Uint8Array): Generator<{ line: TranscriptLine; done: number }> {
  if (typeof input === 'string') {
    // splitText cuts by §4.5; the position is estimated from the text consumed, for progress only.
    let done = 0;
    for (const line of splitText(input, true)) {
      done = Math.min(input.length, done + line.text.length + 1);
      yield { line, done };
    }
    return;
  }
  const splitter = new LineSplitter();
  const ready: TranscriptLine[] = [];
  const take = (line: TranscriptLine): number => ready.push(line);
  for (let at = 0; at < input.length; at += CHUNK_BYTES) {
    splitter.push(input.subarray(at, at + CHUNK_BYTES), take);
    const done = Math.min(input.length, at + CHUNK_BYTES);
    for (const line of ready.splice(0)) yield { line, done };
  }
  splitter.end(take);
  for (const line of ready.splice(0)) yield { line, done: input.length };
}

/**
 * Prepares a batch of lines: parsing, hashing and the signature check by `verifier`. Core's prepareLine
 * asks a synchronous function; an asynchronous verifier's answers are gathered first and put in after.
 */
async function prepareBatch(
  batch: readonly { line: TranscriptLine; n: number }[],
  keys: ReadonlyMap<string, Uint8Array>,
  verifier: Verifier,
): Promise<{ prepared: PreparedLine[]; synchronous: boolean }> {
  const answers: (boolean | Promise<boolean>)[] = [];
  const prepared = batch.map(({ line, n }) => {
    if (line.problem !== null) return { prepared: unreadableLine(n, line.text, line.problem), answer: -1 };
    let answer = -1;
    const p = prepareLine(n, line.text, keys, (sig, msg, key) => {
      answer = answers.push(verifier.verify(sig, msg, key)) - 1;
      return false;
    });
    return { prepared: p, answer };
  });
  const synchronous = answers.every((a) => typeof a === 'boolean');
  const settled = synchronous ? (answers as boolean[]) : await Promise.all(answers);
  return { prepared: prepared.map(({ prepared: p, answer }) => (answer < 0 ? p : { ...p, sigOk: settled[answer] === true })), synchronous };
}

async function runAudit(input: string | Uint8Array, options: AuditOptions): Promise<Verdict> {
  const verifier = options.verifier ?? nobleVerifier;
  const total = input.length;
  let auditor: Auditor | null = null;
  let batch: { line: TranscriptLine; n: number }[] = [];
  let sliceStart = clock();
  let done = 0;
  let batchLines = BATCH_LINES;
  const flush = async (): Promise<void> => {
    if (batch.length === 0 || auditor === null) return;
    const { prepared, synchronous } = await prepareBatch(batch, auditor.referee.checker.keys, verifier);
    batch = [];
    batchLines = synchronous ? SYNC_BATCH_LINES : BATCH_LINES;
    for (const p of prepared) auditor.addPrepared(p);
  };
  const pause = async (): Promise<void> => {
    options.onProgress?.(done, total);
    await yieldToPage();
    options.signal?.throwIfAborted();
    sliceStart = clock();
  };
  options.signal?.throwIfAborted();
  for (const { line, done: at } of linesOf(input)) {
    done = at;
    if (auditor === null) {
      auditor = new Auditor(setupText(line), options.registry === undefined ? {} : { registry: options.registry });
      continue;
    }
    batch.push({ line, n: auditor.nextLine + batch.length });
    if (batch.length >= batchLines) {
      await flush();
      if (clock() - sliceStart >= SLICE_MS) await pause();
    }
  }
  if (auditor === null) throw emptyTranscript();
  await flush();
  done = total;
  options.onProgress?.(done, total);
  return auditor.verdict();
}

/**
 * Puts in the envelope of every evidence line that names only its line number, as the file auditor's
 * second pass does, read by the strict reader (a line named as evidence may be anything).
 */
async function fillEvidence(input: string | Uint8Array, verdict: Verdict, options: AuditOptions): Promise<Verdict> {
  const wanted = linesNamed(verdict.violations);
  if (wanted.size === 0) return verdict;
  const found = new Map<number, LineEvidence>();
  let n = 0;
  let sliceStart = clock();
  for (const { line } of linesOf(input)) {
    if (wanted.has(n)) found.set(n, evidenceOfLine(line, n));
    n++;
    if ((n & 1023) === 0 && clock() - sliceStart >= SLICE_MS) {
      await yieldToPage();
      options.signal?.throwIfAborted();
      sliceStart = clock();
    }
  }
  const violations = withLineEvidence(verdict.violations, found);
  return { ...verdict, violations };
}

/**
 * Audits a whole transcript (its text, or the bytes of its file) by the rules of `fairtable audit`, in
 * slices that give the page the thread back about every frame. Resolves to the CLI's --json object: the
 * verdict, or `{valid: false, error}` when the transcript cannot be audited at all (no readable setup).
 * Rejects only when `signal` aborts it.
 */
export async function auditTranscript(input: string | Uint8Array, options: AuditOptions = {}): Promise<AuditResult> {
  try {
    return verdictJson(await fillEvidence(input, await runAudit(input, options), options));
  } catch (e) {
    if (options.signal?.aborted === true && e === options.signal.reason) throw e;
    const err = e as { code?: unknown; message?: unknown };
    if (typeof err.code === 'string' && typeof err.message === 'string') return { valid: false, error: { code: err.code, message: err.message } };
    throw e;
  }
}
