/**
 * `openssl speed ed25519`'s verifications a second on one core: the machine's yardstick for the benches that
 * verify Ed25519 signatures (the audit's ratio, the relay's budget), read in the same run as what they measure.
 */
import { spawnSync } from 'node:child_process';

/** Verifications a second over `seconds` of OpenSSL's own loop, or null when openssl is missing or says nothing. */
export function opensslVerifyRate(seconds = 3): number | null {
  const r = spawnSync('openssl', ['speed', '-seconds', String(seconds), 'ed25519'], { encoding: 'utf8' });
  const line = r.stdout?.split('\n').find((l) => /Ed25519/.test(l) && /EdDSA/.test(l));
  if (r.status !== 0 || line === undefined) return null;
  const nums = line
    .trim()
    .split(/\s+/)
    .map(Number)
    .filter((n) => Number.isFinite(n));
  return nums[nums.length - 1] ?? null;
}
