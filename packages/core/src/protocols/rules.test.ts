/**
 * Protocol rules that no simulated cheat exercises, each broken by a scripted
 * cheater and caught by the auditor, which names it with the evidence.
 */
import { describe, expect, it } from 'vitest';
import { auditLines } from '../audit.js';
import { toHex } from '../bytes.js';
import { commit } from '../commitment.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from '../envelope.js';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { createSetupEnvelope, type GameSetup } from '../setup.js';
import { commitSetHash } from './beacon.js';
import { RandomStream } from '../stream.js';
import type { JsonValue } from '../jcs.js';
import { encodeCommit } from '../rochambeau/codec.js';
import { hashJsonHex } from '../hash.js';
import { simKeys, simulate } from '../sim/simulate.js';
import { ecvrfHouse } from '../signidice/house-key.js';

/** Writes a transcript by hand: each post is signed in place by its author. */
class Script {
  readonly lines: string[] = [];
  readonly keys: Record<string, KeyPair> = {};
  readonly game: string;
  private readonly seq: Record<string, number> = {};
  private readonly prev: Record<string, string> = {};
  private readonly rng = new RandomStream(new Uint8Array(32).fill(1), 'script');
  constructor(protocol: string, players: string[], params: { [k: string]: JsonValue } = {}, game: string | null = null) {
    for (const [i, p] of players.entries()) this.keys[p] = generateKeyPair(new Uint8Array(32).fill(i + 1));
    const setup: GameSetup = {
      protocol,
      game,
      params: { timeoutMs: 1000, ...params },
      players: players.map((id) => ({ id, key: toHex(this.keys[id]!.publicKey) })),
      nonce: '00'.repeat(32),
      created: 0,
    };
    const env = createSetupEnvelope(setup, players[0]!, this.keys[players[0]!]!);
    this.game = env.game;
    this.lines.push(envelopeLine(env));
    for (const p of players) {
      this.seq[p] = 0;
      this.prev[p] = this.game;
    }
    this.seq[players[0]!] = 1;
    this.prev[players[0]!] = envelopeHash(env);
  }
  random = (n: number): Uint8Array => this.rng.bytes(n);
  post(from: string, body: Body, time = 0, keys: KeyPair = this.keys[from]!): Envelope {
    const head = envelopeHash(JSON.parse(this.lines[this.lines.length - 1]!) as Envelope);
    const env = signEnvelope(
      { v: 1, game: this.game, from, seq: this.seq[from] ?? 0, prev: this.prev[from] ?? this.game, at: this.lines.length, head, time, body },
      keys.secretKey,
    );
    this.lines.push(envelopeLine(env));
    this.seq[from] = (this.seq[from] ?? 0) + 1;
    this.prev[from] = envelopeHash(env);
    return env;
  }
  /** Every violation the auditor finds, but the one for a game left unfinished. */
  violations(): readonly { code: string; player: string | null }[] {
    return auditLines(this.lines).violations.filter((v) => !(v.code === 'withheld' && v.player === null));
  }
  first(): { code: string; player: string | null; evidence: readonly unknown[] } {
    return auditLines(this.lines).violations[0]!;
  }
}

function beaconCommit(s: Script, player: string, round = 1): { commitment: string; opening: { nonce: string; value: JsonValue } } {
  return commit({ game: s.game, player, purpose: `beacon/${round}` }, toHex(s.random(32)), s.random);
}

describe('message shapes (docs/SPEC.md §7.6)', () => {
  it('a body of a known type in the wrong shape is unexpected_message, naming its signer and the member', () => {
    const s = new Script('beacon', ['a', 'b']);
    s.post('a', { type: 'commit', round: 1, commitment: beaconCommit(s, 'a').commitment });
    s.post('b', { type: 'commit', round: 'one', commitment: 7 });
    const v = s.first();
    expect(v).toMatchObject({ code: 'unexpected_message', player: 'b' });
    expect((v as unknown as { message: string }).message).toMatch(/round|commitment/);
    const t = new Script('rochambeau', ['a', 'b']);
    t.post('b', { type: 'reveal', attempt: 1, payload: { not: 'hex' } });
    expect(t.first()).toMatchObject({ code: 'unexpected_message', player: 'b' });
  });
});

