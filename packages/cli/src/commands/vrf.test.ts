/**
 * `fairtable vrf` end to end: runs the CLI that the test run's global setup built,
 * as `node packages/cli/bin/fairtable.js vrf ...` and checks output and exit codes
 * (0 valid, 1 invalid with the reason code on stderr, 2 unusable input).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ED25519_TORSION_SUBGROUP } from '@noble/curves/ed25519.js';
import vectors from '../../../core/src/vrf/vectors/rfc9381-ecvrf.json' with { type: 'json' };

const MAIN = fileURLToPath(new URL('../../bin/fairtable.js', import.meta.url));

function cli(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync(process.execPath, [MAIN, 'vrf', ...args], { encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const example = (n: number) => vectors.vectors.find((v) => v.example === n)!;

describe('fairtable vrf', () => {
  it('keygen prints a key pair, and prove/verify accept it', () => {
    const keys = JSON.parse(cli('keygen', '--suite', 'tai').stdout) as { sk: string; pk: string };
    expect(keys.sk).toMatch(/^[0-9a-f]{64}$/);
    expect(keys.pk).toMatch(/^[0-9a-f]{64}$/);
    const proof = cli('prove', '--suite', 'tai', '--sk', keys.sk, '--alpha', 'c0ffee');
    expect(proof.status).toBe(0);
    const { pi, beta } = JSON.parse(proof.stdout) as { pi: string; beta: string };
    const verified = cli('verify', '--suite', 'tai', '--pk', keys.pk, '--alpha', 'c0ffee', '--pi', pi);
    expect(verified).toEqual({ status: 0, stdout: `${beta}\n`, stderr: '' });
  });

  it.each([16, 19, 21])('prove and verify reproduce RFC 9381 Example %i', (n) => {
    const v = example(n);
    const proof = cli('prove', '--suite', v.suite, '--sk', v.sk, '--alpha', v.alpha);
    expect(JSON.parse(proof.stdout)).toEqual({ pi: v.pi, beta: v.beta });
    expect(cli('verify', '--suite', v.suite, '--pk', v.pk, '--alpha', v.alpha, '--pi', v.pi).stdout).toBe(`${v.beta}\n`);
  });

  it('exits 1 with the reason code when the proof does not verify', () => {
    const v = example(19);
    const tampered = (parseInt(v.pi.slice(0, 2), 16) ^ 1).toString(16).padStart(2, '0') + v.pi.slice(2);
    const cases: [string[], string][] = [
      [['--pk', v.pk, '--alpha', '00', '--pi', v.pi], 'bad_proof'],
      [['--pk', v.pk, '--alpha', v.alpha, '--pi', tampered], ''],
      [['--pk', v.pk, '--alpha', v.alpha, '--pi', v.pi.slice(2)], 'bad_length'],
      [['--pk', ED25519_TORSION_SUBGROUP[1]!, '--alpha', v.alpha, '--pi', v.pi], 'bad_public_key'],
      [['--pk', ED25519_TORSION_SUBGROUP[1]!, '--alpha', v.alpha, '--pi', v.pi, '--no-validate-key'], 'bad_proof'],
    ];
    for (const [args, code] of cases) {
      const run = cli('verify', '--suite', 'ell2', ...args);
      expect(run.status, args.join(' ')).toBe(1);
      expect(run.stdout).toBe('');
      expect(run.stderr).toMatch(code ? new RegExp(`^${code}: `) : /^(bad_proof|not_canonical): /);
    }
  });

  it('exits 2 on unusable input', () => {
    const v = example(19);
    const cases: string[][] = [
      ['verify', '--suite', 'ell2', '--pk', 'xyz', '--alpha', '', '--pi', v.pi],
      ['verify', '--suite', 'ell2', '--pk', v.pk, '--alpha', ''],
      ['verify', '--suite', 'p256', '--pk', v.pk, '--alpha', '', '--pi', v.pi],
      ['prove', '--sk', v.sk, '--alpha', ''],
      ['prove', '--suite', 'ell2', '--sk', v.sk.slice(2), '--alpha', ''],
      ['prove', '--suite', 'ell2', '--sk', v.sk, '--alpha', '0'],
    ];
    for (const args of cases) {
      const run = cli(...args);
      expect(run.status, args.join(' ')).toBe(2);
      expect(run.stdout).toBe('');
      expect(run.stderr).not.toBe('');
    }
  });
});
