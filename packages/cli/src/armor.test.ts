/**
 * `fairtable armor` / `dearmor` in-process (docs/SPEC.md §11), on a payload
 * large enough that the commands cross many read chunks: the same bytes as the
 * core's whole-input armor, a round trip, and nothing printed for a block
 * that is refused at its end. Peak memory on 150 MB is in the report, measured
 * with /usr/bin/time on the built binary.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Command } from 'commander';
import { armor } from '@fairtable/core/armor.js';
import { register } from './commands/armor.js';

const dir = mkdtempSync(join(tmpdir(), 'fairtable-armor-'));

class Exit extends Error {
  constructor(readonly code: number | undefined) {
    super(`exit ${code}`);
  }
}

async function runHere(args: string[]): Promise<{ stdout: Buffer; stderr: string; exit: number | null }> {
  const program = new Command().exitOverride();
  register(program);
  const stdout: Buffer[] = [];
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stdout.push(Buffer.from(chunk));
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  });
  vi.spyOn(process, 'exit').mockImplementation((code) => {
    throw new Exit(code === undefined || code === null ? undefined : Number(code));
  });
  let exit: number | null = null;
  try {
    await program.parseAsync(['node', 'fairtable', ...args]);
  } catch (e) {
    if (!(e instanceof Exit)) throw e;
    exit = e.code ?? 0;
  } finally {
    vi.restoreAllMocks();
  }
  return { stdout: Buffer.concat(stdout), stderr, exit };
}

afterEach(() => vi.restoreAllMocks());

describe('fairtable armor / dearmor in-process', () => {
  const payload = randomBytes(12 << 20);
  const plain = join(dir, 'payload.bin');
  writeFileSync(plain, payload);

  it('armors a 12 MiB payload to the same bytes as the core, and reads it back', async () => {
    const armored = await runHere(['armor', plain]);
    expect(armored.exit).toBeNull();
    const text = armored.stdout.toString('utf8');
    expect(text).toBe(armor(payload));
    const file = join(dir, 'payload.asc');
    writeFileSync(
      file,
      `Subject: my move\r\n\r\n${text
        .split('\n')
        .map((l) => `> ${l}`)
        .join('\r\n')}`,
    );
    const back = await runHere(['dearmor', file]);
    expect(back.exit).toBeNull();
    expect(back.stdout.equals(payload)).toBe(true);
  });

  it('prints nothing when the checksum at the end refuses the block', async () => {
    const text = armor(payload);
    const at = text.length >> 1;
    const mangled = text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    const file = join(dir, 'mangled.asc');
    writeFileSync(file, mangled);
    const r = await runHere(['dearmor', file]);
    expect(r.exit).toBe(2);
    expect(r.stdout.length).toBe(0);
    expect(r.stderr).toMatch(/\[bad_checksum\]/);
  });

  it('refuses an empty input and a missing file with a code', async () => {
    const empty = join(dir, 'empty');
    writeFileSync(empty, '');
    expect((await runHere(['armor', empty])).stderr).toMatch(/\[bad_input\] nothing to armor/);
    const missing = await runHere(['armor', join(dir, 'missing')]);
    expect(missing.exit).toBe(2);
    expect(missing.stderr).toMatch(/\[bad_input\]/);
  });
});
