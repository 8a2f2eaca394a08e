/**
 * Threads named for the operating system (thread-name.ts): a worker that names itself shows that name in
 * /proc, and the thread that started it keeps its own. That the relay's threads name themselves is checked where
 * the relay runs as a process (packages/cli/src/relay-command.test.ts).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { nameThisThread, threadName } from '@fairtable/node/thread-name.js';

const linux = process.platform === 'linux';

/** The names of this process's threads, as /proc has them. */
function threadNames(): string[] {
  return readdirSync('/proc/self/task').map((tid) => {
    try {
      return readFileSync(`/proc/self/task/${tid}/comm`, 'utf8').trim();
    } catch {
      return '';
    }
  });
}

describe('nameThisThread', () => {
  it.runIf(linux)('names the calling thread only, cut to 15 bytes, as /proc shows it', async () => {
    const mine = threadName();
    // The built module (the suite's global setup builds the packages): a worker runs plain Node, without vitest's TypeScript.
    const url = new URL('../dist/thread-name.js', import.meta.url).href;
    // A worker that names itself, tells its name as it reads it, and waits until told to stop.
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       import(${JSON.stringify(url)}).then((m) => {
         m.nameThisThread('ft-a-name-longer-than-15');
         parentPort.postMessage(m.threadName());
         parentPort.once('message', () => process.exit(0));
       });`,
      { eval: true },
    );
    const told = await new Promise<string>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    expect(told).toBe('ft-a-name-longe');
    expect(threadNames()).toContain('ft-a-name-longe');
    // The thread that started the worker keeps the name it had.
    expect(threadName()).toBe(mine);
    worker.postMessage('stop');
    await new Promise((r) => worker.once('exit', r));
  });

  it('throws nothing when naming the calling thread again (and off Linux does nothing)', () => {
    // On Linux the calling thread is given the name it already has, so the test's own thread keeps it.
    const mine = threadName();
    expect(() => nameThisThread(mine ?? 'node')).not.toThrow();
    expect(threadName()).toBe(mine);
  });
});
