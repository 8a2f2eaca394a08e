/**
 * An answer sealed to the player's own key (own-answer.ts): it opens with her key and context only, its
 * length tells only its 1,024-byte bucket, and the same inputs seal the same box (two devices agree).
 */
import { describe, expect, it } from 'vitest';
import { fromHex } from '../bytes.js';
import { generateKeyPair } from '../identity.js';
import { openShare } from '../escrow/vss.js';
import { OWN_ANSWER_BLOCK, openOwnAnswer, sealOwnAnswer } from './own-answer.js';

const ann = generateKeyPair(new Uint8Array(32).fill(7));
const bob = generateKeyPair(new Uint8Array(32).fill(8));
const nonce = 'ab'.repeat(32);
const openWith = (secretKey: Uint8Array) => (key: Parameters<typeof openShare>[0], context: string) => openShare(key, secretKey, context);

describe('an answer sealed to its player', () => {
  it('opens with her key and the context, to the answer', () => {
    const answer = { A: 'A PAR - BUR', F: 'F BRE - MAO', Ü: 'ünïcode' };
    const sealed = sealOwnAnswer(answer, ann.publicKey, 'ctx/1', nonce);
    expect(openOwnAnswer(sealed, 'ctx/1', openWith(ann.secretKey))).toEqual(answer);
    expect(openOwnAnswer(sealed, 'ctx/2', openWith(ann.secretKey))).toBeNull();
    expect(openOwnAnswer(sealed, 'ctx/1', openWith(bob.secretKey))).toBeNull();
    expect(openOwnAnswer({ key: sealed.key, box: sealed.box.replace(/^./, (c) => (c === '0' ? '1' : '0')) }, 'ctx/1', openWith(ann.secretKey))).toBeNull();
    expect(openOwnAnswer('nothing', 'ctx/1', openWith(ann.secretKey))).toBeNull();
  });

  it('is the same for the same inputs, and its length tells only the bucket', () => {
    expect(sealOwnAnswer('x', ann.publicKey, 'c', nonce)).toEqual(sealOwnAnswer('x', ann.publicKey, 'c', nonce));
    expect(sealOwnAnswer('x', ann.publicKey, 'c', nonce)).not.toEqual(sealOwnAnswer('x', ann.publicKey, 'c', 'cd'.repeat(32)));
    const size = (a: string): number => fromHex(sealOwnAnswer(a, ann.publicKey, 'c', nonce).box).length;
    // ChaCha20-Poly1305 adds a 16-byte tag to the padded text.
    expect(size('a')).toBe(OWN_ANSWER_BLOCK + 16);
    expect(size('a'.repeat(900))).toBe(OWN_ANSWER_BLOCK + 16);
    expect(size('a'.repeat(1100))).toBe(2 * OWN_ANSWER_BLOCK + 16);
  });
});
