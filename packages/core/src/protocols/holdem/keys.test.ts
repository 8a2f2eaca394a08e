/**
 * The key step of Hold'em on the deck (docs/spec/holdem.md §11.3), fed to the machine directly: two seats
 * that publish the same key share, each with a valid proof for its own seat (they share the secret), are
 * both named `reused_key`; the third seat is not; and the game ends before any card is dealt.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '../../bytes.js';
import { generateKeyPair } from '../../identity.js';
import type { JsonValue } from '../../jcs.js';
import type { Envelope } from '../../envelope.js';
import type { Accepted } from '../../transcript.js';
import type { GameSetup } from '../../setup.js';
import { RandomStream } from '../../stream.js';
import { makeKeyShare } from '../../deck/joint-key.js';
import { backUpKey } from '../../deck/threshold.js';
import { holdemMachine } from './machine.js';

const players = ['p0', 'p1', 'p2'];
const fairtableKeys = players.map((_, i) => generateKeyPair(new Uint8Array(32).fill(i + 1)));
const setup: GameSetup = {
  protocol: 'holdem',
  game: null,
  params: { hands: 1, timeoutMs: 1000 },
  players: players.map((id, i) => ({ id, key: toHex(fairtableKeys[i]!.publicKey) })),
  nonce: '00'.repeat(32),
  created: 0,
};
const GAME = 'keys-test';
const table = { game: GAME, players };

/** A key message of `player` whose secret is drawn from `seed`: the same seed, the same secret. */
function keyBody(player: string, seed: number): JsonValue {
  const stream = new RandomStream(new Uint8Array(32).fill(seed), 'keys');
  const random = (n: number): Uint8Array => stream.bytes(n);
  const made = makeKeyShare(table, player, random);
  const backup = backUpKey(
    table,
    player,
    made.secret,
    2,
    fairtableKeys.map((k) => k.publicKey),
    random,
  );
  return { type: 'key', key: made.share.key, proof: made.share.proof, backup: backup as unknown as JsonValue };
}

const accepted = (line: number, from: string, body: JsonValue): Accepted =>
  ({ line, hash: '00'.repeat(32), time: line, envelope: { from, body } as unknown as Envelope }) as Accepted;

describe("Hold'em keys", () => {
  it('two seats sharing one secret are both named reused_key; the third is not; no card is dealt', () => {
    const ctx = { now: 0, random: (n: number) => new Uint8Array(n) };
    let state = holdemMachine.init(setup, GAME, null, ctx).state;
    const found = [];
    const bodies = [keyBody('p0', 7), keyBody('p1', 7), keyBody('p2', 9)];
    for (const [i, body] of bodies.entries()) {
      const r = holdemMachine.step(state, accepted(i + 1, players[i]!, body), ctx);
      found.push(...r.violations);
      state = r.state;
    }
    expect(found.map((v) => [v.player, v.code])).toEqual([
      ['p0', 'reused_key'],
      ['p1', 'reused_key'],
    ]);
    const outcome = holdemMachine.outcome(state)!;
    expect(outcome.winners).toEqual(['p2']);
    expect((outcome.summary as { hands: number }).hands).toBe(0);
  });

  it('different secrets: the keys are taken and the first hand waits for its first shuffle', () => {
    const ctx = { now: 0, random: (n: number) => new Uint8Array(n) };
    let state = holdemMachine.init(setup, GAME, null, ctx).state;
    for (const [i, p] of players.entries()) {
      const r = holdemMachine.step(state, accepted(i + 1, p, keyBody(p, 20 + i)), ctx);
      expect(r.violations).toEqual([]);
      state = r.state;
    }
    expect(state.phase).toBe('shuffle');
    expect(state.jointKey).not.toBeNull();
  });
});
