/**
 * The unvouched tail (docs/SPEC.md §4.4, §7.4): the last lines of a log are vouched by no later `head`, so
 * whoever holds a copy can drop them or reorder them unseen. After an honest race at the end of a game (a
 * player's last message, and another's deadline claim on a view without it, landing after it: stale),
 * deleting or swapping the last lines makes the claim look valid. Such a claim names nobody unless a later
 * envelope of another player saw its line. Property: honest games of every protocol with such a race, the
 * last 1, 2 or 3 lines deleted or swapped, name nobody; a withholder in the middle of a game, whose claim
 * later lines vouch for, is still named.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { auditLines } from './audit.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from './envelope.js';
import { Referee } from './referee.js';
import { RandomStream } from './stream.js';
import { simKeys, simulate, SIM_PROTOCOLS, type SimProtocol } from './sim/simulate.js';

/** An honest game whose last line raced a deadline claim that names its author, the claim landing after it. */
function raced(protocol: SimProtocol, seedByte: number): string[] | null {
  const seed = new Uint8Array(32).fill(seedByte);
  const lines = simulate({ protocol, players: 3, turns: 2, seed }).lines;
  const envs = lines.map((l) => JSON.parse(l) as Envelope);
  const n = lines.length - 1;
  const last = envs[n]!;
  const ids = (envs[0]!.body.setup as { players: { id: string }[] }).players.map((p) => p.id);
  const rng = new RandomStream(seed, 'tail-claimant');
  for (const [i, q] of ids.entries()) {
    if (q === last.from) continue;
    // The log without the last line, seen by q with its clock far past every deadline: the claim q's machine
    // posts (an observer's state seated as q, so q's own secrets play no part).
    const ref = new Referee(lines[0]!, null);
    for (let line = 1; line < n; line++) ref.feedText(line, lines[line]!);
    const now = last.time + 1_000_000;
    let claim: Body | undefined;
    try {
      const seated = { ...(ref.state as object), me: q };
      claim = ref.machine.tick(seated, { now, random: (k) => rng.bytes(k) }).out.find((b) => b.type === 'deadline');
    } catch {
      claim = undefined; // q's machine wanted to act with secrets an observer does not have
    }
    if (claim === undefined || !(claim.missing as string[]).includes(last.from)) continue;
    const mine = envs.slice(0, n).filter((e) => e.from === q);
    const env = signEnvelope(
      {
        v: 1,
        game: last.game,
        from: q,
        seq: mine.length,
        prev: mine.length === 0 ? last.game : envelopeHash(mine[mine.length - 1]!),
        at: n,
        head: envelopeHash(envs[n - 1]!),
        time: now,
        body: claim,
      },
      simKeys(seed, i).secretKey,
    );
    const race = [...lines, envelopeLine(env)];
    // Keep it only if the claim, read before the late line, names its author: what a referee that judged
    // the log line by line, with no tail rule, made of the swap.
    return namedBySwap(race).includes(last.from) ? race : null;
  }
  return null;
}

/** Who a line-by-line referee (no tail rule) names `withheld` once the last two lines are swapped. */
function namedBySwap(lines: readonly string[]): (string | null)[] {
  const swapped = applyTail(lines, [{ kind: 'swap', a: 0, b: 1 }]);
  const ref = new Referee(swapped[0]!, null);
  for (let line = 1; line < swapped.length; line++) ref.feedText(line, swapped[line]!);
  return ref.violations.filter((v) => v.code === 'withheld').map((v) => v.player);
}

const RACES: { protocol: SimProtocol; lines: string[] }[] = [];
for (const protocol of SIM_PROTOCOLS)
  for (const seedByte of [3, 4]) {
    const lines = raced(protocol, seedByte);
    if (lines !== null) RACES.push({ protocol, lines });
  }

type TailEdit = { kind: 'delete'; count: number } | { kind: 'swap'; a: number; b: number };

function applyTail(lines: readonly string[], edits: readonly TailEdit[]): string[] {
  const out = [...lines];
  for (const e of edits) {
    if (out.length < 5) break;
    if (e.kind === 'delete') out.splice(out.length - e.count, e.count);
    else {
      const [i, j] = [out.length - 1 - e.a, out.length - 1 - e.b];
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
  }
  return out;
}

const aTailEdit: fc.Arbitrary<TailEdit> = fc.oneof(
  fc.record({ kind: fc.constant('delete' as const), count: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.integer({ min: 0, max: 2 }), b: fc.integer({ min: 0, max: 2 }) }),
);

describe('the unvouched tail', () => {
  it('an honest race at the end audits valid, for every protocol', () => {
    expect(new Set(RACES.map((r) => r.protocol))).toEqual(new Set(SIM_PROTOCOLS));
    for (const { lines } of RACES) {
      const v = auditLines(lines);
      expect(v.violations).toEqual([]);
      expect(v.valid).toBe(true);
    }
  });

  it('swapping the claim before the late line names nobody (a referee with no tail rule named the late player)', () => {
    for (const { protocol, lines } of RACES) {
      const late = (JSON.parse(lines[lines.length - 2]!) as Envelope).from;
      expect(namedBySwap(lines)).toContain(late);
      const swapped = applyTail(lines, [{ kind: 'swap', a: 0, b: 1 }]);
      const v = auditLines(swapped);
      expect(
        v.violations.filter((x) => x.player !== null),
        protocol,
      ).toEqual([]);
      expect(v.valid).toBe(false);
      expect(v.outcome).toBeNull();
      expect(
        v.violations.some((x) => x.code === 'withheld' && /deadline claim names/.test(x.message)),
        protocol,
      ).toBe(true);
    }
  });

  it('deleting or swapping the last 1, 2 or 3 lines of an honest race names nobody', () => {
    fc.assert(
      fc.property(fc.nat(RACES.length - 1), fc.array(aTailEdit, { minLength: 1, maxLength: 3 }), (k, edits) => {
        const v = auditLines(applyTail(RACES[k]!.lines, edits));
        expect(v.violations.filter((x) => x.player !== null)).toEqual([]);
      }),
      { numRuns: 40, seed: 424242 },
    );
  });

  it('a withholder in the middle of a game is still named: later lines of other players vouch for the claim', () => {
    for (const protocol of ['beacon', 'snakes', 'keyed-stream'] as const) {
      const r = simulate({ protocol, players: 3, turns: 2, seed: new Uint8Array(32).fill(11), cheat: 'withhold', cheater: 'p2' });
      const v = auditLines(r.lines);
      expect(
        v.violations.map((x) => [x.code, x.player]),
        protocol,
      ).toContainEqual(['withheld', 'p2']);
      for (const x of v.violations) expect([null, 'p2']).toContain(x.player);
    }
  });
});
