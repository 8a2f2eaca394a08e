/**
 * The `fairtable` command run inside the calling process, for tests that run it hundreds of times: a process
 * of its own spends 0.3–0.5 s starting before a `mail` command does any work, most of that command's time.
 *
 * The run gets what a process started as `fairtable ARGS` in `cwd` gets: the same program (`runFairtable`,
 * as `main.ts` runs it, with Node's SHA-256), the working folder, standard input read whole (an empty one
 * when `input` is not given, as `spawnSync` gives) and this process's environment. What a process
 * leaves comes back: stdout, stderr and the exit status. `process.exit` ends the run as it ends a process:
 * its status is the status, and whatever the command would do or write after it is not seen. An error the
 * command throws is reported as `main.ts` reports it (one `[code] message` line, status 2).
 *
 * Not for: a command that reads standard input as a stream (`process.stdin`), starts worker threads or a
 * server, or leaves work running after its action returns (relay, play, talk, an audit given `--workers`
 * or a file over `ONE_THREAD_BYTES`; `audit FILE` of a small file runs on the calling thread and may run
 * here). Those, and the command's own start-up, are tested as processes. Runs are one at a time: each swaps process-wide hooks
 * (stdout, stderr, exit, the working folder, `readFileSync` of descriptor 0) and puts them back after.
 */
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { reportFailure, runFairtable } from './program.js';

export interface InProcessRun {
  readonly status: number;
  readonly stdout: string;
  readonly stderr: string;
}

export interface InProcessOptions {
  /** The working folder (the test's own when not given). */
  readonly cwd?: string;
  /** Standard input, read whole by the command (`-` as a file). */
  readonly input?: string;
}

/** What `process.exit` throws during a run, to unwind the command's stack as the process's end would. */
class Exited extends Error {
  constructor(readonly status: number) {
    super(`process.exit(${status})`);
  }
}

/** node:fs as CommonJS sees it: the object whose `readFileSync` the ES modules' binding follows after `syncBuiltinESMExports`. */
const fs = createRequire(import.meta.url)('node:fs') as typeof import('node:fs');

let running = false;

function text(chunk: unknown, encoding: unknown): string {
  if (typeof chunk === 'string') return chunk;
  const bytes = chunk as Uint8Array;
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString(typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
}

/** Runs `fairtable ARGS` inside this process (see the module's comment for what it is given and not). */
export async function runInProcess(args: readonly string[], options: InProcessOptions = {}): Promise<InProcessRun> {
  if (running) throw new Error('runInProcess: one run at a time');
  running = true;
  let stdout = '';
  let stderr = '';
  let exited: number | undefined;
  const saved = {
    out: process.stdout.write,
    err: process.stderr.write,
    exit: process.exit,
    exitCode: process.exitCode,
    cwd: process.cwd(),
    readFileSync: fs.readFileSync,
  };
  const writer =
    (to: 'out' | 'err') =>
    (chunk: unknown, encoding?: unknown, done?: unknown): boolean => {
      if (exited === undefined) {
        if (to === 'out') stdout += text(chunk, encoding);
        else stderr += text(chunk, encoding);
      }
      const callback = typeof encoding === 'function' ? encoding : done;
      if (typeof callback === 'function') queueMicrotask(() => (callback as () => void)());
      return true;
    };
  const input = Buffer.from(options.input ?? '', 'utf8');
  const readFileSync = ((path: unknown, how?: unknown): string | Buffer => {
    if (path !== 0) return (saved.readFileSync as (p: unknown, o?: unknown) => string | Buffer)(path, how);
    const encoding = typeof how === 'string' ? how : (how as { encoding?: BufferEncoding | null } | undefined)?.encoding;
    return encoding ? input.toString(encoding as BufferEncoding) : Buffer.from(input);
  }) as typeof fs.readFileSync;
  try {
    process.stdout.write = writer('out') as typeof process.stdout.write;
    process.stderr.write = writer('err') as typeof process.stderr.write;
    process.exit = ((code?: number | string | null) => {
      exited ??= code === undefined || code === null ? Number(process.exitCode ?? 0) : Number(code);
      throw new Exited(exited);
    }) as typeof process.exit;
    process.exitCode = undefined;
    fs.readFileSync = readFileSync;
    syncBuiltinESMExports();
    if (options.cwd !== undefined) process.chdir(options.cwd);
    useNativeCrypto();
    try {
      await runFairtable(['node', 'fairtable', ...args]);
    } catch (error) {
      if (exited === undefined && !(error instanceof Exited)) reportFailure(error);
    }
    return { status: exited ?? Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.chdir(saved.cwd);
    fs.readFileSync = saved.readFileSync;
    syncBuiltinESMExports();
    process.exitCode = saved.exitCode;
    process.exit = saved.exit;
    process.stderr.write = saved.err;
    process.stdout.write = saved.out;
    running = false;
  }
}
