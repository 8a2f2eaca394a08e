/** Strict lines and setup rules (docs/SPEC.md §4.1, §4.2 check 1, §4.5; issue 8 §2). */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditLines, auditText, MAX_VIOLATIONS } from './audit.js';
import { simKeys, simulate } from './sim/simulate.js';
import { envelopeLine, signEnvelope, type Envelope, type UnsignedEnvelope } from './envelope.js';
import { prepareLine, readSetupLine, TranscriptError } from './transcript.js';
import { fromHex } from './bytes.js';
import type { SetupBody } from './setup.js';

const seed = new Uint8Array(32).fill(3);
const honest = simulate({ protocol: 'dice', players: 3, seed, turns: 2 }).lines;
const setupEnv = JSON.parse(honest[0]!) as Envelope<SetupBody>;
const keys = new Map(setupEnv.body.setup.players.map((p) => [p.id, fromHex(p.key)]));
const sample = honest[3]!;
const withBody = (body: string): string => sample.replace(/"body":\{[^}]*\}/, `"body":${body}`);

const HOSTILE: Record<string, string> = {
  'a number beyond a double (1e400)': withBody('{"n":1e400,"type":"x"}'),
  'a lone surrogate': withBody('{"s":"\\ud800","type":"x"}'),
  '20,000-deep nesting': withBody(`{"d":${'['.repeat(20_000)}${']'.repeat(20_000)},"type":"x"}`),
  'a second, conflicting "from"': sample.replace('{"at"', '{"from":"p2","at"'),
  'the same "from" twice': sample.replace('{"at"', `{"from":"${(JSON.parse(sample) as Envelope).from}","at"`),
  '-0 as seq': honest.find((l, i) => i > 0 && l.includes('"seq":0,'))!.replace('"seq":0,', '"seq":-0,'),
  'white space': sample.replace('{"at"', '{ "at"'),
  'members out of order': sample.replace(/^\{("at":\d+),/, '{$1,"v":1,').replace(/,"v":1\}$/, '}'),
  'an escaped character that needs none': sample.replace('"from":"p', '"from":"\\u0070'),
  'a trailing space': sample + ' ',
  '1.0 for 1': sample.replace(/"time":(\d+)/, '"time":$1.0'),
};

