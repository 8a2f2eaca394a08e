import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditLines } from './audit.js';
import { verifiedOnce } from './sim/memo.js';
import { simulate } from './sim/simulate.js';
import type { Envelope } from './envelope.js';
import { envelopeLine } from './envelope.js';
import { verify } from './identity.js';

const seed = new Uint8Array(32).fill(3);
const honest = simulate({ protocol: 'dice', players: 3, seed, turns: 2 }).lines;

function codes(lines: string[]): string[] {
  return auditLines(lines).violations.map((v) => v.code);
}

describe('transcripts', () => {
  it('an honest transcript is valid', () => {
    expect(auditLines(honest).valid).toBe(true);
  });

  it('any altered byte after the setup is caught', () => {
    // The 300 altered logs share all their lines but one: each signature is checked once, with noble, and its
    // answer reused (a check is a pure function of signature, message and key); every altered line is checked.
    const verifyOnce = verifiedOnce(verify);
    fc.assert(
      fc.property(fc.integer({ min: 1, max: honest.length - 1 }), fc.nat(), fc.integer({ min: 1, max: 255 }), (line, at, delta) => {
        const text = honest[line]!;
        const pos = at % text.length;
        const altered = text.slice(0, pos) + String.fromCharCode((text.charCodeAt(pos) + delta) % 128) + text.slice(pos + 1);
        if (altered === text) return true;
        const lines = honest.slice();
        lines[line] = altered;
        return !auditLines(lines, { verify: verifyOnce }).valid;
      }),
      { numRuns: 300 },
    );
  });

  it('reordering two envelopes is caught', () => {
    const lines = honest.slice();
    [lines[3], lines[5]] = [lines[5]!, lines[3]!];
    expect(auditLines(lines).valid).toBe(false);
  });

  it('a dropped envelope is caught', () => {
    const lines = honest.slice();
    lines.splice(4, 1);
    expect(auditLines(lines).valid).toBe(false);
  });

  it('an envelope from another game is named as a replay by its signer', () => {
    const other = simulate({ protocol: 'dice', players: 3, seed: new Uint8Array(32).fill(4), turns: 2 }).lines;
    const lines = [...honest.slice(0, 6), other[5]!, ...honest.slice(6)];
    const v = auditLines(lines).violations;
    expect(v[0]?.code).toBe('bad_signature'); // other game, other keys: p? of that game is not p? of this one
  });

  it('a transcript whose setup was altered is unreadable', () => {
    const setup = JSON.parse(honest[0]!) as Envelope;
    const altered = { ...setup, body: { ...setup.body, setup: { ...(setup.body.setup as object), created: 1 } } };
    expect(() => auditLines([envelopeLine(altered as Envelope), ...honest.slice(1)])).toThrow(/setup was altered/);
  });

  it('an envelope claiming to have been written on no view at all is bad_position: the log was altered, nobody is named', async () => {
    const { signEnvelope, envelopeLine: line } = await import('./envelope.js');
    const { simKeys } = await import('./sim/simulate.js');
    const setup = JSON.parse(honest[0]!) as Envelope;
    const forged = signEnvelope(
      {
        v: 1,
        game: setup.game,
        from: 'p1',
        seq: 0,
        prev: setup.game,
        at: 0,
        head: '0'.repeat(64),
        time: 0,
        body: { type: 'join', commitment: 'ab'.repeat(32) },
      },
      simKeys(seed, 1).secretKey,
    );
    const verdict = auditLines([honest[0]!, line(forged)]);
    expect(verdict.violations[0]).toMatchObject({ code: 'bad_position', player: null });
    expect(verdict.alteredAt).toBe(1);
    expect(verdict.outcome).toBeNull();
  });

  it('a line that is not an envelope is malformed, naming nobody', () => {
    const lines = [...honest.slice(0, 3), '{"hello":1}', ...honest.slice(3)];
    expect(codes(lines)[0]).toBe('malformed');
    expect(auditLines(lines).violations[0]?.player).toBeNull();
  });
});
