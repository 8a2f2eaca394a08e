/**
 * The receipt vectors checked by an independent Python implementation of docs/spec/relay.md §2
 * (test/python/receipt_check.py: the log hash chain, the canonical text, Ed25519 from RFC 8032's formulas).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const vectors = join(root, 'packages/core/src/order/vectors/receipts.json');
const check = (file: string) => spawnSync('python3', [join(root, 'test/python/receipt_check.py'), file], { encoding: 'utf8' });
const hasPython = spawnSync('python3', ['--version']).status === 0;

describe.skipIf(!hasPython)('receipts against the Python checker (skipped only when python3 is not installed)', () => {
  it('accepts the vectors and refuses a receipt whose time was changed', () => {
    const ok = check(vectors);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, receipts: 5 });
    const tampered = join(mkdtempSync(join(tmpdir(), 'receipts-')), 'tampered.json');
    writeFileSync(tampered, readFileSync(vectors, 'utf8').replaceAll('1700000001500', '1700000001501'));
    const bad = check(tampered);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, why: 'signature' });
  });
});

describe.skipIf(!hasPython)('batch receipts against the Python checker (skipped only when python3 is not installed)', () => {
  const batchVectors = join(root, 'packages/core/src/order/vectors/receipt-batches.json');
  it('accepts the vectors, and refuses a changed inclusion proof and a changed signature', () => {
    const ok = check(batchVectors);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, receipts: 19 });
    const v = JSON.parse(readFileSync(batchVectors, 'utf8')) as { batches: { receipts: { batch: { path: string[] }; sig: string }[] }[] };
    const dir = mkdtempSync(join(tmpdir(), 'receipt-batches-'));
    const path = v.batches[4]!.receipts[6]!.batch.path;
    path[1] = path[1]!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
    writeFileSync(join(dir, 'path.json'), JSON.stringify(v));
    const badPath = check(join(dir, 'path.json'));
    expect(badPath.status).toBe(1);
    expect(JSON.parse(badPath.stdout)).toMatchObject({ ok: false, batch: 8, why: 'inclusion proof of receipt 6' });
    const w = JSON.parse(readFileSync(batchVectors, 'utf8')) as typeof v;
    w.batches[2]!.receipts[1]!.sig = w.batches[2]!.receipts[0]!.sig.replace(/.$/, (c) => (c === '0' ? '1' : '0'));
    writeFileSync(join(dir, 'sig.json'), JSON.stringify(w));
    const badSig = check(join(dir, 'sig.json'));
    expect(badSig.status).toBe(1);
    expect(JSON.parse(badSig.stdout)).toMatchObject({ ok: false, batch: 3, why: 'signature' });
  });
});

describe.skipIf(!hasPython)('witness receipts against the Python checker (skipped only when python3 is not installed)', () => {
  const witnessVectors = join(root, 'packages/core/src/order/vectors/witness-receipts.json');
  const checkWitness = (file: string) => spawnSync('python3', [join(root, 'test/python/witness_receipt_check.py'), file], { encoding: 'utf8' });
  it('accepts the vectors and refuses a receipt whose time was changed', () => {
    const ok = checkWitness(witnessVectors);
    expect(ok.status, ok.stdout + ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout)).toMatchObject({ ok: true, receipts: 5 });
    const tampered = join(mkdtempSync(join(tmpdir(), 'witness-')), 'tampered.json');
    writeFileSync(tampered, readFileSync(witnessVectors, 'utf8').replaceAll('1700000000700', '1700000000701'));
    const bad = checkWitness(tampered);
    expect(bad.status).toBe(1);
    expect(JSON.parse(bad.stdout)).toMatchObject({ ok: false, why: 'signature' });
  });
});
