/**
 * Simulated games of Rochambeau (draft-harkins-rochambeau-02 §4.2–§4.7):
 * honest players and every way of being disqualified that resolution 10 of
 * docs/spec/rochambeau.md lists, each a `Conduct`. Tests, the benchmark, the
 * vectors and `fairtable simulate rochambeau` build their games here, from a
 * seeded random source so every game can be played again.
 */
import { chacha20 } from '@noble/ciphers/chacha.js';
import { utf8 } from '../bytes.js';
import { taggedHash } from '../hash.js';
import { nonceBinding } from './binding.js';
import { COMMIT_TYPE, REVEAL_TYPE, encodeCommit, encodeState, gameSize } from './codec.js';
import { DIGEST_OCTETS, checkHashName, resolveDigest, type Digest, type HashName } from './hashes.js';
import { judge, type PlayerSubmission, type PlayerTable } from './judge.js';
import { chooseState, prepareMove, type RandomBytes } from './player.js';

const CHUNK = 65536;

/**
 * A reproducible random source: the ChaCha20 keystream under
 * key = SHA-256("fairtable/rochambeau-simulation/v1" ‖ 0x00 ‖ seed). For
 * simulations only; real players draw from the platform CSPRNG.
 */
export function seededRandom(seed: string | Uint8Array): RandomBytes {
  const key = taggedHash('rochambeau-simulation', typeof seed === 'string' ? utf8(seed) : seed);
  const nonce = new Uint8Array(12);
  let block = new Uint8Array(0);
  let at = 0;
  let chunks = 0;
  return (length) => {
    const out = new Uint8Array(length);
    let filled = 0;
    while (filled < length) {
      if (at === block.length) {
        // 1024 ChaCha blocks of 64 octets per chunk; the counter says where the chunk starts.
        block = chacha20(key, nonce, new Uint8Array(CHUNK), undefined, chunks * (CHUNK / 64));
        chunks++;
        at = 0;
      }
      const take = Math.min(length - filled, block.length - at);
      out.set(block.subarray(at, at + take), filled);
      filled += take;
      at += take;
    }
    return out;
  };
}

/** How a simulated player behaves; every kind but `honest` ends in the disqualification code it is named after. */
export type Conduct =
  | 'honest'
  | 'no_commit'
  | 'commit_wrong_type'
  | 'commit_truncated'
  | 'commit_trailing'
  | 'copied_commit'
  | 'no_reveal'
  | 'reveal_wrong_type'
  | 'reveal_truncated'
  | 'reveal_trailing'
  | 'short_nonce'
  | 'commit_mismatch'
  | 'foreign_nonce'
  | 'state_zero'
  | 'state_too_large';

export const CONDUCTS: readonly Conduct[] = [
  'honest',
  'no_commit',
  'commit_wrong_type',
  'commit_truncated',
  'commit_trailing',
  'copied_commit',
  'no_reveal',
  'reveal_wrong_type',
  'reveal_truncated',
  'reveal_trailing',
  'short_nonce',
  'commit_mismatch',
  'foreign_nonce',
  'state_zero',
  'state_too_large',
];

/** The code the judge gives each conduct. */
export const EXPECTED_CODE = {
  honest: null,
  no_commit: 'no_commit',
  commit_wrong_type: 'bad_payload_type',
  commit_truncated: 'bad_length',
  commit_trailing: 'trailing_bytes',
  copied_commit: 'copied_commit',
  no_reveal: 'no_reveal',
  reveal_wrong_type: 'bad_payload_type',
  reveal_truncated: 'bad_length',
  reveal_trailing: 'trailing_bytes',
  short_nonce: 'short_nonce',
  commit_mismatch: 'commit_mismatch',
  foreign_nonce: 'foreign_nonce',
  state_zero: 'state_out_of_range',
  state_too_large: 'state_out_of_range',
} as const satisfies Record<Conduct, string | null>;

export interface SimulatedPlayer {
  readonly id: string;
  readonly conduct?: Conduct;
  /** Play this state instead of a random one. */
  readonly state?: bigint | number;
}

export interface SimulationOptions {
  readonly N: bigint | number | string;
  readonly hash?: HashName;
  /** A fairtable game: honest nonces carry the binding (resolution 11). */
  readonly gameId?: string;
  readonly random: RandomBytes;
  readonly digest?: Digest;
}

