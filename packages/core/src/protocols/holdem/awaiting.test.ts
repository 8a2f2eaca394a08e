/**
 * Whom Hold'em waits for (the machine's `awaiting`, docs/spec/holdem.md §11.6): what a page's "what now" names.
 * The machine is fed states directly (an observer's table of three before any key, while shuffling, with a player
 * gone), then a simulated hand whose player leaves: each deadline claim names exactly whom `awaiting` named.
 */
import { describe, expect, it } from 'vitest';
import { toHex, utf8 } from '../../bytes.js';
import { taggedHash } from '../../hash.js';
import { Referee } from '../../referee.js';
import { frozenRegistry } from '../../sim/frozen.js';
import { simulate } from '../../sim/simulate.js';
import { holdemRegistry } from './registry.js';
import { holdemSim, holdemStrategy } from './sim.js';
import { generateKeyPair } from '../../identity.js';
import type { GameSetup } from '../../setup.js';
import type { Ctx } from '../machine.js';
import { holdemMachine } from './machine.js';

const keys = ['ann', 'bob', 'cy'].map((id, i) => ({ id, key: toHex(generateKeyPair(new Uint8Array(32).fill(i + 1)).publicKey) }));
const setup: GameSetup = { protocol: 'holdem', game: null, params: { timeoutMs: 5_000 }, players: keys, nonce: '00'.repeat(32), created: 1_000 };
const ctx: Ctx = { now: 1_000, random: (n: number) => new Uint8Array(n).fill(7) };

describe("Hold'em's awaiting", () => {
  it('names every player before their key shares, with the phase deadline; nobody once the game is over', () => {
    const s = holdemMachine.init(setup, 'ab'.repeat(32), null, ctx).state;
    expect(holdemMachine.awaiting?.(s)).toEqual({ players: ['ann', 'bob', 'cy'], deadline: 6_000 });
    const shuffling = { ...s, phase: 'shuffle' as const, shuffled: ['ann'], phaseStart: 9_000 };
    expect(holdemMachine.awaiting?.(shuffling)).toEqual({ players: ['bob'], deadline: 14_000 });
    const gone = { ...shuffling, gone: ['bob'], shuffled: ['ann', 'bob'] };
    expect(holdemMachine.awaiting?.(gone)).toEqual({ players: ['cy'], deadline: 14_000 });
    expect(holdemMachine.awaiting?.({ ...s, phase: 'done' as const })).toBe(null);
  });

  it('a player who leaves: every first claim on a phase names exactly whom awaiting named, after its deadline, and only the leaver', () => {
    const r = simulate({
      protocol: 'holdem',
      extension: holdemSim,
      players: 3,
      seed: new Uint8Array(32).fill(23),
      strategy: (id) => holdemStrategy(taggedHash('holdem-awaiting', utf8(id))),
      params: { hands: 1 },
      registry: holdemRegistry,
      cheat: 'leave',
      cheater: 'p2',
    });
    // Frozen states: `awaiting` only reads.
    const ref = new Referee(r.lines[0]!, null, undefined, { registry: frozenRegistry(holdemRegistry) });
    const claimed = new Set<string>();
    let claims = 0;
    for (let i = 1; i < r.lines.length; i++) {
      const env = JSON.parse(r.lines[i]!) as { time: number; body: { type: string; phase?: string; round?: number; missing?: string[] } };
      const before = holdemMachine.awaiting!(ref.state as never);
      if (env.body.type === 'deadline' && !claimed.has(`${env.body.phase}/${env.body.round}`)) {
        claimed.add(`${env.body.phase}/${env.body.round}`);
        claims++;
        expect(before).not.toBeNull();
        expect([...before!.players].sort()).toEqual([...(env.body.missing ?? [])].sort());
        expect(env.time).toBeGreaterThanOrEqual(before!.deadline);
        expect(env.body.missing).toEqual(['p2']);
      }
      ref.feedText(i, r.lines[i]!);
    }
    expect(claims).toBeGreaterThan(0);
    expect(holdemMachine.awaiting!(ref.state as never)).toBe(null);
  }, 300_000);
});
