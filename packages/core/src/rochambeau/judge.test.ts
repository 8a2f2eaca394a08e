import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToBigInt } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { encodeCommit, encodeReveal, encodeState, gameSize } from './codec.js';
import { HASH_NAMES, type Digest } from './hashes.js';
import { judge, judgePairwise, rochambeau, toPlayerTable, type PlayerSubmission, type Verdict } from './judge.js';
import { judgeOutput } from './judge-json.js';
import { CONDUCTS, EXPECTED_CODE, seededRandom, simulateGame, type Conduct, type SimulatedPlayer } from './simulation.js';

const ids = (players: readonly PlayerSubmission[]): string[] => players.map((p) => p.id);
const view = (players: readonly PlayerSubmission[], verdict: Verdict) => judgeOutput(ids(players), verdict);

describe('Figure 1 (§4.1)', () => {
  it('matches a hand-made table for N = 5', () => {
    // (J - I) mod 5: odd means I wins, even and non-zero means I loses.
    expect(rochambeau(1n, 2n, 5n)).toBe('win'); // 1
    expect(rochambeau(1n, 3n, 5n)).toBe('lose'); // 2
    expect(rochambeau(1n, 4n, 5n)).toBe('win'); // 3
    expect(rochambeau(1n, 0n, 5n)).toBe('lose'); // 4
    expect(rochambeau(4n, 0n, 5n)).toBe('win'); // 1
    expect(rochambeau(3n, 3n, 5n)).toBe('tie');
  });

  it('is antisymmetric and gives every state (N-1)/2 wins and (N-1)/2 losses (§4.1, §5)', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.nat(), (half, pick) => {
        const N = BigInt(2 * half + 1);
        const I = BigInt(pick) % N;
        let wins = 0;
        let losses = 0;
        for (let J = 0n; J < N; J++) {
          const there = rochambeau(I, J, N);
          const back = rochambeau(J, I, N);
          expect(back).toBe(there === 'win' ? 'lose' : there === 'lose' ? 'win' : 'tie');
          if (there === 'win') wins++;
          if (there === 'lose') losses++;
        }
        expect(wins).toBe(half);
        expect(losses).toBe(half);
      }),
    );
  });
});

/**
 * A stand-in for H that makes every number checkable by hand: the first 32
 * octets of the message, with the 33rd (the round octet of a tweak message)
 * added to the 16-bit number in the last two. With 40-octet nonces, C is the
 * nonce's first 32 octets.
 */
const handHash: Digest = (message) => {
  const out = new Uint8Array(32);
  out.set(message.subarray(0, 32));
  if (message.length === 33) {
    const sum = ((out[30]! << 8) | out[31]!) + message[32]!;
    out[30] = (sum >> 8) & 255;
    out[31] = sum & 255;
  }
  return out;
};

function handPlayer(id: string, lastOctetOfC: number, state: number, N: number): PlayerSubmission {
  const nonce = new Uint8Array(40);
  nonce[31] = lastOctetOfC;
  const reveal = encodeReveal(nonce, encodeState(state, gameSize(N)));
  return { id, commit: encodeCommit(handHash(reveal.subarray(4))), reveal };
}