const withType = (payload: Uint8Array, type: number): Uint8Array => {
  const out = payload.slice();
  out[0] = type >>> 8;
  out[1] = type & 255;
  return out;
};

const appendOctet = (payload: Uint8Array, octet: number): Uint8Array => {
  const out = new Uint8Array(payload.length + 1);
  out.set(payload);
  out[payload.length] = octet;
  return out;
};

/**
 * The Commits and Reveals of a game whose players behave as told, in the
 * order given. A `copied_commit` player replays the Commit and Reveal of the
 * nearest earlier player who sent a well-formed Commit (or commits to nothing
 * when there is none; it then has no C-value to copy).
 */
export function simulateGame(players: readonly SimulatedPlayer[], options: SimulationOptions): PlayerSubmission[] {
  const size = gameSize(options.N);
  const hash = checkHashName(options.hash ?? 'sha-256');
  const digest = resolveDigest(hash, options.digest);
  const { random, gameId } = options;
  const common = { N: size.N, hash, random, digest };
  const out: PlayerSubmission[] = [];
  const wellFormed: PlayerSubmission[] = [];
  const bindingOf = (playerId: string) => (gameId === undefined ? {} : { binding: { gameId, playerId } });
  for (const player of players) {
    const conduct = player.conduct ?? 'honest';
    const chosen = player.state === undefined ? {} : { state: player.state };
    const move = prepareMove({ ...common, ...chosen, ...bindingOf(player.id) });
    let commit: Uint8Array | null = move.commit;
    let reveal: Uint8Array | null = move.reveal;
    switch (conduct) {
      case 'honest':
        break;
      case 'no_commit':
        commit = null;
        break;
      case 'commit_wrong_type':
        commit = withType(move.commit, REVEAL_TYPE);
        break;
      case 'commit_truncated':
        commit = move.commit.slice(0, move.commit.length - 1);
        break;
      case 'commit_trailing':
        commit = appendOctet(move.commit, 0);
        break;
      case 'copied_commit': {
        const victim = wellFormed[wellFormed.length - 1];
        commit = victim?.commit ?? null;
        reveal = victim?.reveal ?? null;
        break;
      }
      case 'no_reveal':
        reveal = null;
        break;
      case 'reveal_wrong_type':
        reveal = withType(move.reveal, COMMIT_TYPE);
        break;
      case 'reveal_truncated':
        reveal = move.reveal.slice(0, move.reveal.length - 1);
        break;
      case 'reveal_trailing':
        reveal = appendOctet(move.reveal, 0);
        break;
      case 'short_nonce': {
        // A Reveal that opens its Commit but whose nonce is 8 octets.
        reveal = new Uint8Array(4 + 8 + size.m);
        reveal[1] = REVEAL_TYPE;
        reveal[3] = 8;
        reveal.set(random(8), 4);
        reveal.set(move.M, 12);
        commit = encodeCommit(digest(reveal.subarray(4)));
        break;
      }
      case 'commit_mismatch': {
        // Reveals another state than the one committed to.
        reveal = move.reveal.slice();
        const last = reveal.length - 1;
        reveal[last] = reveal[last]! ^ 1;
        break;
      }
      case 'foreign_nonce': {
        // A nonce bound to someone else (in a fairtable game), opening its own Commit.
        reveal = move.reveal.slice();
        reveal.set(nonceBinding(gameId ?? '', `not ${player.id}`), 4);
        commit = encodeCommit(digest(reveal.subarray(4)));
        break;
      }
      case 'state_zero':
      case 'state_too_large': {
        reveal = move.reveal.slice();
        const M = reveal.subarray(reveal.length - size.m);
        if (conduct === 'state_zero') M.fill(0);
        else M.fill(255); // 256^m - 1 >= N, since 256^m > N.
        commit = encodeCommit(digest(reveal.subarray(4)));
        break;
      }
    }
    const submission = { id: player.id, commit, reveal };
    if (commit !== null && commit.length === 2 + DIGEST_OCTETS[hash] && commit[0] === 0 && commit[1] === COMMIT_TYPE) wellFormed.push(submission);
    out.push(submission);
  }
  return out;
}

/**
 * A table of `count` honest players named p0, p1, …, built directly (the
 * benchmark's million players would take ten times as long through `simulateGame`).
 */
