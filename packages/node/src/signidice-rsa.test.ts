import { describe, expect, it } from 'vitest';
import { simulate } from '@fairtable/core/testing';
import { auditLines } from '@fairtable/core/audit.js';
import { generateRsaVrfKeyPair, createRsaVrfProver } from './rsa-vrf.js';

describe('Signidice with an RSA-FDH-VRF house (RSA-2048 through node:crypto)', () => {
  it('plays honest rounds that audit valid, and catches a house that signs something else', () => {
    const pair = generateRsaVrfKeyPair(2048);
    const prover = createRsaVrfProver(pair.privateKey);
    const house = { key: { scheme: 'rsa-fdh-vrf' as const, publicKey: pair.publicKey }, prove: (alpha: Uint8Array) => prover.prove(alpha) };
    const honest = simulate({ protocol: 'signidice', players: 2, seed: new Uint8Array(32).fill(6), turns: 2, house });
    expect(auditLines(honest.lines).valid).toBe(true);
    const cheat = simulate({ protocol: 'signidice', players: 2, seed: new Uint8Array(32).fill(6), turns: 2, house, cheat: 'house-wrong-signature' });
    expect(auditLines(cheat.lines).violations[0]).toMatchObject({ code: 'bad_vrf_proof', player: 'house' });
  });
});