describe('tweaks, assigned states and scores by hand (§4.3)', () => {
  it('three players, N = 7: B wins round 1', () => {
    // C-values end in 05, 03, 06; states 1, 2, 4.
    // X_A = 03^06 = 05, +1 for round 1 -> t_A = 6; s_A = 1+6 mod 7 = 0
    // X_B = 05^06 = 03, +1 -> t_B = 4; s_B = 2+4 = 6
    // X_C = 05^03 = 06, +1 -> 7 mod 7 = 0 = t_C; s_C = 4
    // A(0)-B(6): 6 even, A loses. A(0)-C(4): 4 even, A loses. B(6)-C(4): (4-6) mod 7 = 5 odd, B wins.
    const players = [handPlayer('A', 5, 1, 7), handPlayer('B', 3, 2, 7), handPlayer('C', 6, 4, 7)];
    for (const run of [judge, judgePairwise]) {
      const verdict = run({ N: 7, players }, { digest: handHash });
      expect(view(players, verdict)).toEqual({
        winner: 'B',
        disqualified: [],
        rounds: [
          {
            round: 1,
            players: [
              { id: 'A', tweak: '6', state: '0', score: -2 },
              { id: 'B', tweak: '4', state: '6', score: 2 },
              { id: 'C', tweak: '0', state: '4', score: 0 },
            ],
          },
        ],
      });
      expect(verdict.outcome).toBe('winner');
      expect(verdict.winnerIndex).toBe(1);
    }
  });

  it('two players whose states tie in every round: no winner after round 255 (resolution 9)', () => {
    // X_A = C_B = ..02 and X_B = C_A = ..01, so t_A = t_B + 1 in every round; with
    // states 1 and 2 the assigned states are always equal.
    const players = [handPlayer('A', 1, 1, 7), handPlayer('B', 2, 2, 7)];
    for (const run of [judge, judgePairwise]) {
      const verdict = run({ N: 7, players }, { digest: handHash });
      expect(verdict.outcome).toBe('no_winner');
      expect(verdict.winner).toBeNull();
      expect(verdict.rounds).toHaveLength(255);
      expect(verdict.rounds.map((r) => r.round)).toEqual(Array.from({ length: 255 }, (_, i) => i + 1));
      const last = view(players, verdict).rounds[254]!;
      // Round 255: t_A = (2 + 255) mod 7 = 5, s_A = 1 + 5 = 6; t_B = (1 + 255) mod 7 = 4, s_B = 2 + 4 = 6.
      expect(last.players).toEqual([
        { id: 'A', tweak: '5', state: '6', score: 0 },
        { id: 'B', tweak: '4', state: '6', score: 0 },
      ]);
    }
  });

  it('with SHA-256: each tweak is H(XOR of the others’ C ‖ r) mod N', () => {
    const random = seededRandom('by hand');
    const N = 1_000_003n;
    const players = simulateGame([{ id: 'ann' }, { id: 'bob' }, { id: 'cy' }, { id: 'dee' }], { N, random });
    const verdict = judge({ N, players });
    const round = verdict.rounds[0]!;
    const C = players.map((p) => p.commit!.subarray(2));
    players.forEach((p, k) => {
      const X = new Uint8Array(32);
      C.forEach((c, j) => {
        if (j !== k) for (let i = 0; i < 32; i++) X[i] = X[i]! ^ c[i]!;
      });
      const t = bytesToBigInt(sha256(Uint8Array.of(...X, 1))) % N;
      const q = bytesToBigInt(p.reveal!.subarray(p.reveal!.length - 3));
      expect(BigInt(round.tweaks[k]!)).toBe(t);
      expect(BigInt(round.states[k]!)).toBe((q + t) % N);
    });
    // Scores straight from Figure 1.
    const states = Array.from(round.states as Uint32Array, BigInt);
    states.forEach((s, k) => {
      const score = states.reduce<number>((sum, o, j) => {
        if (j === k) return sum;
        const r = rochambeau(s, o, N);
        return sum + (r === 'win' ? 1 : r === 'lose' ? -1 : 0);
      }, 0);
      expect(round.scores[k]).toBe(score);
    });
  });
});

