/**
 * The holding-receipt vectors checked by an independent Python implementation of docs/spec/sealed.md §3
 * (test/python/holding_check.py: the canonical text, Ed25519 from RFC 8032's formulas, the loss rule).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const vectors = join(root, 'packages/core/src/order/vectors/holding.json');
const check = (file: string) => spawnSync('python3', [join(root, 'test/python/holding_check.py'), file], { encoding: 'utf8' });
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!hasPython)('holding receipts against the Python checker (skipped only when python3 is not installed)', () => {
  it('accepts the vectors, and refuses a holding receipt whose deadline was moved or a loss verdict flipped', () => {
    const ok = check(vectors);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, holdings: 3, loss: 3 });
    const v = JSON.parse(readFileSync(vectors, 'utf8')) as { holdings: { holding: { until: number } }[]; loss: { lost: boolean }[] };
    const dir = mkdtempSync(join(tmpdir(), 'holding-'));
    const moved = structuredClone(v);
    moved.holdings[1]!.holding.until += 1;
    writeFileSync(join(dir, 'moved.json'), JSON.stringify(moved));
    const bad = check(join(dir, 'moved.json'));
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, holding: 1 });
    const flipped = structuredClone(v);
    flipped.loss[0]!.lost = false;
    writeFileSync(join(dir, 'flipped.json'), JSON.stringify(flipped));
    expect(JSON.parse(check(join(dir, 'flipped.json')).stdout)).toMatchObject({ ok: false, why: 'loss rule', loss: 0 });
  });
});
