import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  RochambeauError,
  checkCommit,
  checkReveal,
  decodeCommit,
  decodeReveal,
  decodeState,
  encodeCommit,
  encodeReveal,
  encodeState,
  gameSize,
} from './codec.js';
import { FairtableError } from '../errors.js';

const hex = (text: string): Uint8Array => Uint8Array.from(text.match(/../g) ?? [], (pair) => parseInt(pair, 16));

function codeOf(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof RochambeauError || error instanceof FairtableError) return error.code;
    throw error;
  }
  throw new Error('expected a rejection');
}

describe('gameSize (§3, §4.4)', () => {
  it('takes m as the smallest octet length with 2^(8m) > N', () => {
    const cases: [bigint | number | string, number][] = [
      [3, 1],
      [255, 1],
      [257, 2],
      [65535, 2],
      [65537, 3],
      [2 ** 31 - 1, 4],
      [2n ** 32n - 1n, 4],
      [2n ** 32n + 1n, 5],
      ['18446744073709551617', 9],
    ];
    for (const [N, m] of cases) expect(gameSize(N).m, String(N)).toBe(m);
  });

  it('runs on Numbers below 2^32 and on BigInt above', () => {
    expect(gameSize(2n ** 32n - 1n)).toMatchObject({ small: true, n: 2 ** 32 - 1 });
    expect(gameSize(2n ** 32n + 1n).small).toBe(false);
  });

  it('refuses an even N, an N below 3, and what is not an integer', () => {
    expect(codeOf(() => gameSize(100))).toBe('out_of_range');
    expect(codeOf(() => gameSize(1))).toBe('out_of_range');
    expect(codeOf(() => gameSize(2n ** 40n))).toBe('out_of_range');
    expect(codeOf(() => gameSize(3.5))).toBe('bad_input');
    expect(codeOf(() => gameSize('0101'))).toBe('bad_input');
    expect(codeOf(() => gameSize('1e3'))).toBe('bad_input');
    expect(() => gameSize(100)).toThrow(/odd/);
  });
});

describe('state encoding M = I2OSP(q, m)', () => {
  it('pads to m octets, big-endian', () => {
    expect(encodeState(1, gameSize(3))).toEqual(hex('01'));
    expect(encodeState(258, gameSize(65537))).toEqual(hex('000102'));
    expect(encodeState(2 ** 31 - 2, gameSize(2 ** 31 - 1))).toEqual(hex('7ffffffe'));
  });

  it('round-trips every state 1..N-1', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 3n, max: 2n ** 80n }), fc.bigInt({ min: 0n, max: 2n ** 80n }), (raw, pick) => {
        const N = raw | 1n;
        const size = gameSize(N);
        const q = 1n + (pick % (N - 1n));
        const M = encodeState(q, size);
        expect(M.length).toBe(size.m);
        expect(decodeState(M)).toBe(q);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses 0 and N (§4.2: 0 < q < N)', () => {
    expect(codeOf(() => encodeState(0, gameSize(5)))).toBe('state_out_of_range');
    expect(codeOf(() => encodeState(5, gameSize(5)))).toBe('state_out_of_range');
  });
});