describe('disqualification (resolution 10)', () => {
  const cheats = CONDUCTS.filter((c): c is Exclude<Conduct, 'honest'> => c !== 'honest');

  for (const conduct of cheats) {
    it(`${conduct}: named with code ${EXPECTED_CODE[conduct]} and left out of every tweak`, () => {
      const random = seededRandom(`dq ${conduct}`);
      const gameId = 'game-42';
      const lineup: SimulatedPlayer[] = [{ id: 'honest-1' }, { id: 'honest-2' }, { id: 'cheat', conduct }, { id: 'honest-3' }];
      const players = simulateGame(lineup, { N: 101, gameId, random });
      const verdict = judge({ N: 101, gameId, players });
      expect(verdict.disqualified).toHaveLength(1);
      expect(verdict.disqualified[0]).toMatchObject({ player: 2, id: 'cheat', code: EXPECTED_CODE[conduct] });
      expect(verdict.rounds[0]!.players).toEqual(Uint32Array.of(0, 1, 3));
      // The same game without the cheat gives the same tweaks: its C-value counted nowhere.
      const others = players.filter((p) => p.id !== 'cheat');
      expect(view(others, judge({ N: 101, gameId, players: others })).rounds).toEqual(view(players, verdict).rounds);
    });
  }

  it('gives the detail of each code in words another judge can reproduce', () => {
    const random = seededRandom('details');
    const lineup = CONDUCTS.map((conduct, k) => ({ id: `p${k}`, conduct }));
    const players = simulateGame(lineup, { N: 101, gameId: 'g', random });
    const details = Object.fromEntries(judge({ N: 101, gameId: 'g', players }).disqualified.map((d) => [d.id, d.detail]));
    expect(details).toEqual({
      p1: 'no Commit arrived',
      p2: 'Commit has payload type 2; expected 1',
      p3: 'Commit is 33 octets; expected 34',
      p4: 'Commit is 35 octets; expected 34',
      p5: 'C-value copies the Commit of player p0',
      p6: 'no Reveal arrived',
      p7: 'Reveal has payload type 1; expected 2',
      p8: 'Reveal is 36 octets; nonce length 32 and m = 1 need 37',
      p9: 'Reveal is 38 octets; nonce length 32 and m = 1 need 37',
      p10: 'nonce is 8 octets; at least 16 required',
      p11: 'Reveal does not open the Commit: H(nonce || M) differs from C',
      p12: 'nonce does not begin with the 16-octet binding of this player in this game',
      p13: 'revealed state 0 is outside 1..100',
      p14: 'revealed state 255 is outside 1..100',
    });
  });

  it('checks the nonce binding only in fairtable games', () => {
    const random = seededRandom('plain');
    const players = simulateGame([{ id: 'a' }, { id: 'b', conduct: 'foreign_nonce' }], { N: 101, random });
    expect(judge({ N: 101, players }).disqualified).toEqual([]);
    expect(judge({ N: 101, gameId: 'g', players }).disqualified.map((d) => d.code)).toEqual(['foreign_nonce', 'foreign_nonce']);
  });

  it('leaves no one when every player is out', () => {
    const random = seededRandom('nobody');
    const players = simulateGame(
      [
        { id: 'a', conduct: 'no_reveal' },
        { id: 'b', conduct: 'no_commit' },
      ],
      { N: 5, random },
    );
    const verdict = judge({ N: 5, players });
    expect(verdict).toMatchObject({ outcome: 'no_players', winner: null, winnerIndex: null, rounds: [] });
    expect(judge({ N: 5, players: [] })).toMatchObject({ outcome: 'no_players', rounds: [] });
  });

  it('lets a lone qualified player win round 1 with score 0', () => {
    const random = seededRandom('alone');
    const players = simulateGame([{ id: 'a', conduct: 'no_reveal' }, { id: 'b' }], { N: 5, random });
    const verdict = judge({ N: 5, players });
    expect(verdict).toMatchObject({ outcome: 'winner', winner: 'b', winnerIndex: 1 });
    expect(verdict.rounds).toHaveLength(1);
    expect(verdict.rounds[0]!.scores).toEqual(Int32Array.of(0));
  });
});