describe('beacon rules', () => {
  it('committing twice is duplicate_commit', () => {
    const s = new Script('beacon', ['a', 'b']);
    s.post('a', { type: 'commit', round: 1, commitment: beaconCommit(s, 'a').commitment });
    s.post('a', { type: 'commit', round: 1, commitment: beaconCommit(s, 'a').commitment });
    expect(s.first()).toMatchObject({ code: 'duplicate_commit', player: 'a' });
  });

  it("copying another player's commitment is copied_commitment", () => {
    const s = new Script('beacon', ['a', 'b', 'c']);
    const c = beaconCommit(s, 'a');
    s.post('a', { type: 'commit', round: 1, commitment: c.commitment });
    s.post('b', { type: 'commit', round: 1, commitment: c.commitment });
    expect(s.first()).toMatchObject({ code: 'copied_commitment', player: 'b' });
  });

  it('revealing on another commit set is commit_set_mismatch', () => {
    const s = new Script('beacon', ['a', 'b']);
    const ca = beaconCommit(s, 'a');
    const cb = beaconCommit(s, 'b');
    s.post('a', { type: 'commit', round: 1, commitment: ca.commitment });
    s.post('b', { type: 'commit', round: 1, commitment: cb.commitment });
    s.post('b', { type: 'reveal', round: 1, commitSet: 'ab'.repeat(32), opening: cb.opening });
    expect(s.first()).toMatchObject({ code: 'commit_set_mismatch', player: 'b' });
    // And the honest reveal on the agreed set is fine:
    const t = new Script('beacon', ['a', 'b']);
    const ta = beaconCommit(t, 'a');
    const tb = beaconCommit(t, 'b');
    t.post('a', { type: 'commit', round: 1, commitment: ta.commitment });
    t.post('b', { type: 'commit', round: 1, commitment: tb.commitment });
    const set = commitSetHash(t.game, 1, ['a', 'b'], { a: ta.commitment, b: tb.commitment });
    t.post('a', { type: 'reveal', round: 1, commitSet: set, opening: ta.opening });
    t.post('b', { type: 'reveal', round: 1, commitSet: set, opening: tb.opening });
    expect(auditLines(t.lines).valid).toBe(true);
  });

  it('a deadline claim before the deadline, or leaving out someone still missing, is false_deadline_claim', () => {
    const early = new Script('beacon', ['a', 'b']);
    early.post('a', { type: 'commit', round: 1, commitment: beaconCommit(early, 'a').commitment });
    early.post('a', { type: 'deadline', phase: 'commit', round: 1, missing: ['b'] }, 10);
    expect(early.first()).toMatchObject({ code: 'false_deadline_claim', player: 'a' });
    const wrong = new Script('beacon', ['a', 'b', 'c']);
    wrong.post('a', { type: 'commit', round: 1, commitment: beaconCommit(wrong, 'a').commitment });
    wrong.post('b', { type: 'commit', round: 1, commitment: beaconCommit(wrong, 'b').commitment });
    wrong.post('a', { type: 'deadline', phase: 'commit', round: 1, missing: ['b'] }, 5000);
    expect(wrong.first()).toMatchObject({ code: 'false_deadline_claim', player: 'a' });
  });

  it('a deadline claim that a late message overtook is an honest race: only those still missing are named', () => {
    const race = new Script('beacon', ['a', 'b', 'c']);
    const [ra, rb] = [beaconCommit(race, 'a'), beaconCommit(race, 'b')];
    race.post('a', { type: 'commit', round: 1, commitment: ra.commitment });
    race.post('b', { type: 'commit', round: 1, commitment: rb.commitment });
    // a saw neither b nor c when it claimed; b's commitment landed first.
    race.post('a', { type: 'deadline', phase: 'commit', round: 1, missing: ['b', 'c'] }, 5000);
    // Until a later line of another player vouches for the claim, it stands in the unvouched tail (docs/SPEC.md §4.4).
    expect(race.violations().map((v) => [v.code, v.player])).toEqual([]);
    const tail = auditLines(race.lines).violations;
    expect(tail.every((v) => v.code === 'withheld' && v.player === null)).toBe(true);
    expect(tail.some((v) => v.message.includes("a's deadline claim names c withheld"))).toBe(true);
    race.post('b', {
      type: 'reveal',
      round: 1,
      commitSet: commitSetHash(race.game, 1, ['a', 'b'], { a: ra.commitment, b: rb.commitment }),
      opening: rb.opening,
    });
    expect(race.violations().map((v) => [v.code, v.player])).toEqual([['withheld', 'c']]);
    const late = new Script('beacon', ['a', 'b']);
    late.post('a', { type: 'commit', round: 1, commitment: beaconCommit(late, 'a').commitment });
    late.post('b', { type: 'commit', round: 1, commitment: beaconCommit(late, 'b').commitment });
    late.post('a', { type: 'deadline', phase: 'commit', round: 1, missing: ['b'] }, 5000);
    expect(late.violations()).toEqual([]);
  });

  it('a message from outside the setup is unknown_player (an altered log: nobody is named); an unknown message type is unexpected_message', () => {
    const s = new Script('beacon', ['a', 'b']);
    s.keys.mallory = generateKeyPair(new Uint8Array(32).fill(99));
    s.post('mallory', { type: 'commit', round: 1, commitment: '00'.repeat(32) });
    expect(s.first()).toMatchObject({ code: 'unknown_player', player: null });
    const t = new Script('beacon', ['a', 'b']);
    t.post('b', { type: 'bribe', amount: 100 });
    expect(t.first()).toMatchObject({ code: 'unexpected_message', player: 'b' });
  });
});

