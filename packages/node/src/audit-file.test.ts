/**
 * One line rule for both auditors (docs/SPEC.md §4.5, issue 7): the same bytes
 * given to core's auditor and to the file auditor (worker threads, second
 * evidence pass) give the same verdict and the same evidence. Runs against the
 * built package, as a user runs it (`npm run build` first).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { auditText, type Verdict } from '@fairtable/core/audit.js';
import { appendEquivocation, simKeys, simulate } from '@fairtable/core/testing';
import { envelopeLine, signEnvelope, type Body, type Envelope } from '@fairtable/core/envelope.js';
import { toHex } from '@fairtable/core/bytes.js';
import { prepareLine, TranscriptChecker } from '@fairtable/core/transcript.js';
// The file auditor runs its threads from the built files (audit-coordinator.js beside audit-file.js): test the build.
import { auditFile } from '../dist/audit-file.js';
import { auditFileHere } from '../dist/audit-here.js';

const dir = mkdtempSync(join(tmpdir(), 'fairtable-audit-file-'));
let fileNo = 0;

beforeAll(() => {
  // A stale build would test yesterday's code: refuse to run rather than pass on it.
  for (const src of ['./audit-file.ts', './audit-here.ts', '../../core/src/lines.ts', '../../core/src/audit.ts', '../../core/src/transcript.ts']) {
    const at = (p: string): number => statSync(fileURLToPath(new URL(p, import.meta.url))).mtimeMs;
    const built = (src.startsWith('./') ? `../dist/${src.slice(2)}` : src.replace('src/', 'dist/')).replace(/\.ts$/, '.js');
    if (at(src) > at(built) + 1000) {
      throw new Error(`${src} is newer than its build: run npm run build`);
    }
  }
});

const dice = simulate({ protocol: 'dice', players: 3, seed: new Uint8Array(32).fill(7), turns: 2 }).lines;
// An orderer refuses an equivocation at its door (docs/SPEC.md §10.1); a file can still hold one.
const equivocation = appendEquivocation(
  simulate({ protocol: 'chain', players: 3, seed: new Uint8Array(32).fill(2) }).lines,
  'p1',
  simKeys(new Uint8Array(32).fill(2), 1),
);

interface Shape {
  valid: boolean;
  lines: number;
  omitted: number;
  outcome: unknown;
  violations: { code: string; player: string | null; seq: number; evidence: { line: number | undefined; hash: string | undefined }[] }[];
}
const shape = (v: Verdict): Shape => ({
  valid: v.valid,
  lines: v.lines,
  omitted: v.omitted,
  outcome: v.outcome,
  violations: v.violations.map((x) => ({ code: x.code, player: x.player, seq: x.seq, evidence: x.evidence.map((e) => ({ line: e.line, hash: e.hash })) })),
});

/**
 * Both auditors on `bytes`. `coordinator: 'here'` runs the file auditor's coordinator (its reading, cutting
 * and ordered checks) on this thread, with its verifying thread as usual: what the coordinator's own thread
 * runs, without starting that thread, for the property's many files; the other tests go through `auditFile`.
 */
async function both(bytes: Uint8Array, coordinator: 'thread' | 'here' = 'thread'): Promise<{ core: Verdict; file: Verdict }> {
  const file = join(dir, `t${fileNo++}.jsonl`);
  writeFileSync(file, bytes);
  const options = { workers: 1, batch: 4 };
  return { core: auditText(bytes), file: await (coordinator === 'here' ? auditFileHere(file, options) : auditFile(file, options)) };
}

/** What a mail client, an editor or a careless recorder does to a file without touching an envelope. */
const layout = (lines: readonly string[]) =>
  fc.record({
    bom: fc.boolean(),
    crlf: fc.array(fc.boolean(), { minLength: lines.length, maxLength: lines.length }),
    blanks: fc.array(fc.array(fc.constantFrom('', ' ', '\t', '\r', ' \r', '  \t '), { maxLength: 3 }), {
      minLength: lines.length + 1,
      maxLength: lines.length + 1,
    }),
    finalLf: fc.boolean(),
    junk: fc.option(fc.tuple(fc.nat({ max: lines.length - 1 }), fc.constantFrom('x', '{"a":1}', '\uFEFF' + lines[1]!, lines[1]! + ' ')), { nil: null }),
  });

function render(
  lines: readonly string[],
  l: { bom: boolean; crlf: boolean[]; blanks: string[][]; finalLf: boolean; junk: [number, string] | null },
): Uint8Array {
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (i > 0) out.push(...l.blanks[i]!);
    if (l.junk !== null && l.junk[0] === i && i > 0) out.push(l.junk[1]);
    out.push(line + (l.crlf[i] ? '\r' : ''));
  });
  out.push(...l.blanks[lines.length]!);
  return new TextEncoder().encode((l.bom ? '\uFEFF' : '') + out.join('\n') + (l.finalLf ? '\n' : ''));
}

