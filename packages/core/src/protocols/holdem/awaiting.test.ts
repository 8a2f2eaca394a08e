/**
 * Whom Hold'em waits for (the machine's `awaiting`, docs/spec/holdem.md §11.6): what a page's "what now" names.
 * The machine is fed states directly: an observer's table of three before any key, while shuffling, with a player gone.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '../../bytes.js';
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
});
