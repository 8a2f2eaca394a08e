/**
 * Machines are pure (docs/SPEC.md §7): a step never changes the state it was given. Every state handed to a
 * machine here is deep-frozen first, so any write into it throws, and the games are played through the
 * simulator, honestly and with every cheat, on these frozen machines.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_REGISTRY, type AnyMachine } from '../registry.js';
import { frozenMachine as frozen, frozenRegistry, Mutation } from '../sim/frozen.js';
import { simulate, SIM_PROTOCOLS } from '../sim/simulate.js';
import { GENERIC_CHEATS, type Cheat } from '../sim/cheats.js';
import { Auditor } from '../audit.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';

const registry = frozenRegistry(DEFAULT_REGISTRY);
/**
 * The games are signed and checked with OpenSSL's Ed25519 (the same bytes and verdicts as noble's, packages/node's
 * differential test): what is tested here is the machines' purity; sim/cheats.test.ts plays every protocol on noble.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

function audit(lines: readonly string[]) {
  const a = new Auditor(lines[0]!, { registry, verify: nativeVerify });
  for (const l of lines.slice(1)) a.add(l);
  return a.verdict();
}

describe('no machine changes the state it is given', () => {
  it('the freezing wrapper catches a write into a state', () => {
    const writer: AnyMachine = { ...frozen(DEFAULT_REGISTRY.machines.get('beacon')!) };
    const bad = frozen({
      ...DEFAULT_REGISTRY.machines.get('beacon')!,
      tick: (s: { claimed: string | null }) => ((s.claimed = 'x'), { state: s, out: [], events: [], violations: [] }),
    });
    expect(() => bad.tick({ claimed: null }, { now: 0, random: () => new Uint8Array(0) })).toThrow(Mutation);
    expect(writer.protocol).toBe('beacon');
  });

  it('beacon with layered escrow: a withheld onion with a bad box, peeled on frozen states', () => {
    for (const cheat of ['layers-bad-box', 'layers-inside-differs'] as const) {
      const r = simulate({
        protocol: 'beacon',
        players: 4,
        seed: new Uint8Array(32).fill(22),
        params: { escrow: { scheme: 'layers' } },
        registry,
        cheat,
        cheater: 'p2',
        ...ed25519,
      });
      const v = audit(r.lines);
      expect(v.violations.map((x) => x.player)).toContain('p2');
      for (const x of v.violations) expect(x.player).toBe('p2');
    }
  });

  it('rochambeau with threshold escrow: a withheld Reveal opened, a wrong share named, on frozen states', () => {
    for (const [cheat, accomplices] of [
      ['withhold', undefined],
      ['escrow-wrong-share', { p1: 'withhold' }],
      ['escrow-bad-deal', undefined],
    ] as const) {
      const r = simulate({
        protocol: 'rochambeau',
        players: 3,
        seed: new Uint8Array(32).fill(6),
        params: { escrow: { scheme: 'vss', threshold: 2 } },
        registry,
        cheat,
        cheater: 'p2',
        ...(accomplices === undefined ? {} : { accomplices }),
        ...ed25519,
      });
      const v = audit(r.lines);
      expect(v.violations.map((x) => x.player)).toContain('p2');
      for (const x of v.violations) expect(['p1', 'p2']).toContain(x.player);
    }
  });

  for (const [protocol, game] of [...SIM_PROTOCOLS.map((p) => [p, undefined] as const), ['keyed-stream', 'monopoly'] as const]) {
    const cheats: readonly (Cheat | undefined)[] = [
      undefined,
      ...GENERIC_CHEATS,
      ...(protocol === 'signidice' ? (['house-wrong-signature', 'house-key-swap', 'player-reuse-r'] as const) : []),
    ];
    it(`${protocol}${game === undefined ? '' : ` playing ${game}`}: honest and cheating games on frozen states`, () => {
      for (const cheat of cheats) {
        const cheater = cheat?.startsWith('house-') ? 'house' : 'p2';
        const r = simulate({
          protocol,
          players: 3,
          turns: 2,
          seed: new Uint8Array(32).fill(21),
          drop: 0.05,
          registry,
          ...(game === undefined ? {} : { game }),
          ...(cheat === undefined ? {} : { cheat, cheater }),
          ...ed25519,
        });
        const v = audit(r.lines);
        for (const x of v.violations) expect([cheater, null]).toContain(x.player);
        if (cheat === undefined) expect(v.valid).toBe(true);
      }
    });
  }
});
