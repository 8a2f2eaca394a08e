/**
 * `fairtable audit FILE`: replays a whole game and prints the verdict
 * (docs/SPEC.md §9). Exit 0 the game ended with no rule broken (a player who
 * timed out is an absence, not a broken rule), 1 a rule broken, 2 unreadable
 * input, 3 in progress with no rule broken so far; with `--json`, exit 2 still
 * prints one JSON object so that scripts can tell.
 * A game whose machine lives outside the core (Diplomacy) is audited in this
 * process with its registry.
 * With the relay's key (`--relay-key`), FILE.receipts.jsonl and witness evidence
 * (`--witness`) are checked too and deadlines judged on receipt times
 * (docs/spec/relay.md §9).
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { isHex } from '@fairtable/core/bytes.js';
import { LineSplitter, MAX_LINE_BYTES, splitBytes, type TranscriptLine } from '@fairtable/core/lines.js';
import type { auditWithReceipts, RelayReport } from '@fairtable/core/order/censorship.js';
import type { Command } from 'commander';
import { auditFile } from '@fairtable/node/audit-file.js';
import type { Verdict } from '@fairtable/core/audit.js';
import type { Registry } from '@fairtable/core/registry.js';
import { fail, progressBar } from '../io.js';
import { byKind, consequence, exitCode, lineNote, meaning, standing, timedOut } from '../verdict-words.js';
import { violationKind } from '@fairtable/core/errors.js';

/** More verifying threads than this only adds memory; a typo such as 400 is refused rather than obeyed. */
const MAX_WORKERS = 64;

/**
 * Why `path` cannot be read as a transcript, in words with a code, or null when it is a file that can be
 * opened: a folder or any other thing that is not a file is `not_a_file`, a missing path `bad_input`, a
 * file that cannot be opened (permissions) `unreadable`.
 */
function pathProblem(path: string): { code: string; message: string } | null {
  let isFile: boolean;
  try {
    const st = statSync(path);
    if (st.isDirectory()) return { code: 'not_a_file', message: `${path} is a folder: give a transcript file` };
    isFile = st.isFile();
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { code: 'bad_input', message: `${path}: no such file` };
    return { code: 'unreadable', message: `${path} cannot be read (${typeof code === 'string' ? code : (e as Error).message})` };
  }
  if (!isFile) return { code: 'not_a_file', message: `${path} is not a file (a device, a socket or a pipe): give a transcript file` };
  try {
    closeSync(openSync(path, 'r'));
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    return { code: 'unreadable', message: `${path} cannot be read (${code === 'EACCES' || code === 'EPERM' ? 'permission denied' : (e as Error).message})` };
  }
  return null;
}

/**
 * The first line of a transcript file by the rule every reader follows (docs/SPEC.md §4.5, core's
 * `lines.ts`: a byte order mark and blank lines are not lines); null when the file holds none, or when its
 * first line is longer than a line may be (the auditor then reads it as `malformed`). Reads past the blank
 * lines and at most one line's worth beyond them.
 */
const isBlank = (b: number): boolean => b === 0x20 || b === 0x09 || b === 0x0d || b === 0x0a;

function firstLine(file: string): TranscriptLine | null {
  const fd = openSync(file, 'r');
  const splitter = new LineSplitter();
  let first: TranscriptLine | null = null;
  const take = (line: TranscriptLine): void => void (first ??= line);
  let offset = 0;
  /** Bytes read since the first one that is neither the BOM nor blank (space, tab, CR, LF); null before it. */
  let content: number | null = null;
  try {
    const chunk = Buffer.alloc(64 * 1024);
    for (let n = readSync(fd, chunk, 0, chunk.length, null); n > 0; n = readSync(fd, chunk, 0, chunk.length, null)) {
      let i = 0;
      if (content === null) {
        if (offset === 0 && n >= 3 && chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) i = 3;
        while (i < n && isBlank(chunk[i]!)) i++;
        if (i < n) content = 0;
      }
      offset += n;
      splitter.push(chunk.subarray(0, n), take);
      if (first !== null) break;
      if (content !== null && (content += n - i) > MAX_LINE_BYTES + 2) return null;
    }
    if (first === null) splitter.end(take);
  } finally {
    closeSync(fd);
  }
  return first;
}