describe('Commit payload: type 1 ‖ C', () => {
  it('is two type octets then C, nothing else (resolution 2)', () => {
    const C = hex('aa'.repeat(32));
    const commit = encodeCommit(C);
    expect(commit).toEqual(hex(`0001${'aa'.repeat(32)}`));
    expect(decodeCommit(commit, 32)).toEqual(C);
  });

  it('round-trips any C', () => {
    fc.assert(
      fc.property(fc.constantFrom(32, 48, 64), fc.uint8Array({ minLength: 64, maxLength: 64 }), (h, bytes) => {
        const C = bytes.subarray(0, h);
        expect(decodeCommit(encodeCommit(C), h)).toEqual(C);
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects each malformation with its code', () => {
    const good = encodeCommit(new Uint8Array(32).fill(7));
    const cases: [string, Uint8Array, string][] = [
      ['empty', new Uint8Array(0), 'bad_length'],
      ['one octet', hex('00'), 'bad_length'],
      ['a Reveal type', hex(`0002${'07'.repeat(32)}`), 'bad_payload_type'],
      ['an unknown type', hex(`0300${'07'.repeat(32)}`), 'bad_payload_type'],
      ['type 0', hex(`0000${'07'.repeat(32)}`), 'bad_payload_type'],
      ['C one octet short', good.subarray(0, good.length - 1), 'bad_length'],
      ['type alone', good.subarray(0, 2), 'bad_length'],
      ['one trailing octet', Uint8Array.of(...good, 0), 'trailing_bytes'],
      ['a SHA-512 C in a SHA-256 game', encodeCommit(new Uint8Array(64)), 'trailing_bytes'],
    ];
    for (const [name, payload, code] of cases) {
      expect(checkCommit(payload, 0, payload.length, 32)?.code, name).toBe(code);
      expect(
        codeOf(() => decodeCommit(payload, 32)),
        name,
      ).toBe(code);
    }
  });

  it('reads a Commit in place inside a larger buffer', () => {
    const commit = encodeCommit(new Uint8Array(32).fill(9));
    const buffer = Uint8Array.of(0xff, ...commit, 0xff);
    expect(checkCommit(buffer, 1, 1 + commit.length, 32)).toBeNull();
    expect(checkCommit(buffer, 1, 2 + commit.length, 32)?.code).toBe('trailing_bytes');
  });
});

describe('Reveal payload: type 2 ‖ nonce length ‖ nonce ‖ M', () => {
  const nonce = Uint8Array.from({ length: 32 }, (_, i) => i);

  it('lays out the fields of §4.6 byte for byte', () => {
    const reveal = encodeReveal(nonce, hex('0102'));
    expect(reveal).toEqual(Uint8Array.of(0, 2, 0, 32, ...nonce, 1, 2));
    expect(reveal.length).toBe(4 + 32 + 2);
    const { nonce: n, M } = decodeReveal(reveal, 2);
    expect(n).toEqual(nonce);
    expect(M).toEqual(hex('0102'));
  });

  it('round-trips any nonce of 16 or more octets and any M', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 300 }), fc.uint8Array({ minLength: 1, maxLength: 9 }), (n, M) => {
        const decoded = decodeReveal(encodeReveal(n, M), M.length);
        expect(decoded.nonce).toEqual(n);
        expect(decoded.M).toEqual(M);
      }),
      { numRuns: 1000 },
    );
  });

  it('rejects each malformation with its code', () => {
    const good = encodeReveal(nonce, hex('05'));
    const cases: [string, Uint8Array, string][] = [
      ['empty', new Uint8Array(0), 'bad_length'],
      ['one octet', hex('00'), 'bad_length'],
      ['a Commit type', Uint8Array.of(0, 1, ...good.subarray(2)), 'bad_payload_type'],
      ['an unknown type', Uint8Array.of(0x12, 0x34, ...good.subarray(2)), 'bad_payload_type'],
      ['type without length', hex('0002'), 'bad_length'],
      ['half a length field', hex('000200'), 'bad_length'],
      ['M missing', good.subarray(0, good.length - 1), 'bad_length'],
      ['nonce cut short', good.subarray(0, 20), 'bad_length'],
      ['one trailing octet', Uint8Array.of(...good, 0), 'trailing_bytes'],
      ['length field too small for the rest', Uint8Array.of(0, 2, 0, 31, ...nonce, 5), 'trailing_bytes'],
      ['length field too large for the rest', Uint8Array.of(0, 2, 0, 33, ...nonce, 5), 'bad_length'],
      ['a 15-octet nonce', encodeRaw(nonce.subarray(0, 15), hex('05')), 'short_nonce'],
      ['an empty nonce', encodeRaw(new Uint8Array(0), hex('05')), 'short_nonce'],
    ];
    for (const [name, payload, code] of cases) {
      expect(checkReveal(payload, 0, payload.length, 1)?.code, name).toBe(code);
      expect(
        codeOf(() => decodeReveal(payload, 1)),
        name,
      ).toBe(code);
    }
  });

  it('accepts exactly 16 octets of nonce', () => {
    const reveal = encodeReveal(nonce.subarray(0, 16), hex('05'));
    expect(checkReveal(reveal, 0, reveal.length, 1)).toBeNull();
  });

  it('will not build a Reveal with a short nonce', () => {
    expect(codeOf(() => encodeReveal(nonce.subarray(0, 8), hex('05')))).toBe('short_nonce');
  });

  it('says in the detail which lengths disagree', () => {
    const good = encodeReveal(nonce, hex('05'));
    expect(checkReveal(good, 0, good.length - 1, 1)?.detail).toBe('Reveal is 36 octets; nonce length 32 and m = 1 need 37');
  });
});

/** A Reveal laid out by hand, for nonces the encoder refuses. */
function encodeRaw(nonce: Uint8Array, M: Uint8Array): Uint8Array {
  return Uint8Array.of(0, 2, nonce.length >> 8, nonce.length & 255, ...nonce, ...M);
}
