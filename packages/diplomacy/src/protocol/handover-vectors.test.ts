/**
 * Test vector for a newcomer's hand-over (docs/spec/diplomacy.md §10.15), computed independently with Python's
 * hashlib, json and cryptography: the bytes the newcomer signs, its consent, the proposal's hash and both
 * bodies as canonical JSON, byte for byte; the consent under another game or power does not verify.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair, verify } from '@fairtable/core/identity.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { newcomerIn } from '@fairtable/core/transcript.js';
import { approveBody, consentBytes, HANDOVER_MESSAGES, newcomerBody, newcomerConsent, proposalHash, type Newcomer } from './handover.js';

const v = JSON.parse(readFileSync(new URL('../testdata/handover-vectors.json', import.meta.url), 'utf8')) as {
  game: string;
  power: string;
  newcomer: Newcomer;
  secretSeed: string;
  consentBytes: string;
  consent: string;
  proposal: string;
  newcomerBody: string;
  approveBody: string;
};

describe('hand-over vector', () => {
  const keys = generateKeyPair(fromHex(v.secretSeed, 'seed', 32));

  it('the key, the bytes signed, the consent, the proposal hash and both bodies, byte for byte', () => {
    expect(toHex(keys.publicKey)).toBe(v.newcomer.key);
    expect(toHex(consentBytes(v.game, v.power, v.newcomer))).toBe(v.consentBytes);
    expect(newcomerConsent(v.game, v.power, v.newcomer, keys.secretKey)).toBe(v.consent);
    expect(proposalHash(v.game, v.power, v.newcomer)).toBe(v.proposal);
    const body = newcomerBody(v.power, v.newcomer, v.consent);
    expect(canonicalize(body as unknown as JsonValue)).toBe(v.newcomerBody);
    expect(canonicalize(approveBody(v.proposal) as unknown as JsonValue)).toBe(v.approveBody);
    expect(HANDOVER_MESSAGES.newcomer.safeParse(body).success).toBe(true);
    expect(newcomerIn(body)).toEqual({ id: v.newcomer.id, key: v.newcomer.key });
  });

  it('the consent binds the game and the power', () => {
    const sig = fromHex(v.consent, 'consent', 64);
    expect(verify(sig, consentBytes(v.game, v.power, v.newcomer), keys.publicKey)).toBe(true);
    expect(verify(sig, consentBytes(v.game, 'france', v.newcomer), keys.publicKey)).toBe(false);
    expect(verify(sig, consentBytes('00'.repeat(32), v.power, v.newcomer), keys.publicKey)).toBe(false);
    expect(verify(sig, consentBytes(v.game, v.power, { ...v.newcomer, name: 'Nora' }), keys.publicKey)).toBe(false);
  });
});