describe('copied commits', () => {
  it('tells C-values apart that share their first octets, and names the first holder of a copied one', () => {
    // With the hand hash, C is the nonce's first 32 octets: these all begin with 28 zero octets.
    const players = [
      handPlayer('A', 1, 1, 7),
      handPlayer('B', 2, 2, 7),
      handPlayer('A2', 1, 1, 7),
      handPlayer('C', 3, 3, 7),
      handPlayer('A3', 1, 1, 7),
      handPlayer('B2', 2, 5, 7),
    ];
    const expected = [
      { player: 2, id: 'A2', code: 'copied_commit', detail: 'C-value copies the Commit of player A' },
      { player: 4, id: 'A3', code: 'copied_commit', detail: 'C-value copies the Commit of player A' },
      { player: 5, id: 'B2', code: 'copied_commit', detail: 'C-value copies the Commit of player B' },
    ];
    for (const run of [judge, judgePairwise]) expect(run({ N: 7, players }, { digest: handHash }).disqualified).toEqual(expected);
  });

  it('stays linear and exact with thousands of copies of one Commit', () => {
    const random = seededRandom('many copies');
    const [original, other] = simulateGame([{ id: 'original' }, { id: 'other' }], { N: 101, random });
    const copies = Array.from({ length: 5000 }, (_, k) => ({ ...original!, id: `copy${k}` }));
    const verdict = judge({
      N: 101,
      players: [...copies.slice(0, 2500), original!, other!, ...copies.slice(2500)].map((p, k) => (k === 0 ? { ...p, id: 'first' } : p)),
    });
    expect(verdict.disqualified).toHaveLength(5000);
    expect(new Set(verdict.disqualified.map((d) => d.detail))).toEqual(new Set(['C-value copies the Commit of player first']));
    expect(verdict.rounds[0]!.players).toHaveLength(2);
  });
});

describe('copied commits and the fairtable nonce binding (resolutions 10, 11)', () => {
  const gameId = 'table-7';
  const random = seededRandom('copy');
  const [victim, bystander] = simulateGame([{ id: 'victim' }, { id: 'bystander' }], { N: 101, gameId, random });
  // The copier replays the victim's Commit and, once it is out, the victim's Reveal.
  const copier = (): PlayerSubmission => ({ id: 'copier', commit: victim!.commit, reveal: victim!.reveal });

  it('names a copier whose Commit arrives later, with or without binding', () => {
    const players = [victim!, bystander!, copier()];
    for (const game of [
      { N: 101, players },
      { N: 101, gameId, players },
    ]) {
      expect(judge(game).disqualified).toEqual([{ player: 2, id: 'copier', code: 'copied_commit', detail: 'C-value copies the Commit of player victim' }]);
    }
  });

  it('without binding, a copier whose Commit arrives first takes the victim’s state', () => {
    const players = [copier(), victim!, bystander!];
    const verdict = judge({ N: 101, players });
    expect(verdict.disqualified.map((d) => [d.id, d.code])).toEqual([['victim', 'copied_commit']]);
    expect(verdict.rounds[0]!.players).toEqual(Uint32Array.of(0, 2));
  });

  it('with binding, that copier is caught and named too: its nonce is bound to the victim', () => {
    const players = [copier(), victim!, bystander!];
    const verdict = judge({ N: 101, gameId, players });
    expect(verdict.disqualified.map((d) => [d.id, d.code])).toEqual([
      ['copier', 'foreign_nonce'],
      ['victim', 'copied_commit'],
    ]);
    expect(verdict.winner).toBe('bystander');
  });

  it('catches a Commit and Reveal replayed from another game', () => {
    const [old] = simulateGame([{ id: 'replayer' }], { N: 101, gameId: 'last-week', random });
    const players = [victim!, bystander!, old!];
    expect(judge({ N: 101, gameId, players }).disqualified).toMatchObject([{ id: 'replayer', code: 'foreign_nonce' }]);
    // A plain draft judge cannot tell.
    expect(judge({ N: 101, players }).disqualified).toEqual([]);
  });
});

