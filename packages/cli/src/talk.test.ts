/** `fairtable talk` and `fairtable talk read` against a real relay (docs/spec/press.md). */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pino } from 'pino';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair, toKeyFile } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { startRelay, type Relay } from '@fairtable/relay';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const main = join(root, 'packages/cli/bin/fairtable.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-talk-'));

/** Runs the built command without blocking this process (the relay runs here). */
function run(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main, ...args], { cwd: dir });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}

const names = ['alice', 'bob', 'cy'];
const keys = names.map((_, i) => generateKeyPair(new Uint8Array(32).fill(70 + i)));
const stranger = generateKeyPair(new Uint8Array(32).fill(90));
let relay: Relay;
let game: string;

beforeAll(async () => {
  relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'data'), webDir: dir, logger: pino({ level: 'silent' }) });
  names.forEach((n, i) => writeFileSync(join(dir, `${n}.json`), JSON.stringify(toKeyFile(n, keys[i]!))));
  writeFileSync(join(dir, 'stranger.json'), JSON.stringify(toKeyFile('stranger', stranger)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 600_000, rounds: 2, press: { rule: 'full', mode: 'signed' } },
    players: names.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: '07'.repeat(32),
    created: Date.now(),
  };
  game = gameIdOf(setup);
  const res = await fetch(`${relay.url}/games`, { method: 'POST', body: envelopeLine(createSetupEnvelope(setup, 'alice', keys[0]!)) });
  expect(res.status).toBe(201);
}, 60_000);

afterAll(async () => {
  await relay?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('fairtable talk', () => {
  it('writes to the table and privately, and each reader reads what is for it', async () => {
    const common = ['--relay', relay.url, '--game', game];
    const one = await run(['talk', ...common, '--key', 'alice.json', 'Good', 'luck,', 'all.']);
    expect(one.stderr).toBe('');
    expect(one.stdout).toMatch(/^alice wrote to the table \(message \d+\)\n$/);
    const two = await run(['talk', ...common, '--key', 'alice.json', '--to', 'bob', 'Bob, roll high for me.']);
    expect(two.stdout).toMatch(/^alice wrote to bob, sealed \(message \d+\)\n$/);
    const bob = await run(['talk', 'read', ...common, '--key', 'bob.json']);
    expect(bob.status).toBe(0);
    expect(bob.stdout).toMatch(/^#0 \S+ alice to the table, signed: Good luck, all\.\n#1 \S+ alice to bob \(private\), signed: Bob, roll high for me\.\n$/);
    for (const reader of [['--key', 'cy.json'], []]) {
      const other = await run(['talk', 'read', ...common, ...reader]);
      expect(other.stdout).toContain('Good luck, all.');
      expect(other.stdout).not.toContain('roll high');
      expect(other.stdout).toMatch(/#1 \S+ alice to bob \(private\), signed: \[sealed for bob: \d+ bytes\]/);
    }
  }, 60_000);

  it('refuses a key that holds no seat, and a message with no key', async () => {
    const common = ['--relay', relay.url, '--game', game];
    const stray = await run(['talk', ...common, '--key', 'stranger.json', 'hello']);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toMatch(/\[unknown_player\]/);
    const keyless = await run(['talk', ...common, 'hello']);
    expect(keyless.status).toBe(2);
    expect(keyless.stderr).toMatch(/--key/);
  }, 60_000);
});
