/**
 * The relay's SQLite store with its appends on a thread of their own (docs/spec/relay.md §4 and "The pipeline"): the
 * same database and schema as `SqliteStore`, which still does everything else on the caller's thread
 * (creating games, reads, the key), while each `append` goes to `sqlite-append-thread.ts` and resolves
 * once that thread's transaction has committed. The commit, with its sync to disk, no longer stops the
 * event loop. SQLite's WAL lets the reads go on while the thread writes.
 *
 * `synchronous`: FULL (the default) syncs the WAL at every commit, so an acknowledged line survives a
 * crash of the process and a loss of power; NORMAL syncs only at checkpoints, so it survives the
 * process being killed (the OS holds the written WAL) but not a power loss. Why FULL is the default:
 * docs/spec/relay.md, "The pipeline".
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { FairtableError } from '@fairtable/core/errors.js';
import { Awaiting } from './awaiting.js';
import type { AppendBatch, AppendDone, SignBatch } from './sqlite-append-thread.js';
import { SqliteStore } from './sqlite-store.js';
import type { BatchSignature, LineToSign, LineToStore } from './store.js';

export interface ThreadedSqliteOptions {
  readonly synchronous?: 'FULL' | 'NORMAL';
}

function threadFile(): string {
  const here = fileURLToPath(import.meta.url);
  const file = here.endsWith('.ts')
    ? fileURLToPath(new URL('../dist/sqlite-append-thread.js', import.meta.url))
    : fileURLToPath(new URL('./sqlite-append-thread.js', import.meta.url));
  if (!existsSync(file)) throw new FairtableError('bad_input', `the relay's writing thread is not built (${file}); run npm run build`);
  return file;
}

export class ThreadedSqliteStore extends SqliteStore {
  private readonly worker: Worker;
  /** Appends sent and not yet answered (not a Map: awaiting.ts says why). */
  private readonly waiting = new Awaiting<{ resolve: (done: AppendDone) => void; reject: (e: unknown) => void }>();
  private nextId = 0;
  private broken: Error | null = null;
  private closing = false;
  private last: Promise<void> = Promise.resolve();

  constructor(dataDir: string, options: ThreadedSqliteOptions = {}) {
    // The schema is made (or found) here, before the thread opens the file.
    super(dataDir);
    this.worker = new Worker(threadFile(), {
      workerData: { file: join(dataDir, 'relay.sqlite'), synchronous: options.synchronous ?? 'FULL' },
      resourceLimits: { maxYoungGenerationSizeMb: 8 },
    });
    this.worker.on('message', (m: AppendDone) => {
      const w = this.waiting.take(m.id);
      if (w === undefined) return;
      if (m.error === undefined) w.resolve(m);
      else w.reject(new FairtableError('store_failed', `the append failed: ${m.error}`));
    });
    const fail = (e: Error): void => {
      if (this.broken !== null || this.closing) return;
      this.broken = e;
      for (const w of this.waiting.takeAll()) w.reject(e);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`the relay's writing thread exited (${code})`)));
  }

  override append(lines: readonly LineToStore[]): Promise<void> {
    if (this.broken !== null) return Promise.reject(this.broken);
    const rows: (string | number)[] = new Array<string | number>(lines.length * 4);
    let i = 0;
    for (const l of lines) {
      rows[i++] = l.game;
      rows[i++] = l.line;
      rows[i++] = l.text;
      rows[i++] = JSON.stringify(l.receipt);
    }
    return this.post({ id: this.nextId++, rows }).then(() => {});
  }

  /** The receipts are signed on the writing thread, in the transaction that stores them (sqlite-append-thread.ts). */
  appendSigning(lines: readonly LineToSign[], secretKey: Uint8Array): Promise<BatchSignature> {
    if (this.broken !== null) return Promise.reject(this.broken);
    const sign: (string | number)[] = new Array<string | number>(lines.length * 6);
    let i = 0;
    for (const l of lines) {
      sign[i++] = l.game;
      sign[i++] = l.line;
      sign[i++] = l.text;
      sign[i++] = l.receipt.hash;
      sign[i++] = l.receipt.log;
      sign[i++] = l.receipt.time;
    }
    return this.post({ id: this.nextId++, sign, key: secretKey }).then(({ sig, paths }) => {
      if (sig === undefined || paths === undefined || paths.length !== lines.length)
        throw new FairtableError('store_failed', 'the writing thread did not sign every receipt');
      return { sig, paths };
    });
  }

  private post(batch: AppendBatch | SignBatch): Promise<AppendDone> {
    const appended = new Promise<AppendDone>((resolve, reject) => {
      this.waiting.add(batch.id, { resolve, reject });
      this.worker.postMessage(batch);
    });
    this.last = appended.then(
      () => {},
      () => {},
    );
    return appended;
  }

  override async close(): Promise<void> {
    // The thread takes appends in order: once the last one sent has settled, every one has.
    await this.last;
    this.closing = true;
    await this.worker.terminate();
    await super.close();
  }
}
