/**
 * A 4-player dice game of 50 rounds played entirely through game folders (docs/spec/mail.md §7): every
 * message armored, written to an outbox, handed to every other participant and read back by `mail read`;
 * every decision answered by `mail decide`. The creator records. All four participants run one after
 * another in this one process. Two ways:
 * - "one command per process", as the command line runs: every command opens its folder from the files,
 *   restoring the seat from the folder's sealed snapshot and checking only the lines that came since
 *   (docs/spec/mail.md §2.1); and the same with the snapshots ignored, every command replaying the whole
 *   log (the cost then grows with the square of the game's length), for comparison;
 * - "folders kept open", as a long-running program would (a mail filter, an app): a folder's seat stays in
 *   memory between commands while its files are unchanged.
 * Prints the total time (wall and CPU), and the armored mail per turn per player in bytes.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import { auditLines } from '@fairtable/core/audit.js';
import { keepFolders, mailNew, mailTranscript, useSnapshots } from 'fairtable/mail.js';
import { PostOffice, type Participant } from 'fairtable/mail/post-office.js';

useNativeCrypto();

const PLAYERS = 4;
const ROUNDS = 50;

type Mode = 'kept' | 'snapshot' | 'replay';

function game(mode: Mode): boolean {
  const keep = mode === 'kept';
  const root = mkdtempSync(join(tmpdir(), 'fairtable-mail-bench-'));
  keepFolders(keep);
  useSnapshots(mode !== 'replay');
  try {
    const ps: Participant[] = Array.from({ length: PLAYERS }, (_, i) => {
      const id = `p${i}`;
      const keys = generateKeyPair(new Uint8Array(32).fill(i + 1));
      const key = join(root, `${id}.json`);
      writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
      writeFileSync(join(root, `${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
      return { id, dir: join(root, id), key };
    });
    const cpu0 = process.cpuUsage();
    const t0 = performance.now();
    mailNew({ protocol: 'dice', dir: ps[0]!.dir, key: ps[0]!.key, players: ps.map((p) => join(root, `${p.id}.pub.json`)), turns: ROUNDS, timeout: '3d' });
    const post = new PostOffice(ps);
    let turns = 0;
    const last = post.play(() => {
      turns++;
      return null;
    });
    const wall = performance.now() - t0;
    const cpu = process.cpuUsage(cpu0);
    const done = last.every((r) => r.status.done);
    const texts = ps.map((p) => {
      const out = join(root, `${p.id}.jsonl`);
      mailTranscript(p.dir, out);
      return readFileSync(out, 'utf8');
    });
    const identical = texts.every((t) => t === texts[0]);
    const lines = texts[0]!.trimEnd().split('\n');
    const verdict = auditLines(lines);
    process.stdout.write(
      `mail, dice, ${PLAYERS} players, ${ROUNDS} rounds (${turns} turns), recorder p0, ${
        mode === 'kept'
          ? 'folders kept open'
          : mode === 'snapshot'
            ? 'one command per process (each opens its folder from the files and its snapshot)'
            : 'one command per process, snapshots ignored (each replays the whole log)'
      }:\n` +
        `  finished=${done}, identical transcripts=${identical}, audit valid=${verdict.valid}, ${lines.length} lines\n` +
        `  total: ${wall.toFixed(0)} ms wall, ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms CPU (${(cpu.user / 1000).toFixed(0)} user, ${(cpu.system / 1000).toFixed(0)} system; target < 5000 ms), ${post.messages.sent} messages mailed, ${post.messages.delivered} deliveries read\n`,
    );
    const bytes = ps.map((p) => post.bytesSent.get(p.id) ?? 0);
    const total = bytes.reduce((a, b) => a + b, 0);
    if (keep)
      process.stdout.write(
        `  armored mail written per turn: ${(total / turns).toFixed(0)} bytes for the whole table, ${(total / turns / PLAYERS).toFixed(0)} bytes per player on average ` +
          `(the recorder p0 ${(bytes[0]! / turns).toFixed(0)} B/turn, the others ${bytes
            .slice(1)
            .map((b) => (b / turns).toFixed(0))
            .join(', ')} B/turn); each message goes to the ${PLAYERS - 1} others\n`,
      );
    return done && identical && verdict.valid;
  } finally {
    keepFolders(false);
    useSnapshots(true);
    rmSync(root, { recursive: true, force: true });
  }
}

const ok = game('kept') && game('snapshot') && game('replay');
if (!ok) process.exitCode = 1;