/** The setup of a transcript's line 0 (read by the line rule, docs/SPEC.md §4.5), or undefined. */
function setupOf(file: string): { protocol?: unknown; params?: { [key: string]: unknown } } | undefined {
  const line = firstLine(file);
  if (line === null || line.problem !== null) return undefined; // the auditor reports what is wrong with line 0
  try {
    return (JSON.parse(line.text) as { body?: { setup?: { protocol?: unknown; params?: { [key: string]: unknown } } } }).body?.setup;
  } catch {
    return undefined; // the file auditor reports what is wrong with line 0
  }
}

/**
 * The registry for a transcript whose setup names a protocol from outside the core's built-ins, or null.
 * Loaded only then: the usual audit runs in its own threads, and this thread need not load every protocol.
 */
async function externalRegistry(file: string): Promise<Registry | null> {
  const protocol = setupOf(file)?.protocol;
  return protocol === 'diplomacy' || protocol === 'holdem' || protocol === 'crazy-eights' ? (await import('../registry.js')).cliRegistry : null;
}

/**
 * What to do first when FILE is a transcript still in its e-mail wrapping (armored, or encrypted with
 * OpenPGP), or null: a reader who saved the mail should hear how to unwrap it, not that line 0 is bad JSON.
 */
function wrapping(file: string): string | null {
  const fd = openSync(file, 'r');
  const head = Buffer.alloc(64 * 1024);
  const n = readSync(fd, head, 0, head.length, 0);
  closeSync(fd);
  // A byte order mark and blank lines before the first line are allowed (docs/SPEC.md §4.5).
  const text = head
    .subarray(0, n)
    .toString('utf8')
    .replace(/^\uFEFF?[ \t\r\n]*/, '');
  if (text.startsWith('{')) return null;
  if (text.includes('-----BEGIN FAIRTABLE MESSAGE-----'))
    return `an armored message (as mailed), not a transcript: fairtable dearmor ${file} > game.jsonl, then fairtable audit game.jsonl`;
  if (text.includes('-----BEGIN PGP MESSAGE-----'))
    return `an OpenPGP-encrypted message: fairtable pgp decrypt --key YOUR-SECRET-KEY.asc ${file} (or gpg --decrypt), then dearmor and audit what it holds`;
  return null;
}

/** The verdict as `--json` prints it (a violation names its relay when a relay is at fault). */
function verdictJson(verdict: Verdict): Record<string, unknown> {
  const violations = verdict.violations.map((v) => ({
    code: v.code,
    player: v.player,
    ...(v.relay === undefined ? {} : { relay: v.relay }),
    seq: v.seq,
    kind: violationKind(v),
    message: v.message,
    evidence: v.evidence,
  }));
  return {
    valid: verdict.valid,
    finished: verdict.finished,
    inProgress: verdict.inProgress,
    violations,
    omitted: verdict.omitted,
    game: verdict.gameId,
    protocol: verdict.protocol,
    lines: verdict.lines,
    outcome: verdict.outcome,
    alteredAt: verdict.alteredAt,
  };
}

function printHuman(verdict: Verdict): void {
  const out: string[] = [];
  out.push(`game ${verdict.gameId} (${verdict.protocol}), ${verdict.lines} lines`);
  if (verdict.outcome !== null) {
    out.push(
      `outcome: winners ${verdict.outcome.winners.join(', ') || '(none)'}${verdict.outcome.forfeits.length ? `; forfeited: ${verdict.outcome.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}` : ''}`,
    );
    const board = standing(verdict.outcome.summary);
    if (board !== null) out.push(`  ${board}`);
  }
  const { rules, absences } = byKind(verdict);
  if (verdict.valid && verdict.inProgress) out.push(`IN PROGRESS: ${verdict.lines} lines so far check; the game has not ended, and no rule is broken so far`);
  else if (verdict.valid) out.push('VALID: every envelope is signed, in place and by the rules');
  if (absences.length > 0) {
    // An absence is not rule breaking (docs/SPEC.md §12): said apart, with what the game did about it.
    out.push(`timed out (not rule breaking): ${absences.length}`);
    for (const v of absences) out.push(`  ${timedOut(verdict, v)}`, `      ${v.message}`);
    out.push(`      what it means: ${meaning('withheld', 'absence')}`);
  }
  if (!verdict.valid) {
    const more = verdict.omitted > 0 ? ` (and ${verdict.omitted} more, counted but not kept)` : '';
    out.push(`INVALID: rule breaking seen: ${rules.length + verdict.omitted} violation(s)${more}`);
    if (verdict.inProgress) out.push(`  (the game has not ended: ${verdict.lines} lines read)`);
    if (verdict.alteredAt !== null) {
      out.push(
        `  the log was altered after its envelopes were signed (first seen at line ${verdict.alteredAt}): the game is not judged on it and no player is named for it; audit another copy (docs/SPEC.md §4.4)`,
      );
    }
    // Each code is explained once, at its first violation, so a long list stays a list.
    const explained = new Set<string>();
    for (const v of rules) {
      out.push(`  line ${v.seq}  ${v.code}  ${v.player ?? (v.relay !== undefined ? `relay ${v.relay}` : '(nobody can be named)')}: ${v.message}`);
      for (const e of v.evidence) out.push(`      evidence: line ${e.line ?? '?'}${e.hash ? ` hash ${e.hash}` : ''}${e.note ? ` ${e.note}` : ''}`);
      const words = explained.has(v.code) ? null : meaning(v.code);
      explained.add(v.code);
      if (words !== null) out.push(`      what it means: ${v.code}: ${words}`);
      const result = consequence(verdict, v.player);
      if (result !== null) out.push(`      for the outcome: ${result}`);
    }
  }
  const first = rules[0] ?? absences[0];
  if (first !== undefined) out.push(lineNote(first.seq));
  process.stdout.write(out.join('\n') + '\n');
}

