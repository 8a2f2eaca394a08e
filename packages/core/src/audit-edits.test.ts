/**
 * Whoever holds a transcript cannot frame an honest player (docs/SPEC.md §4.4). For honest transcripts of
 * every protocol and any edit by their holder (delete, insert, duplicate, swap, alter a byte, cut a line
 * short, splice in lines of another game of the same players), the audit names no player: what a checking
 * orderer would have refused, or a `head` the log contradicts, shows the log was altered, and from there
 * the game is not judged on it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { simulate, SIM_PROTOCOLS, type SimProtocol } from './sim/simulate.js';
import { auditLines } from './audit.js';
import { verifiedOnce } from './sim/memo.js';
import { verify } from './identity.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

const seedA = new Uint8Array(32).fill(31);
/** The games are played on OpenSSL's Ed25519 (the same signatures as noble's, packages/node's differential test); every audit here checks with noble. */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;
const games = new Map<SimProtocol, { honest: string[]; other: string[] }>(
  SIM_PROTOCOLS.map((protocol) => {
    const honest = simulate({ protocol, players: 3, turns: 2, seed: seedA, ...ed25519 }).lines;
    // Another game of the same players: the same keys (from the seed), another setup nonce.
    const other = simulate({ protocol, players: 3, turns: 2, seed: seedA, timeoutMs: 2001, ...ed25519 }).lines;
    return [protocol, { honest, other }];
  }),
);

type Edit =
  | { kind: 'delete'; at: number }
  | { kind: 'duplicate'; at: number; to: number }
  | { kind: 'swap'; at: number; to: number }
  | { kind: 'flip'; at: number; offset: number; char: string }
  | { kind: 'cut'; at: number; keep: number }
  | { kind: 'splice'; at: number; from: number }
  | { kind: 'junk'; at: number; text: string };

function apply(lines: readonly string[], other: readonly string[], edit: Edit): string[] {
  const out = [...lines];
  const i = 1 + (edit.at % (out.length - 1)); // line 0, the setup, is the game's identity: an edit there is another game
  switch (edit.kind) {
    case 'delete':
      out.splice(i, 1);
      break;
    case 'duplicate':
      out.splice(1 + (edit.to % out.length), 0, out[i]!);
      break;
    case 'swap': {
      const j = 1 + (edit.to % (out.length - 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
      break;
    }
    case 'flip': {
      const t = out[i]!;
      const k = edit.offset % t.length;
      out[i] = t.slice(0, k) + edit.char + t.slice(k + 1);
      break;
    }
    case 'cut':
      out[i] = out[i]!.slice(0, edit.keep % out[i]!.length);
      break;
    case 'splice':
      out.splice(i, 0, other[1 + (edit.from % (other.length - 1))]!);
      break;
    case 'junk':
      out.splice(i, 0, edit.text);
      break;
  }
  return out;
}

const anEdit: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(), to: fc.nat() }),
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), offset: fc.nat(), char: fc.constantFrom('0', '1', 'a', 'f', '"', '}', ' ', '9') }),
  fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), keep: fc.nat() }),
  fc.record({ kind: fc.constant('splice' as const), at: fc.nat(), from: fc.nat() }),
  fc.record({ kind: fc.constant('junk' as const), at: fc.nat(), text: fc.constantFrom('null', '{}', '[]', '{"v":1}', '1e400', '"\\ud800"') }),
);

describe("a transcript's holder cannot frame an honest player", () => {
  it('the honest transcripts audit valid, and the spliced game is another game', () => {
    for (const { honest, other } of games.values()) {
      expect(auditLines(honest).valid).toBe(true);
      expect(other[0]).not.toBe(honest[0]);
    }
  });

  it('the reported edits: a deleted line, a flipped byte, an envelope from another game, a truncated line', () => {
    const { honest, other } = games.get('dice')!;
    for (const edited of [
      apply(honest, other, { kind: 'delete', at: 9 }),
      apply(honest, other, { kind: 'flip', at: 4, offset: 200, char: '0' }),
      apply(honest, other, { kind: 'splice', at: 5, from: 3 }),
      apply(honest, other, { kind: 'cut', at: 6, keep: 100 }),
    ]) {
      const v = auditLines(edited);
      expect(v.valid).toBe(false);
      expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
      expect(v.outcome).toBeNull();
    }
    const signidice = games.get('signidice')!;
    const v = auditLines(apply(signidice.honest, signidice.other, { kind: 'delete', at: 6 }));
    expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
    expect(v.outcome).toBeNull();
  });

  it('a repeated line is an alteration: it cannot fill the place of a moved one (rochambeau, fast-check seed -828441111)', () => {
    const { honest, other } = games.get('rochambeau')!;
    // Lines 1–3 are the three Commits (p0, p2, p1), line 4 p1's Reveal on a view of 4 lines. The edits move
    // p0's Commit after that Reveal and put a second copy of p2's Commit in its place, so line 3 is still
    // the line p1's `head` names: read as a harmless skip, the repeat made honest p1 `out_of_turn`.
    let lines = honest;
    for (const e of [
      { kind: 'delete', at: 1614382595 },
      { kind: 'duplicate', at: 188973871, to: 154742248 },
      { kind: 'swap', at: 0, to: 458727418 },
    ] as const)
      lines = apply(lines, other, e);
    expect(lines.slice(1, 6)).toEqual([honest[2], honest[2], honest[3], honest[4], honest[1]]);
    const v = auditLines(lines);
    expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
    expect(v.alteredAt).toBe(2);
    expect(v.violations[0]).toMatchObject({ code: 'bad_position', player: null, seq: 2 });
    expect(v.outcome).toBeNull();
    // A repeat alone, anywhere, shows the alteration too; the log without it audits valid.
    for (const at of [1, 3, 6]) {
      const repeated = auditLines([...honest.slice(0, at + 1), honest[at]!, ...honest.slice(at + 1)]);
      expect([repeated.valid, repeated.alteredAt]).toEqual([false, at + 1]);
    }
  });

  it('any edit of any protocol names nobody', () => {
    // The 400 edited logs share most of their lines: each signature is checked once, with noble, and its answer
    // reused (a check is a pure function of signature, message and key, so no verdict can change).
    const verifyOnce = verifiedOnce(verify);
    fc.assert(
      fc.property(fc.constantFrom(...SIM_PROTOCOLS), fc.array(anEdit, { minLength: 1, maxLength: 3 }), (protocol, edits) => {
        const { honest, other } = games.get(protocol)!;
        let lines = honest;
        for (const e of edits) lines = apply(lines, other, e);
        const v = auditLines(lines, { verify: verifyOnce });
        expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });
});
