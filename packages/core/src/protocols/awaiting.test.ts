/**
 * `Machine.awaiting`: whom a game waits for, as any observer of the log sees it. A silent player's deadline claim
 * names exactly the players `awaiting` named just before it, after the deadline `awaiting` gave; honest games are
 * never shown waiting on an honest player who already sent what was due, and a finished game waits for nobody.
 */
import { describe, expect, it } from 'vitest';
import { Referee } from '../referee.js';
import { frozenRegistry, simulate, type SimOptions } from '../testing.js';
import { DEFAULT_REGISTRY } from '../registry.js';
import { taggedHash } from '../hash.js';
import { utf8 } from '../bytes.js';

interface Seen {
  readonly line: number;
  readonly from: string;
  readonly type: string;
  readonly time: number;
  readonly missing: readonly string[] | null;
  readonly claim: string | null;
  readonly awaiting: { readonly players: readonly string[]; readonly deadline: number } | null;
}

/** Replays a transcript as an observer, recording what `awaiting` said just before each line. */
function replay(lines: readonly string[]): { seen: Seen[]; last: Referee } {
  // Frozen states: `awaiting` only reads (a write would throw a Mutation).
  const ref = new Referee(lines[0]!, null, undefined, { registry: frozenRegistry(DEFAULT_REGISTRY) });
  expect(ref.machine.awaiting).toBeTypeOf('function');
  const seen: Seen[] = [];
  for (let i = 1; i < lines.length; i++) {
    const env = JSON.parse(lines[i]!) as { from: string; time: number; body: unknown };
    const body = env.body as { type: string; missing?: string[]; phase?: string; round?: number };
    seen.push({
      line: i,
      from: env.from,
      type: body.type,
      time: env.time,
      missing: body.type === 'deadline' ? (body.missing ?? []) : null,
      claim: body.type === 'deadline' ? `${String(body.phase)}/${String(body.round)}` : null,
      awaiting: ref.machine.awaiting!(ref.state),
    });
    ref.feedText(i, lines[i]!);
  }
  return { seen, last: ref };
}

const sorted = (x: readonly string[]): string[] => [...x].sort();

const GAMES: [string, Omit<SimOptions, 'seed' | 'players'> & { players?: number }][] = [
  ['dice', { protocol: 'dice', turns: 3 }],
  ['snakes', { protocol: 'snakes', turns: 4 }],
  ['monopoly', { protocol: 'monopoly', turns: 2 }],
  ['rochambeau', { protocol: 'rochambeau' }],
  ['signidice', { protocol: 'signidice', turns: 2 }],
];

describe('awaiting: whom the game waits for', () => {
  for (const [name, options] of GAMES) {
    it(`${name}: an honest game always waits for someone until it ends, then for nobody`, () => {
      const res = simulate({ players: 3, seed: taggedHash('awaiting', utf8(name)), ...options } as SimOptions);
      expect(res.outcome).not.toBeNull();
      const { seen, last } = replay(res.lines);
      // Every line of an honest game answers someone the game was waiting for, or is a fresh value sent beside it.
      const waited = seen.filter((s) => s.awaiting !== null);
      expect(waited.length).toBeGreaterThan(0);
      for (const s of seen) if (s.awaiting !== null) expect(s.awaiting.players.length).toBeGreaterThan(0);
      expect(seen.some((s) => s.awaiting !== null && s.awaiting.players.includes(s.from))).toBe(true);
      expect(last.machine.awaiting!(last.state)).toBeNull();
    });

    it(`${name}: a silent player's deadline claim names exactly whom awaiting named, after its deadline`, () => {
      const players = 3;
      const cheater = name === 'signidice' ? 'p1' : 'p2';
      const res = simulate({ players, seed: taggedHash('awaiting-silent', utf8(name)), cheat: 'withhold', cheater, ...options } as SimOptions);
      const { seen } = replay(res.lines);
      // The first claim on each phase: a second claimant's, on the same phase, comes after the first took effect (stale).
      const claims = seen.filter((s, i) => s.claim !== null && !seen.slice(0, i).some((t) => t.claim === s.claim));
      expect(claims.length).toBeGreaterThan(0);
      for (const c of claims) {
        expect(c.awaiting).not.toBeNull();
        expect(sorted(c.awaiting!.players)).toEqual(sorted(c.missing!));
        expect(c.time).toBeGreaterThanOrEqual(c.awaiting!.deadline);
        // Only the silent player is ever waited for past a deadline: no honest player is named.
        expect(c.missing).toEqual([cheater]);
      }
    });
  }
});