describe('core and file auditors agree byte for byte (docs/SPEC.md §4.5)', () => {
  it('on blank and whitespace-only lines, CRLF, a BOM, a missing final LF and junk lines', async () => {
    for (const lines of [dice, equivocation]) {
      const plain = shape(auditText(lines.join('\n')));
      await fc.assert(
        fc.asyncProperty(layout(lines), async (l) => {
          const { core, file } = await both(render(lines, l), 'here');
          expect(shape(file)).toEqual(shape(core));
          // Whitespace alone changes nothing: the verdict is that of the plain transcript.
          if (l.junk === null) expect(shape(core)).toEqual(plain);
        }),
        { numRuns: 12 },
      );
    }
  });

  it('a blank line before an equivocation: the right player, and both of its own envelopes as evidence', async () => {
    const text = [equivocation[0]!, '', ...equivocation.slice(1, 3), '   ', ...equivocation.slice(3)].join('\n');
    const { core, file } = await both(new TextEncoder().encode(text));
    expect(shape(file)).toEqual(shape(core));
    const v = file.violations.find((x) => x.code === 'equivocation')!;
    expect(v.player).toBe('p1');
    expect(v.evidence.length).toBe(2);
    for (const e of v.evidence) expect((e.envelope as Envelope).from).toBe('p1');
    expect(shape(core)).toEqual(shape(auditText(equivocation.join('\n'))));
  });
});

describe("a newcomer's lines (docs/SPEC.md §4.6)", () => {
  it('are read by the file auditor under the key its newcomer line gave it, as core reads them', async () => {
    const seed = new Uint8Array(32).fill(7);
    const lines = [...dice];
    const checker = new TranscriptChecker(lines[0]!);
    lines.forEach((t, i) => checker.check(prepareLine(i, t, checker.keys)));
    const newcomer = simKeys(seed, 5);
    const append = (from: string, secretKey: Uint8Array, body: Body): void => {
      const pos = checker.authorPosition(from) ?? { count: 0, lastHash: checker.gameId };
      const at = lines.length;
      const unsigned = { v: 1 as const, game: checker.gameId, from, seq: pos.count, prev: pos.lastHash, at, head: checker.hashOfLine(at - 1)!, time: at, body };
      const text = envelopeLine(signEnvelope(unsigned, secretKey));
      checker.check(prepareLine(at, text, checker.keys));
      lines.push(text);
    };
    append('p0', simKeys(seed, 0).secretKey, { type: 'newcomer', newcomer: { id: 'n1', key: toHex(newcomer.publicKey) } });
    for (let i = 0; i < 6; i++) append('n1', newcomer.secretKey, { type: 'note', i });
    const { core, file } = await both(new TextEncoder().encode(lines.join('\n')));
    expect(shape(file)).toEqual(shape(core));
    expect(core.violations.some((v) => v.player === null)).toBe(false);
  });
});

describe('a small file audited on the calling thread', () => {
  it('gives the verdict and evidence of the threads and of core: asked for (workers: 0) and by default', async () => {
    const text = [equivocation[0]!, '', ...equivocation.slice(1, 3), '   ', ...equivocation.slice(3)].join('\n');
    for (const bytes of [new TextEncoder().encode(dice.join('\n')), new TextEncoder().encode(text)]) {
      const file = join(dir, `t${fileNo++}.jsonl`);
      writeFileSync(file, bytes);
      const core = auditText(bytes);
      const threads = await auditFile(file, { workers: 1, batch: 4 });
      const here = await auditFile(file, { workers: 0, batch: 4 });
      const plain = await auditFile(file);
      expect(shape(threads)).toEqual(shape(core));
      expect(shape(here)).toEqual(shape(core));
      expect(shape(plain)).toEqual(shape(core));
      expect(here.violations.flatMap((v) => v.evidence.map((e) => e.envelope))).toEqual(threads.violations.flatMap((v) => v.evidence.map((e) => e.envelope)));
    }
    expect(shape(await auditFile(join(dir, `t${fileNo - 1}.jsonl`)))).toMatchObject({ valid: false, violations: [{ code: 'equivocation', player: 'p1' }] });
  });
});

describe('long lines with many verifying threads', () => {
  it('gives the verdict of core when the batches in flight reach their bound in characters before their count', async () => {
    // 40 junk lines of 900,000 characters: a batch closes at 4 Mi characters (five lines), eight batches, more than
    // the 24 Mi characters in flight allow, while eight threads would take 27 batches.
    const junk = `{"junk":"${'x'.repeat(900_000)}"}`;
    const lines = [dice[0]!, ...dice.slice(1, 4), ...Array.from({ length: 40 }, () => junk), ...dice.slice(4)];
    const bytes = new TextEncoder().encode(lines.join('\n'));
    const file = join(dir, `t${fileNo++}.jsonl`);
    writeFileSync(file, bytes);
    const core = auditText(bytes);
    expect(shape(await auditFile(file, { workers: 8 }))).toEqual(shape(core));
    expect(shape(core)).toMatchObject({ valid: false });
  });
});
