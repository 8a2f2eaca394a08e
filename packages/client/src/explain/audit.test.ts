/**
 * The page auditor against `fairtable audit --json` (docs/spec/explain.md §4): the same object on honest
 * games, on every cheat of the simulator and on hostile files, through the built command; progress, abort,
 * bytes and an asynchronous verifier.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { utf8 } from '@fairtable/core/bytes.js';
import { verify as nobleVerify } from '@fairtable/core/identity.js';
import { CHEATS, cheatApplies, simulate, type Cheat, type SimProtocol } from '@fairtable/core/testing';
import { writeHostile } from '../../../../bench/lib/hostile-transcripts.js';
import { auditTranscript, type AuditResult } from './audit.js';
import { webCryptoVerifier } from './webcrypto.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { runInProcess } from '../../../cli/src/in-process.js';

const root = fileURLToPath(new URL('../../../..', import.meta.url));
const main = join(root, 'packages/cli/dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'fairtable-explain-audit-'));

/** `fairtable audit --json --workers 1 FILE` as a process of its own (the built command, its verifying thread), parsed. */
function cli(file: string): AuditResult & { exit: number | null } {
  const r = spawnSync(process.execPath, [main, 'audit', '--json', '--workers', '1', file], { encoding: 'utf8', maxBuffer: 1 << 26 });
  return { ...(JSON.parse(r.stdout) as AuditResult), exit: r.status };
}

/**
 * `fairtable audit --json FILE` run in this process (`runInProcess`): a file of a few kilobytes is audited on
 * the calling thread, so the command's answer comes without the 0.5 s or more a process and its threads take
 * to start. The simulated games, a hundred files, are read this way; the hostile files go through the process.
 */
async function cliHere(file: string): Promise<AuditResult & { exit: number | null }> {
  const r = await runInProcess(['audit', '--json', file]);
  return { ...(JSON.parse(r.stdout) as AuditResult), exit: r.status };
}

/** The page's answer in the CLI's terms: an unreadable file's message names the file there, so only its code is compared. */
async function agree(file: string, text: string | Uint8Array, how: 'process' | 'in-process' = 'in-process'): Promise<AuditResult> {
  const expected = how === 'process' ? cli(file) : await cliHere(file);
  const got = await auditTranscript(text);
  if ('error' in expected) {
    expect(got).toMatchObject({ valid: false, error: { code: expected.error.code } });
    expect(expected.exit).toBe(2);
  } else {
    const { exit, ...verdict } = expected;
    expect(JSON.parse(JSON.stringify(got))).toEqual(verdict);
    expect(exit).toBe(verdict.valid ? 0 : 1);
  }
  return got;
}

const write = (name: string, lines: readonly string[]): { file: string; text: string } => {
  const file = join(dir, name);
  const text = lines.join('\n') + '\n';
  writeFileSync(file, text);
  return { file, text };
};

/**
 * The games are played on OpenSSL's Ed25519 (the same signatures as noble's, packages/node's differential test):
 * they are the input here, not what is tested. The page's auditor checks every signature with noble.
 */
const native = { sign: nativeSign, verify: nativeVerify } as const;

const PROTOCOLS: SimProtocol[] = ['beacon', 'dice', 'keyed-stream', 'signidice', 'rochambeau'];

describe('auditTranscript agrees with fairtable audit --json', () => {
  for (const protocol of PROTOCOLS) {
    it(`${protocol}: honest, and every cheat that applies`, async () => {
      const honest = write(`${protocol}-honest.jsonl`, simulate({ protocol, players: 3, seed: utf8(`audit-${protocol}`), turns: 2, ...native }).lines);
      expect(await agree(honest.file, honest.text, 'process')).toMatchObject({ valid: true });
      let cheats = 0;
      for (const cheat of CHEATS as readonly Cheat[]) {
        // The escrow cheats need a beacon with escrow; protocols/beacon-escrow.test.ts and beacon-layers.test.ts play each of them.
        if (cheat.startsWith('escrow-') || cheat.startsWith('layers-')) continue;
        const cheater = cheat.startsWith('house-') ? 'house' : 'p1';
        if (cheatApplies(cheat, protocol === 'signidice' ? 'signidice' : protocol, cheater) !== null) continue;
        const sim = simulate({ protocol, players: 3, seed: utf8(`audit-${protocol}-${cheat}`), turns: 2, cheat, cheater, ...native });
        const { file, text } = write(`${protocol}-${cheat}.jsonl`, sim.lines);
        const got = await agree(file, text);
        // Cheats the door refuses at submission (forge, replay, equivocate) leave the log itself clean.
        if (!['forge', 'replay', 'equivocate'].includes(cheat)) expect(got.valid, cheat).toBe(false);
        cheats++;
      }
      expect(cheats).toBeGreaterThan(4);
    });
  }

  it('on hostile files, as text and as bytes', async () => {
    const honest = simulate({ protocol: 'dice', players: 3, seed: utf8('audit-hostile'), turns: 2, ...native }).lines;
    const files = writeHostile(dir, honest, false);
    expect(files.length).toBeGreaterThan(5);
    for (const h of files) {
      const bytes = new Uint8Array(readFileSync(h.file));
      // Deep nesting and a byte order mark through the process itself: its own stack and its own reading of the file.
      const got = await agree(h.file, bytes, h.name === 'deep-nesting' || h.name === 'bom' ? 'process' : 'in-process');
      expect(JSON.parse(JSON.stringify(got))).toEqual(JSON.parse(JSON.stringify(await auditTranscript(bytes))));
    }
  });

  it('on transcripts that cannot be audited at all', async () => {
    for (const [name, text] of [
      ['empty', ''],
      ['not-json', 'hello\n'],
    ] as const) {
      const file = join(dir, `${name}.jsonl`);
      writeFileSync(file, text);
      await agree(file, text, 'process');
    }
  });
});

describe('auditTranscript on a page', () => {
  const lines = simulate({ protocol: 'dice', players: 2, seed: utf8('audit-progress'), turns: 60, ...native }).lines;
  const text = lines.join('\n');

  it('reports progress up to the whole input and gives the same verdict with WebCrypto and with noble', async () => {
    const seen: [number, number][] = [];
    const noble = await auditTranscript(text, { onProgress: (done, total) => seen.push([done, total]) });
    expect(noble).toMatchObject({ valid: true, lines: lines.length });
    expect(seen.at(-1)).toEqual([text.length, text.length]);
    for (let i = 1; i < seen.length; i++) expect(seen[i]![0]).toBeGreaterThanOrEqual(seen[i - 1]![0]);
    const webcrypto = await webCryptoVerifier();
    expect(webcrypto?.name).toBe('webcrypto');
    expect(await auditTranscript(text, { verifier: webcrypto! })).toEqual(noble);
  });

  it('uses the verifier it is given for every signature', async () => {
    let calls = 0;
    const refusing = {
      name: 'counting',
      verify: async (s: Uint8Array, m: Uint8Array, k: Uint8Array): Promise<boolean> => {
        calls++;
        return calls === 5 ? false : nobleVerify(s, m, k);
      },
    };
    const verdict = await auditTranscript(text, { verifier: refusing });
    expect(calls).toBe(lines.length - 1);
    expect(verdict.valid).toBe(false);
    expect('violations' in verdict && verdict.violations[0]).toMatchObject({ code: 'bad_signature', seq: 5 });
  });

  it('stops when its signal aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('closed the page');
    const run = auditTranscript(text.repeat(1), {
      signal: controller.signal,
      onProgress: () => controller.abort(reason),
    });
    await expect(run).rejects.toBe(reason);
  });
});
