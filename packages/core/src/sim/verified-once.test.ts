import { describe, expect, it } from 'vitest';
import { utf8 } from '../bytes.js';
import { generateKeyPair, sign, verify } from '../identity.js';
import { verifiedOnce } from './verified-once.js';

const ann = generateKeyPair(new Uint8Array(32).fill(1));
const bob = generateKeyPair(new Uint8Array(32).fill(2));
const message = utf8('{"from":"ann","line":1}');
const signature = sign(message, ann.secretKey);

/** A check that counts how often it is asked. */
function counted(): { check: ReturnType<typeof verifiedOnce>; asked: () => number } {
  let asked = 0;
  const check = verifiedOnce((s, m, k) => {
    asked++;
    return verify(s, m, k);
  }, 3);
  return { check, asked: () => asked };
}

describe('verifiedOnce: one signature check for a simulated table', () => {
  it('asks once for the same signature, key and message, and gives the same answer', () => {
    const { check, asked } = counted();
    for (let i = 0; i < 5; i++) expect(check(signature, message.slice(), ann.publicKey.slice())).toBe(true);
    expect(asked()).toBe(1);
  });

  it('checks a signature afresh on another message or under another key, and does not take its answer from the first', () => {
    const { check, asked } = counted();
    expect(check(signature, message, ann.publicKey)).toBe(true);
    expect(check(signature, utf8('{"from":"ann","line":2}'), ann.publicKey)).toBe(false);
    expect(check(signature, message, bob.publicKey)).toBe(false);
    // The first answer is still the one kept for the first triple, and the false ones were never kept for it.
    expect(check(signature, message, ann.publicKey)).toBe(true);
    expect(asked()).toBe(3);
  });

  it('keeps an answer from arrays the caller reuses afterwards', () => {
    const { check } = counted();
    const scratch = message.slice();
    expect(check(signature, scratch, ann.publicKey)).toBe(true);
    scratch[0] = 0x20;
    expect(check(signature, scratch, ann.publicKey)).toBe(false);
  });

  it('lets every answer go once it holds its limit, and asks again', () => {
    const { check, asked } = counted();
    const others = [2, 3, 4].map((n) => utf8(`m${n}`)).map((m) => ({ m, s: sign(m, ann.secretKey) }));
    expect(check(signature, message, ann.publicKey)).toBe(true);
    for (const o of others.slice(0, 2)) expect(check(o.s, o.m, ann.publicKey)).toBe(true);
    expect(asked()).toBe(3);
    // A fourth answer at the limit of three: all go, and the first is asked again.
    expect(check(others[2]!.s, others[2]!.m, ann.publicKey)).toBe(true);
    expect(check(signature, message, ann.publicKey)).toBe(true);
    expect(asked()).toBe(5);
  });
});