export function honestTable(count: number, options: SimulationOptions): PlayerTable {
  const size = gameSize(options.N);
  const hash = checkHashName(options.hash ?? 'sha-256');
  const digest = resolveDigest(hash, options.digest);
  const h = DIGEST_OCTETS[hash];
  const m = size.m;
  const commitOctets = 2 + h;
  const revealOctets = 4 + 32 + m;
  const stride = commitOctets + revealOctets;
  const bytes = new Uint8Array(count * stride);
  const table = {
    ids: Array.from({ length: count }, (_, k) => `p${k}`),
    bytes,
    commitStart: new Int32Array(count),
    commitEnd: new Int32Array(count),
    revealStart: new Int32Array(count),
    revealEnd: new Int32Array(count),
  };
  const binding = options.gameId;
  const fastStates = size.small ? uniformSmallStates(count, size.n, options.random) : null;
  for (let k = 0; k < count; k++) {
    const c = k * stride;
    const r = c + commitOctets;
    bytes[r + 1] = REVEAL_TYPE;
    bytes[r + 3] = 32;
    if (binding === undefined) bytes.set(options.random(32), r + 4);
    else {
      bytes.set(nonceBinding(binding, table.ids[k]!), r + 4);
      bytes.set(options.random(16), r + 20);
    }
    if (fastStates !== null) {
      let q = fastStates[k]!;
      for (let i = m - 1; i >= 0; i--) {
        bytes[r + 36 + i] = q & 255;
        q = Math.floor(q / 256);
      }
    } else {
      bytes.set(encodeState(chooseState(size.N, options.random), size), r + 36);
    }
    bytes[c + 1] = COMMIT_TYPE;
    bytes.set(digest(bytes.subarray(r + 4, r + revealOctets)), c + 2);
    table.commitStart[k] = c;
    table.commitEnd[k] = c + commitOctets;
    table.revealStart[k] = r;
    table.revealEnd[k] = r + revealOctets;
  }
  return table;
}

/** `count` states uniform on 1..n-1 for n < 2^32, by masked rejection sampling on 32-bit draws. */
function uniformSmallStates(count: number, n: number, random: RandomBytes): Uint32Array {
  const range = n - 1;
  const bits = Math.max(1, Math.ceil(Math.log2(range)));
  const mask = bits >= 32 ? 0xffffffff : 2 ** bits - 1;
  const states = new Uint32Array(count);
  let filled = 0;
  while (filled < count) {
    const words = new DataView(random(4 * 4096).buffer);
    for (let i = 0; i < 4096 && filled < count; i++) {
      const value = (words.getUint32(4 * i) & mask) >>> 0;
      if (value < range) states[filled++] = value + 1;
    }
  }
  return states;
}

/** How often each position won over many honest games, and Pearson's χ² against "each wins 1/M of them". */
export interface FairnessTally {
  readonly games: number;
  /** wins[k]: games won by the player who committed k-th. */
  readonly wins: readonly number[];
  /** Games still tied after round 255 (expected: none). */
  readonly noWinner: number;
  readonly chiSquare: number;
  readonly degreesOfFreedom: number;
}

/** Pearson's χ² of counts against equal expected counts; degrees of freedom = categories - 1. */
export function chiSquareUniform(counts: readonly number[]): { chiSquare: number; degreesOfFreedom: number } {
  const total = counts.reduce((a, b) => a + b, 0);
  const expected = total / counts.length;
  const chiSquare = counts.reduce((sum, observed) => sum + (observed - expected) ** 2 / expected, 0);
  return { chiSquare, degreesOfFreedom: counts.length - 1 };
}

/** Plays `games` honest games of `players` players and counts the winners by position. */
export function tallyWins(options: SimulationOptions & { readonly games: number; readonly players: number }): FairnessTally {
  const lineup = Array.from({ length: options.players }, (_, k) => ({ id: `p${k}` }));
  const wins = new Array<number>(options.players).fill(0);
  let noWinner = 0;
  for (let g = 0; g < options.games; g++) {
    const players = simulateGame(lineup, options);
    const verdict = judgeGame(options, players);
    if (verdict === null) noWinner++;
    else wins[verdict]!++;
  }
  return { games: options.games, wins, noWinner, ...chiSquareUniform(wins) };
}

function judgeGame(options: SimulationOptions, players: PlayerSubmission[]): number | null {
  const game = {
    N: options.N,
    players,
    ...(options.hash === undefined ? {} : { hash: options.hash }),
    ...(options.gameId === undefined ? {} : { gameId: options.gameId }),
  };
  return judge(game, options.digest === undefined ? {} : { digest: options.digest }).winnerIndex;
}