describe('chain rules', () => {
  it('claiming draws the turn seed does not give is wrong_result', () => {
    const s = new Script('chain', ['a', 'b'], { rounds: 1 }, 'dice');
    const ca = commit({ game: s.game, player: 'a', purpose: 'chain/roll/0' }, toHex(s.random(32)), s.random);
    const cb = commit({ game: s.game, player: 'b', purpose: 'chain/roll/0' }, toHex(s.random(32)), s.random);
    s.post('a', { type: 'join', commitment: ca.commitment });
    s.post('b', { type: 'join', commitment: cb.commitment });
    const set = hashJsonHex('commit-set', {
      game: s.game,
      commits: [
        ['a', ca.commitment],
        ['b', cb.commitment],
      ],
    });
    s.post('a', { type: 'ready', commitSet: set, fresh: toHex(s.random(32)) });
    s.post('b', { type: 'ready', commitSet: set, fresh: toHex(s.random(32)) });
    const next = commit({ game: s.game, player: 'a', purpose: 'chain/roll/1' }, toHex(s.random(32)), s.random);
    s.post('a', {
      type: 'move',
      turn: 0,
      opening: ca.opening,
      commitment: next.commitment,
      fresh: toHex(s.random(32)),
      action: null,
      draws: [
        [6, 5],
        [6, 5],
      ],
    });
    // Double six is a possible roll, but not the one this turn's seed gives.
    expect(s.first()).toMatchObject({ code: 'wrong_result', player: 'a' });
  });
});

describe('keyed-stream rules', () => {
  it('an audit revealing a secret that is not the published key is bad_key', () => {
    const seed = new Uint8Array(32).fill(12);
    const lines = simulate({ protocol: 'keyed-stream', players: 2, seed, turns: 1 }).lines;
    expect(auditLines(lines).valid).toBe(true);
    // p1 rewrites its audit with another secret (re-signed in place, so the envelope layer is content).
    const at = lines.findLastIndex((l) => (JSON.parse(l) as Envelope).from === 'p1' && (JSON.parse(l) as Envelope).body.type === 'audit');
    const env = JSON.parse(lines[at]!) as Envelope;
    const { sig: _sig, ...unsigned } = env;
    const altered = lines.slice();
    altered[at] = envelopeLine(signEnvelope({ ...unsigned, body: { type: 'audit', secret: '11'.repeat(32) } }, simKeys(seed, 1).secretKey));
    const v = auditLines(altered).violations.filter((x) => x.player !== null);
    expect(v[0]).toMatchObject({ code: 'bad_key', player: 'p1' });
  });
});

describe('Rochambeau rules', () => {
  it('a Commit payload of the wrong length is bad_payload, naming its sender', () => {
    const s = new Script('rochambeau', ['a', 'b', 'c'], { N: '5' });
    s.post('a', { type: 'commit', attempt: 1, payload: toHex(encodeCommit(new Uint8Array(32).fill(1))).slice(0, -2) });
    s.post('b', { type: 'commit', attempt: 1, payload: toHex(encodeCommit(new Uint8Array(32).fill(2))) });
    s.post('c', { type: 'commit', attempt: 1, payload: toHex(encodeCommit(new Uint8Array(32).fill(3))) });
    s.post('a', { type: 'reveal', attempt: 1, payload: '0002' });
    s.post('b', { type: 'reveal', attempt: 1, payload: '0002' });
    s.post('c', { type: 'reveal', attempt: 1, payload: '0002' });
    const v = auditLines(s.lines).violations;
    expect(v.find((x) => x.player === 'a')?.code).toBe('bad_payload');
  });
});

describe('Signidice rules', () => {
  it('a bet above the balance, or of an unknown kind, is rejected_bet', () => {
    const house = ecvrfHouse('ecvrf-ell2', new Uint8Array(32).fill(5));
    const s = new Script('signidice', ['house', 'a'], { houseKey: house.key as unknown as JsonValue, stake: 100, rounds: 1 });
    const hr = commit({ game: s.game, player: 'a', purpose: 'signidice/hr/1' }, toHex(s.random(20)), s.random);
    s.post('a', { type: 'bet', round: 1, bet: { kind: 'red', pick: null, amount: 500 }, r: toHex(s.random(20)), hr: hr.commitment });
    expect(s.first()).toMatchObject({ code: 'rejected_bet', player: 'a' });
    const t = new Script('signidice', ['house', 'a'], { houseKey: house.key as unknown as JsonValue, rounds: 1 });
    t.post('a', { type: 'bet', round: 1, bet: { kind: 'purple', pick: null, amount: 5 }, r: toHex(t.random(20)), hr: hr.commitment });
    expect(t.first()).toMatchObject({ code: 'rejected_bet', player: 'a' });
  });
});
