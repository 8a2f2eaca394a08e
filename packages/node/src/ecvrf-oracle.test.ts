/**
 * Differential test of ECVRF against an independent Python oracle
 * (test/python/ecvrf_check.py, stdlib only, plain integer arithmetic written
 * from RFC 8032/9380/9381). It lives in the node package because it spawns a
 * process; the code under test is core's source.
 *
 * Both directions: proofs and tampered proofs made here are judged by the
 * oracle (same validity, same beta, same rejection code), and proofs the
 * oracle makes are verified here and must equal ours byte for byte.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import { numberToBytesLE } from '@noble/curves/utils.js';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { keygen, prove, verify, SUITES, type EcvrfSuite } from '@fairtable/core/vrf/ecvrf.js';

const ORACLE = fileURLToPath(new URL('../../../test/python/ecvrf_check.py', import.meta.url));
const VECTORS = fileURLToPath(new URL('../../core/src/vrf/vectors/rfc9381-ecvrf.json', import.meta.url));
const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const python = spawnSync('python3', ['--version']);
const hasPython = python.status === 0;

function oracle(args: string[], input?: unknown): { status: number | null; out: any } {
  const run = spawnSync('python3', [ORACLE, ...args], {
    input: input === undefined ? undefined : JSON.stringify(input),
    encoding: 'utf8',
    maxBuffer: 16 << 20,
  });
  if (run.error) throw run.error;
  if (run.stderr) throw new Error(`oracle stderr: ${run.stderr}`);
  return { status: run.status, out: JSON.parse(run.stdout) };
}

interface Case {
  suite: EcvrfSuite;
  pk: Uint8Array;
  alpha: Uint8Array;
  pi: Uint8Array;
  validateKey: boolean;
}

/** Random keys and inputs, each with its proof and with mutations of it. */
function makeCases(seed: number): Case[] {
  const spec = fc.record({
    suite: fc.constantFrom<EcvrfSuite>(...SUITES),
    sk: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    alpha: fc.uint8Array({ maxLength: 40 }),
    at: fc.nat(),
    bit: fc.integer({ min: 0, max: 7 }),
  });
  const cases: Case[] = [];
  for (const { suite, sk, alpha, at, bit } of fc.sample(spec, { numRuns: 12, seed })) {
    const pk = keygen(sk).publicKey;
    const pi = prove(sk, alpha, { suite });
    const flipped = (b: Uint8Array) => {
      const out = b.slice();
      out[at % out.length]! ^= 1 << bit;
      return out;
    };
    const sPlusL = pi.slice();
    sPlusL.set(numberToBytesLE(BigInt('0x' + toHex(pi.slice(48).reverse())) + L, 32), 48);
    cases.push(
      { suite, pk, alpha, pi, validateKey: true },
      { suite, pk, alpha, pi: flipped(pi), validateKey: true },
      { suite, pk: flipped(pk), alpha, pi, validateKey: true },
      { suite, pk, alpha: new Uint8Array([...alpha, bit]), pi, validateKey: true },
      { suite, pk, alpha, pi: sPlusL, validateKey: true },
      { suite: suite === 'ell2' ? 'tai' : 'ell2', pk, alpha, pi, validateKey: true },
    );
  }
  const anyPi = cases[0]!.pi;
  for (const hex of ED25519_TORSION_SUBGROUP) {
    for (const validateKey of [true, false]) cases.push({ suite: 'ell2', pk: fromHex(hex), alpha: new Uint8Array(), pi: anyPi, validateKey });
  }
  const minusZero = numberToBytesLE(1n, 32);
  minusZero[31]! |= 0x80;
  cases.push({ suite: 'tai', pk: minusZero, alpha: new Uint8Array(), pi: anyPi, validateKey: false });
  cases.push({ suite: 'tai', pk: cases[0]!.pk, alpha: new Uint8Array(), pi: anyPi.subarray(1), validateKey: true });
  return cases;
}

describe.skipIf(!hasPython)('ECVRF against the Python oracle (skipped only when python3 is not installed)', () => {
  it('the oracle reproduces RFC 9381 Examples 16–21 (H, pi, beta)', () => {
    const { status, out } = oracle(['--vectors', VECTORS]);
    expect(out).toEqual({ checked: 6, failures: [] });
    expect(status).toBe(0);
  });

  it('the oracle judges our proofs and mutations exactly as we do', () => {
    const cases = makeCases(20240901);
    const { out } = oracle([], {
      cases: cases.map((c) => ({ suite: c.suite, pk: toHex(c.pk), alpha: toHex(c.alpha), pi: toHex(c.pi), validate_key: c.validateKey })),
    });
    const ours = cases.map((c) => verify(c.pk, c.alpha, c.pi, { suite: c.suite, validateKey: c.validateKey }));
    const theirs = out.results as { valid: boolean; beta: string | null; code: string | null }[];
    expect(theirs).toHaveLength(cases.length);
    const valid = ours.filter((v) => v.valid).length;
    expect(valid).toBeGreaterThanOrEqual(12);
    expect(cases.length - valid).toBeGreaterThanOrEqual(60);
    ours.forEach((v, i) => {
      const expected = v.valid ? { valid: true, beta: toHex(v.beta), code: null } : { valid: false, beta: null, code: v.code };
      expect(theirs[i], `case ${i}`).toEqual(expected);
    });
  });

  it("we verify the oracle's proofs, and they equal ours byte for byte", () => {
    const spec = fc.record({
      suite: fc.constantFrom<EcvrfSuite>(...SUITES),
      sk: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      alpha: fc.uint8Array({ maxLength: 40 }),
    });
    const keys = fc.sample(spec, { numRuns: 16, seed: 7 });
    const { out } = oracle(['--prove'], { cases: keys.map((k) => ({ suite: k.suite, sk: toHex(k.sk), alpha: toHex(k.alpha) })) });
    keys.forEach((k, i) => {
      const { pk, pi } = out.results[i] as { pk: string; pi: string };
      expect(pk).toBe(toHex(keygen(k.sk).publicKey));
      expect(pi).toBe(toHex(prove(k.sk, k.alpha, { suite: k.suite })));
      expect(verify(fromHex(pk), k.alpha, fromHex(pi), { suite: k.suite }).valid).toBe(true);
    });
  });
});