export function register(program: Command): void {
  program
    .command('audit')
    .description('replay a transcript and print its verdict (exit 0 valid, 1 a rule broken, 2 unreadable, 3 in progress)')
    .argument('<file>', 'transcript (JSON Lines)')
    .option(
      '--json',
      'print {"valid", "finished", "inProgress", "violations": [{"code", "player", "seq", "kind", "message", "evidence"}], "omitted", …}, or {"valid": false, "error": {"code", "message"}} on exit 2',
    )
    .option('--workers <n>', `verification threads, 1 to ${MAX_WORKERS} (default: the machine's cores less one)`)
    .option('--relay-key <hex>', "the ordering relay's public key: check FILE.receipts.jsonl and judge deadlines on its receipt times")
    .option(
      '--witness <file>',
      'evidence records {relay, text, receipt} from a witness relay or a player (JSON Lines); may be given several times',
      (value: string, previous: string[] = []) => [...previous, value],
    )
    .option(
      '--untrusted-relay',
      "check the receipts but do not believe the relay's clock alone: a deadline names a player only where the players' own times and the receipt times agree",
    )
    .action(async (file: string, opts: { json?: boolean; workers?: string; relayKey?: string; witness?: string[]; untrustedRelay?: boolean }) => {
      // One way out for unreadable input: a message on stderr, and with --json the same as an object on stdout.
      const unreadable = (code: string, message: string): never => {
        if (opts.json === true) process.stdout.write(JSON.stringify({ valid: false, error: { code, message } }) + '\n');
        return fail(`[${code}] ${message}`);
      };
      let workers: number | undefined;
      if (opts.workers !== undefined) {
        workers = Number(opts.workers);
        if (!/^[0-9]+$/.test(opts.workers) || workers < 1 || workers > MAX_WORKERS) {
          unreadable('out_of_range', `--workers must be a whole number from 1 to ${MAX_WORKERS}, not "${opts.workers}"`);
        }
      }
      const problem = pathProblem(file);
      if (problem !== null) unreadable(problem.code, problem.message);
      const wrapped = wrapping(file);
      if (wrapped !== null) unreadable('bad_input', `${file}: ${wrapped}`);
      if (opts.relayKey !== undefined) {
        if (!isHex(opts.relayKey, 32)) unreadable('bad_hex', '--relay-key must be 64 hex digits');
        return auditOrdered(file, opts.relayKey, opts.witness ?? [], opts.untrustedRelay !== true, opts.json === true, unreadable);
      }
      // A game bound to its relay (docs/spec/time.md §5) is judged on that relay's receipts when they are beside it.
      const bound = setupOf(file)?.params?.relay;
      if (isHex(bound, 32) && existsSync(`${file}.receipts.jsonl`))
        return auditOrdered(file, bound as string, opts.witness ?? [], opts.untrustedRelay !== true, opts.json === true, unreadable);
      if (opts.witness !== undefined) unreadable('bad_input', "--witness needs --relay-key: evidence is weighed against the ordering relay's receipts");
      if (existsSync(`${file}.receipts.jsonl`) && opts.json !== true)
        process.stderr.write(`note: ${file}.receipts.jsonl is not checked without --relay-key; deadlines are judged on the players' own times\n`);
      const bar = progressBar('auditing');
      let verdict: Verdict;
      try {
        const registry = await externalRegistry(file);
        verdict =
          registry !== null
            ? (await import('@fairtable/core/audit.js')).auditText(readFileSync(file), { registry })
            : await auditFile(file, {
                ...(workers !== undefined ? { workers } : {}),
                onProgress: (done, total, lines) => bar.update(done, total, `${lines} lines`),
              });
      } catch (e) {
        bar.finish();
        const err = e as { code?: string; message?: string };
        return unreadable(err.code ?? 'bad_input', `${file}: ${err.message ?? String(e)}`);
      }
      bar.finish();
      if (opts.json === true) process.stdout.write(JSON.stringify(verdictJson(verdict)) + '\n');
      else printHuman(verdict);
      process.exitCode = exitCode(verdict);
    });
}