describe('a line that is not exactly the canonical form of an envelope is one malformed line', () => {
  for (const [name, line] of Object.entries(HOSTILE)) {
    it(name, () => {
      expect(line).not.toBe(sample);
      const p = prepareLine(3, line, keys);
      expect(p.envelope).toBeNull();
      expect(p.shapeError).not.toBeNull();
      const lines = [...honest.slice(0, 3), line, ...honest.slice(3)];
      const v = auditLines(lines).violations;
      expect(v[0]).toMatchObject({ code: 'malformed', player: null, seq: 3 });
      // Every seat carries on: the same line in place of its honest original names nobody either.
      const replaced = honest.map((l, i) => (i === 3 ? line : l));
      expect(auditLines(replaced).violations[0]).toMatchObject({ code: 'malformed', player: null, seq: 3 });
    });
  }

  it('says why: duplicate members and -0 by name', () => {
    expect(prepareLine(3, HOSTILE['a second, conflicting "from"']!, keys).shapeError).toMatch(/duplicate member name "from"/);
    expect(prepareLine(3, HOSTILE['-0 as seq']!, keys).shapeError).toMatch(/-0/);
    expect(prepareLine(3, HOSTILE['20,000-deep nesting']!, keys).shapeError).toMatch(/deeper than 64/);
    expect(prepareLine(3, HOSTILE['white space']!, keys).shapeError).toMatch(/canonical form/);
  });

  it('a seat handed a line longer than 1 MiB refuses it unread', () => {
    const p = prepareLine(3, withBody(`{"s":"${'a'.repeat(1 << 20)}","type":"x"}`), keys);
    expect(p.shapeError).toMatch(/longer than 1048576 bytes/);
    expect(p.text.length).toBe(200);
  });

  it('an honest line is prepared', () => {
    const p = prepareLine(3, sample, keys);
    expect(p.shapeError).toBeNull();
    expect(p.sigOk).toBe(true);
  });

  it('prepareLine never throws, for any string or any mutation of an honest line', () => {
    const mutated = fc
      .tuple(fc.integer({ min: 0, max: honest.length - 1 }), fc.nat(), fc.nat({ max: 40 }), fc.string({ unit: 'binary', maxLength: 12 }))
      .map(([i, at, cut, insert]) => {
        const t = honest[i]!;
        const pos = at % (t.length + 1);
        return t.slice(0, pos) + insert + t.slice(Math.min(t.length, pos + cut));
      });
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.json(), mutated), (text) => {
        const p = prepareLine(5, text, keys);
        expect(p.line).toBe(5);
        if (p.envelope !== null) expect(envelopeLine(p.envelope)).toBe(text);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('bounds (docs/SPEC.md §9)', () => {
  it('keeps the first MAX_VIOLATIONS violations and counts the rest', () => {
    const text = honest.join('\n') + '\n' + 'x\n'.repeat(MAX_VIOLATIONS + 500);
    const v = auditText(text);
    expect(v.valid).toBe(false);
    expect(v.violations.length).toBeLessThanOrEqual(MAX_VIOLATIONS + 1);
    expect(v.violations.length + v.omitted).toBe(MAX_VIOLATIONS + 500);
    expect(v.lines).toBe(honest.length + MAX_VIOLATIONS + 500);
  });
});

describe('the setup line (docs/SPEC.md §4.1): anything else is unreadable', () => {
  const creator = simKeys(seed, 0);
  const resign = (changes: Partial<UnsignedEnvelope<SetupBody>>, secretKey = creator.secretKey): string => {
    const { sig: _sig, ...unsigned } = setupEnv;
    return envelopeLine(signEnvelope({ ...unsigned, ...changes }, secretKey));
  };
  const unreadable = (line0: string, pattern: RegExp): void => {
    let error: unknown;
    try {
      auditLines([line0, ...honest.slice(1)]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TranscriptError);
    expect((error as TranscriptError).code).toBe('bad_setup');
    expect((error as Error).message).toMatch(pattern);
  };

  it('accepts the honest setup', () => {
    expect(readSetupLine(honest[0]!).gameId).toBe(setupEnv.game);
  });
  it('refuses a bad signature', () => {
    const sig = setupEnv.sig;
    unreadable(honest[0]!.replace(sig, (sig[0] === '0' ? '1' : '0') + sig.slice(1)), /signature does not verify/);
  });
  it('refuses a setup signed by someone who is not a player', () => {
    unreadable(resign({ from: 'mallory' }, simKeys(seed, 99).secretKey), /mallory, who is not one of its players/);
  });
  it('refuses a setup signed by another player than its from', () => {
    unreadable(resign({}, simKeys(seed, 1).secretKey), /signature does not verify under p0/);
  });
  it('refuses seq ≠ 0', () => unreadable(resign({ seq: 5 }), /seq 0/));
  it('refuses at ≠ 0', () => unreadable(resign({ at: 1 }), /at 0/));
  it('refuses a wrong head', () => unreadable(resign({ head: 'ab'.repeat(32) }), /head/));
  it('refuses a wrong prev', () => unreadable(resign({ prev: 'ab'.repeat(32) }), /prev/));
  it('refuses a setup line that is not canonical, or not I-JSON', () => {
    for (const t of [honest[0]! + ' ', honest[0]!.replace('{"at"', '{"v":1,"at"')]) {
      expect(() => readSetupLine(t)).toThrow(TranscriptError);
    }
  });
  it('refuses an empty transcript, or one whose first line is unreadable', () => {
    expect(() => auditLines([])).toThrow(TranscriptError);
    expect(() => auditLines(['', '  '])).toThrow(/empty/);
    expect(() => auditText(Uint8Array.from([0xff, 0x0a]))).toThrow(/not UTF-8/);
  });
});