describe('the fast judge equals the pairwise judge', () => {
  const oddN = fc.oneof(
    fc.constantFrom(3, 5, 7, 9, 11, 101, 2 ** 31 - 1, 2 ** 32 - 1),
    fc.constantFrom(2n ** 32n + 1n, 2n ** 61n - 1n, 2n ** 127n - 1n),
    fc.integer({ min: 1, max: 5000 }).map((h) => 2 * h + 1),
  );
  const conduct = fc.oneof({ weight: 12, arbitrary: fc.constant<Conduct>('honest') }, { weight: 3, arbitrary: fc.constantFrom(...CONDUCTS) });

  it('on random games with ties, several rounds and disqualifications', () => {
    fc.assert(
      fc.property(oddN, fc.constantFrom(...HASH_NAMES), fc.boolean(), fc.array(conduct, { maxLength: 14 }), fc.string(), (N, hash, bound, conducts, seed) => {
        const random = seededRandom(seed);
        const gameId = bound ? `g-${seed}` : undefined;
        const lineup = conducts.map((c, k) => ({ id: `p${k}`, conduct: c }));
        const players = simulateGame(lineup, { N, hash, random, ...(gameId === undefined ? {} : { gameId }) });
        const game = { N, hash, players, ...(gameId === undefined ? {} : { gameId }) };
        const fast = judge(game);
        const slow = judgePairwise(game);
        expect(view(players, fast)).toEqual(view(players, slow));
        expect(fast.outcome).toBe(slow.outcome);
        expect(fast.winnerIndex).toBe(slow.winnerIndex);
      }),
      { numRuns: 400 },
    );
  });

  it('on 5,000 players with N = 3, where most states are shared (radix path, long runs of ties)', () => {
    const random = seededRandom('crowd');
    const lineup = Array.from({ length: 5000 }, (_, k) => ({ id: `p${k}` }));
    const players = simulateGame(lineup, { N: 3, random });
    const fast = judge({ N: 3, players });
    const slow = judgePairwise({ N: 3, players });
    expect(view(players, fast)).toEqual(view(players, slow));
    expect(fast.rounds.length).toBeGreaterThan(1);
  });

  it('on 5,000 players with N = 2^31 - 1 through a table', () => {
    const random = seededRandom('table');
    const players = simulateGame(
      Array.from({ length: 5000 }, (_, k) => ({ id: `p${k}` })),
      { N: 2 ** 31 - 1, random },
    );
    const table = toPlayerTable(players);
    expect(view(players, judge({ N: 2 ** 31 - 1, players: table }))).toEqual(view(players, judgePairwise({ N: 2 ** 31 - 1, players })));
  });
});

describe('bad judge input', () => {
  const random = seededRandom('input');
  const players = simulateGame([{ id: 'a' }, { id: 'b' }], { N: 5, random });

  it('refuses an even N or an N below 3', () => {
    expect(() => judge({ N: 6, players })).toThrow(FairtableError);
    expect(() => judge({ N: 1, players })).toThrow(/at least 3/);
  });

  it('refuses two players with one id', () => {
    expect(() => judge({ N: 5, players: [players[0]!, { ...players[1]!, id: 'a' }] })).toThrow(/"a" appears twice/);
  });

  it('refuses an unknown hash and an injected digest of the wrong length', () => {
    expect(() => judge({ N: 5, hash: 'md5' as never, players })).toThrow(/hash/);
    expect(() => judge({ N: 5, players }, { digest: (m) => sha256(m).subarray(0, 16) })).toThrow(/32 octets/);
  });

  it('refuses a table whose spans fall outside its bytes', () => {
    const table = toPlayerTable(players);
    const broken = { ...table, revealEnd: Int32Array.of(table.revealEnd[0]!, table.bytes.length + 1) };
    expect(() => judge({ N: 5, players: broken })).toThrow(/bounds/);
  });
});