/** JSON Lines of a file, each parsed (a line that is not JSON stays a string, and is then no receipt). */
function jsonLines(path: string): unknown[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l): unknown => {
      try {
        return JSON.parse(l) as unknown;
      } catch {
        return l;
      }
    });
}

/**
 * The audit of a game played through a relay (docs/spec/relay.md §9): the whole file in memory, on one
 * thread, with the receipts beside it and the witness evidence given.
 */
async function auditOrdered(
  file: string,
  relayKey: string,
  witnessFiles: readonly string[],
  trustTime: boolean,
  json: boolean,
  unreadable: (code: string, message: string) => never,
): Promise<void> {
  const lines = splitBytes(readFileSync(file)).map((l) => l.text);
  if (lines.length === 0) unreadable('bad_input', `${file}: the transcript is empty: it starts with its setup envelope`);
  const receiptsFile = `${file}.receipts.jsonl`;
  const receiptsProblem = existsSync(receiptsFile) ? pathProblem(receiptsFile) : null;
  if (receiptsProblem !== null) unreadable(receiptsProblem.code, receiptsProblem.message);
  const receipts = existsSync(receiptsFile) ? jsonLines(receiptsFile) : [];
  const records: unknown[] = [];
  for (const w of witnessFiles) {
    const problem = pathProblem(w);
    if (problem !== null) unreadable(problem.code, problem.message);
    records.push(...jsonLines(w));
  }
  let verdict: ReturnType<typeof auditWithReceipts>;
  try {
    const registry = await externalRegistry(file);
    const [{ auditWithReceipts }, { nativeVerify }] = await Promise.all([
      import('@fairtable/core/order/censorship.js'),
      import('@fairtable/node/native-verify.js'),
    ]);
    verdict = auditWithReceipts(
      lines,
      { orderer: relayKey, receipts, records, trustTime },
      { verify: nativeVerify, ...(registry === null ? {} : { registry }) },
    );
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return unreadable(err.code ?? 'bad_input', `${file}: ${err.message ?? String(e)}`);
  }
  if (json) process.stdout.write(JSON.stringify({ ...verdictJson(verdict), relay: verdict.relay }) + '\n');
  else {
    printHuman(verdict);
    process.stdout.write(relaySummary(verdict.relay, receipts.length) + '\n');
  }
  process.exitCode = exitCode(verdict);
}

function relaySummary(r: RelayReport, receipts: number): string {
  const out = [
    `relay ${r.orderer}: ${r.receipted} of the lines carry a receipt that fits the log (${receipts} receipts read); deadlines judged on ${r.timed ? 'receipt times' : "the players' own times"}`,
  ];
  if (r.refused !== null) out.push(`refused [${r.refused.code}]: ${r.refused.message}`);
  if (r.boundTo === null) out.push("the setup names no ordering relay (unbound): any relay's receipts are weighed");
  if (r.witnesses.length > 0) out.push(`witnesses named by the setup: ${r.witnesses.join(', ')}; evidence records used: ${r.recordsUsed}`);
  else out.push("no witness relay: whether a move reached the relay rests on the relay's word only");
  for (const why of r.recordsIgnored.slice(0, 20)) out.push(`  set aside: ${why}`);
  if (r.faultAt !== null) out.push(`the relay's own signatures convict it from line ${r.faultAt}: the game is not decided on this log`);
  return out.join('\n');
}
