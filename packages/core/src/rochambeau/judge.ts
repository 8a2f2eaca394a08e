/**
 * Judging a game of M-party, N-state Rochambeau: draft-harkins-rochambeau-02
 * §4.7 (checking every Reveal against its Commit), §4.3 (per-round tweaks,
 * assigned states, scores, tied leaders playing on) and §4.1 Figure 1 (the
 * pairwise game), with resolutions 7–10 of docs/spec/rochambeau.md: who is
 * disqualified and why, the tweak formula, the score, the 255-round cap.
 *
 * Two judges give the same verdict. `judgePairwise` is the draft read
 * literally: each tweak XORs the other players' C-values one by one, and each
 * round plays all K(K-1)/2 pairwise games, O(K²) per round. `judge` is what we
 * run (docs/spec/rochambeau.md §4): the XOR of the others is (XOR of all) ⊕
 * own C, so the tweaks cost one hash each; and because N is odd,
 * (J - I) mod N is odd exactly when J > I with J, I of different parity or
 * J < I with the same parity, so every score follows from the assigned states
 * in sorted order and running counts of odd ones. Sorting is a linear radix
 * sort for N < 2^32 (typed arrays, Number arithmetic) and a comparison sort
 * on BigInts above; copied Commits and repeated ids are found by sorting too.
 */
import { FairtableError } from '../errors.js';
import { BINDING_OCTETS, nonceBinding, startsWithBinding } from './binding.js';
import { checkCommit, checkReveal, gameSize, type DisqualificationCode, type GameSize, type PayloadFault } from './codec.js';
import { DIGEST_OCTETS, checkHashName, resolveDigest, type Digest, type HashName } from './hashes.js';

/** Resolution 9: the round counter is one octet, so round 255 is the last. */
export const MAX_ROUNDS = 255;

/** What one player sent, in the order the Commits arrived. */
export interface PlayerSubmission {
  readonly id: string;
  readonly commit: Uint8Array | null;
  readonly reveal: Uint8Array | null;
}

/**
 * The same as a table: every payload back to back in `bytes`, player k's
 * Commit at bytes[commitStart[k], commitEnd[k]) and Reveal at
 * bytes[revealStart[k], revealEnd[k]); a start of -1 means nothing arrived.
 * A million players fit in a few typed arrays instead of two million views.
 */
export interface PlayerTable {
  readonly ids: readonly string[];
  readonly bytes: Uint8Array;
  readonly commitStart: Int32Array;
  readonly commitEnd: Int32Array;
  readonly revealStart: Int32Array;
  readonly revealEnd: Int32Array;
}

export interface RochambeauGame {
  /** The number of states, odd and at least 3. */
  readonly N: bigint | number | string;
  /** H, agreed before the game (§3); SHA-256 when absent. */
  readonly hash?: HashName;
  /** Present in fairtable's own games: every nonce must start with the binding for this game and its player (resolution 11). */
  readonly gameId?: string;
  readonly players: readonly PlayerSubmission[] | PlayerTable;
}

export interface JudgeOptions {
  /** An implementation of the game's hash with the same bytes, e.g. node:crypto's. */
  readonly digest?: Digest;
}

export interface Disqualification {
  /** Position of the player in the game's list. */
  readonly player: number;
  readonly id: string;
  readonly code: DisqualificationCode;
  readonly detail: string;
}

/** Residues mod N: a Uint32Array when N < 2^32, else BigInts. */
export type Residues = Uint32Array | readonly bigint[];

export interface Round {
  /** 1..255, the octet hashed into this round's tweaks. */
  readonly round: number;
  /** Positions in the game's list of the players in this round, in arrival order. */
  readonly players: Uint32Array;
  readonly tweaks: Residues;
  /** Assigned states: (revealed state + tweak) mod N. */
  readonly states: Residues;
  readonly scores: Int32Array;
}

export type Outcome =
  /** One player scored highest in some round. */
  | 'winner'
  /** Round 255 still ended in a tie: replay the game with fresh Commits (resolution 9). */
  | 'no_winner'
  /** Every player was disqualified. */
  | 'no_players';

export interface Verdict {
  readonly outcome: Outcome;
  readonly winner: string | null;
  /** Position of the winner in the game's list. */
  readonly winnerIndex: number | null;
  readonly disqualified: readonly Disqualification[];
  readonly rounds: readonly Round[];
}

/** §4.1 Figure 1, from I's side: WINNER when (J - I) mod N is odd, LOSER when it is even and not zero. */
export function rochambeau(I: bigint, J: bigint, N: bigint): 'win' | 'lose' | 'tie' {
  if (I === J) return 'tie';
  const residue = (((J - I) % N) + N) % N;
  return (residue & 1n) === 1n ? 'win' : 'lose';
}

/** Packs submissions into a table (one copy of every payload). */
export function toPlayerTable(players: readonly PlayerSubmission[]): PlayerTable {
  let length = 0;
  for (const p of players) length += (p.commit?.length ?? 0) + (p.reveal?.length ?? 0);
  const bytes = new Uint8Array(length);
  const count = players.length;
  const table = {
    ids: players.map((p) => p.id),
    bytes,
    commitStart: new Int32Array(count),
    commitEnd: new Int32Array(count),
    revealStart: new Int32Array(count),
    revealEnd: new Int32Array(count),
  };
  let at = 0;
  const place = (payload: Uint8Array | null, starts: Int32Array, ends: Int32Array, k: number): void => {
    if (payload === null) {
      starts[k] = -1;
      ends[k] = -1;
      return;
    }
    bytes.set(payload, at);
    starts[k] = at;
    at += payload.length;
    ends[k] = at;
  };
  players.forEach((p, k) => {
    place(p.commit, table.commitStart, table.commitEnd, k);
    place(p.reveal, table.revealStart, table.revealEnd, k);
  });
  return table;
}

const isTable = (players: RochambeauGame['players']): players is PlayerTable => !Array.isArray(players);

/** A game checked and ready to judge. */
interface Field {
  readonly size: GameSize;
  readonly digestOctets: number;
  readonly digest: Digest;
  readonly table: PlayerTable;
  readonly gameId: string | undefined;
  readonly store: CommitStore;
}

function prepare(game: RochambeauGame, options: JudgeOptions): Field {
  const size = gameSize(game.N);
  const hash = checkHashName(game.hash ?? 'sha-256');
  const table = isTable(game.players) ? game.players : toPlayerTable(game.players);
  checkTable(table);
  if (game.gameId !== undefined && typeof game.gameId !== 'string') {
    throw new FairtableError('bad_input', 'gameId: expected a string', { field: 'gameId' });
  }
  // The judge reads every digest at once and keeps none, so one output array serves all.
  const digest = resolveDigest(hash, options.digest, { transient: true });
  const digestOctets = DIGEST_OCTETS[hash];
  return { size, digestOctets, digest, table, gameId: game.gameId, store: new CommitStore(digestOctets, table.ids.length) };
}

function checkTable(table: PlayerTable): void {
  const count = table.ids.length;
  const columns = [table.commitStart, table.commitEnd, table.revealStart, table.revealEnd];
  if (columns.some((c) => c.length !== count)) throw new FairtableError('bad_input', 'players: table columns differ in length', { field: 'players' });
  const limit = table.bytes.length;
  const inBounds = (start: number, end: number): boolean => (start === -1 && end === -1) || (start >= 0 && start <= end && end <= limit);
  for (let k = 0; k < count; k++) {
    if (typeof table.ids[k] !== 'string') throw new FairtableError('bad_input', `players[${k}].id: expected a string`, { field: 'players' });
    if (!inBounds(table.commitStart[k]!, table.commitEnd[k]!) || !inBounds(table.revealStart[k]!, table.revealEnd[k]!)) {
      throw new FairtableError('bad_input', `players[${k}]: payload bounds outside the table`, { field: 'players' });
    }
  }
  // An id names one player; two players under one name would make the verdict ambiguous.
  const twice = repeatedId(table.ids);
  if (twice !== null) throw new FairtableError('bad_input', `players: id ${JSON.stringify(twice)} appears twice`, { field: 'players' });
}

/**
 * The first id (by its second appearance) that appears twice, or null. Ids are
 * ordered by an FNV-1a hash of their UTF-16 code units and only neighbours
 * with equal hashes are compared as strings: a Set of a million strings
 * measured half a second, a hash table with random probes a fifth of that,
 * this sort a tenth.
 */
function repeatedId(ids: readonly string[]): string | null {
  const hashes = new Uint32Array(ids.length);
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k]!;
    let hash = 0x811c9dc5;
    for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193);
    hashes[k] = hash;
  }
  const { order, keys } = sortByKey(hashes);
  let first = -1;
  for (let i = 0; i < order.length;) {
    let j = i + 1;
    while (j < order.length && keys[j] === keys[i]) j++;
    if (j - i > 1) {
      // Ids with one hash, in arrival order (the sort is stable). A Set per run keeps
      // even a crafted input, all ids on one hash, linear.
      const seen = new Set<string>();
      for (let r = i; r < j; r++) {
        const id = ids[order[r]!]!;
        if (seen.has(id)) {
          if (first < 0 || order[r]! < first) first = order[r]!;
        } else seen.add(id);
      }
    }
    i = j;
  }
  return first < 0 ? null : ids[first]!;
}

/**
 * Positions 0..K-1 ordered by their 32-bit keys, ties kept in position order,
 * with the keys in that order: a two-pass LSD radix sort on 16-bit digits,
 * linear where a comparison sort of a million positions is not, and with
 * sequential reads where a hash table's probes are random.
 */
function sortByKey(keys: Uint32Array): { order: Uint32Array; keys: Uint32Array } {
  const K = keys.length;
  if (K < 4096) {
    const order = Uint32Array.from(keys.keys()).sort((a, b) => keys[a]! - keys[b]! || a - b);
    return { order, keys: order.map((k) => keys[k]!) };
  }
  const counts = new Int32Array(65536);
  const lowOrder = new Uint32Array(K);
  const lowKeys = new Uint32Array(K);
  for (let k = 0; k < K; k++) counts[keys[k]! & 0xffff]!++;
  startsFromCounts(counts);
  for (let k = 0; k < K; k++) {
    const key = keys[k]!;
    const at = counts[key & 0xffff]!++;
    lowOrder[at] = k;
    lowKeys[at] = key;
  }
  counts.fill(0);
  for (let k = 0; k < K; k++) counts[keys[k]! >>> 16]!++;
  startsFromCounts(counts);
  const order = new Uint32Array(K);
  const sorted = new Uint32Array(K);
  for (let i = 0; i < K; i++) {
    const key = lowKeys[i]!;
    const at = counts[key >>> 16]!++;
    order[at] = lowOrder[i]!;
    sorted[at] = key;
  }
  return { order, keys: sorted };
}

/** Turns digit counts into the first output position of each digit. */
function startsFromCounts(counts: Int32Array): void {
  for (let d = 0, sum = 0; d < counts.length; d++) {
    const c = counts[d]!;
    counts[d] = sum;
    sum += c;
  }
}

// ---------------------------------------------------------------- disqualification

/**
 * Players in a round, by position: their place in the game's list, their
 * revealed state, and where their C-value sits in the C-value store.
 */
interface Roster {
  readonly players: Uint32Array;
  readonly states: Residues;
  readonly commits: Uint32Array;
}

interface Qualified extends Roster {
  readonly disqualified: Disqualification[];
}

/**
 * The C-values of every well-formed Commit, back to back and 4-aligned (each
 * digest length is a multiple of 4), so they can be XORed as 32-bit words;
 * XOR works octet by octet, so the platform's byte order does not matter.
 */
class CommitStore {
  readonly octets: Uint8Array;
  readonly words: Int32Array;
  readonly wordsPerC: number;
  size = 0;

  constructor(digestOctets: number, count: number) {
    this.wordsPerC = digestOctets / 4;
    this.octets = new Uint8Array(count * digestOctets);
    this.words = new Int32Array(this.octets.buffer);
  }

  /** Stores the C-value at bytes[at, at + digest length); returns its store position. */
  add(bytes: Uint8Array, at: number): number {
    const { octets, wordsPerC: w } = this;
    const position = this.size++;
    for (let i = 0, o = 4 * w * position; i < 4 * w; i++) octets[o + i] = bytes[at + i]!;
    return position;
  }

  /**
   * For each store position, the earlier position holding the same C-value,
   * or -1. Positions are sorted by their first word; only neighbours with equal
   * first words are compared in full.
   */
  earlierCopies(): Int32Array {
    const { words, wordsPerC: w, size } = this;
    const firstWords = new Uint32Array(size);
    for (let p = 0; p < size; p++) firstWords[p] = words[p * w]!;
    const { order, keys } = sortByKey(firstWords);
    const copyOf = new Int32Array(size).fill(-1);
    const firsts: number[] = [];
    for (let i = 0; i < size;) {
      let j = i + 1;
      while (j < size && keys[j] === keys[i]) j++;
      if (j - i === 1) {
        i = j;
        continue;
      }
      // A run shares its first word and is in position order (the sort is stable). Each
      // position is compared with the first holder of each distinct C-value in the run,
      // so a thousand copies of one C cost a thousand comparisons, not half a million.
      firsts.length = 0;
      for (let r = i; r < j; r++) {
        const later = order[r]!;
        const earlier = firsts.find((first) => {
          for (let x = 1; x < w; x++) if (words[first * w + x] !== words[later * w + x]) return false;
          return true;
        });
        if (earlier === undefined) firsts.push(later);
        else copyOf[later] = earlier;
      }
      i = j;
    }
    return copyOf;
  }
}

/**
 * Resolution 10, in this order per player: a missing or malformed Commit, a
 * copied C-value (the earlier Commit stands), a missing or malformed Reveal,
 * a short nonce, a Reveal that does not open the Commit, in fairtable games a
 * nonce bound to someone else, and a state outside 1..N-1. The first failing
 * check names the code.
 */
function qualify(field: Field): Qualified {
  const { size, digestOctets, digest, table, gameId, store } = field;
  const { ids, bytes, commitStart, commitEnd, revealStart, revealEnd } = table;
  const count = ids.length;
  // First every Commit alone, so copies can be found by sorting, not by a probe per player.
  const positionOf = new Int32Array(count).fill(-1);
  const commitFaults = new Map<number, PayloadFault>();
  for (let k = 0; k < count; k++) {
    const cs = commitStart[k]!;
    if (cs < 0) continue;
    const fault = checkCommit(bytes, cs, commitEnd[k]!, digestOctets);
    if (fault === null) positionOf[k] = store.add(bytes, cs + 2);
    else commitFaults.set(k, fault);
  }
  const copyOf = store.earlierCopies();
  const ownerOf = new Int32Array(store.size);
  for (let k = 0; k < count; k++) if (positionOf[k]! >= 0) ownerOf[positionOf[k]!] = k;

  const disqualified: Disqualification[] = [];
  const out = (k: number, code: DisqualificationCode, detail: string): void => {
    disqualified.push({ player: k, id: ids[k]!, code, detail });
  };
  const players = new Uint32Array(count);
  const commits = new Uint32Array(count);
  const smallStates = size.small ? new Uint32Array(count) : null;
  const bigStates: bigint[] = [];
  const { octets } = store;
  const m = size.m;
  let kept = 0;
  for (let k = 0; k < count; k++) {
    const position = positionOf[k]!;
    if (position < 0) {
      const fault = commitFaults.get(k);
      if (fault === undefined) out(k, 'no_commit', 'no Commit arrived');
      else out(k, fault.code, fault.detail);
      continue;
    }
    const original = copyOf[position]!;
    if (original >= 0) {
      out(k, 'copied_commit', `C-value copies the Commit of player ${ids[ownerOf[original]!]!}`);
      continue;
    }
    const rs = revealStart[k]!;
    const re = revealEnd[k]!;
    if (rs < 0) {
      out(k, 'no_reveal', 'no Reveal arrived');
      continue;
    }
    const revealFault = checkReveal(bytes, rs, re, m);
    if (revealFault !== null) {
      out(k, revealFault.code, revealFault.detail);
      continue;
    }
    // §4.7: C' = H(nonce ‖ M), and nonce ‖ M is the Reveal from octet 4 on.
    const opened = digest(bytes.subarray(rs + 4, re));
    const c = position * digestOctets;
    let opens = true;
    for (let i = 0; i < digestOctets && opens; i++) opens = opened[i] === octets[c + i];
    if (!opens) {
      out(k, 'commit_mismatch', 'Reveal does not open the Commit: H(nonce || M) differs from C');
      continue;
    }
    if (gameId !== undefined && !startsWithBinding(bytes, rs + 4, nonceBinding(gameId, ids[k]!))) {
      out(k, 'foreign_nonce', `nonce does not begin with the ${BINDING_OCTETS}-octet binding of this player in this game`);
      continue;
    }
    const mAt = re - m;
    if (smallStates !== null) {
      // N < 2^32 means m <= 4, so the state is exact as a Number.
      let q = 0;
      for (let i = 0; i < m; i++) q = q * 256 + bytes[mAt + i]!;
      if (q < 1 || q >= size.n) {
        out(k, 'state_out_of_range', `revealed state ${q} is outside 1..${size.n - 1}`);
        continue;
      }
      smallStates[kept] = q;
    } else {
      let q = 0n;
      for (let i = 0; i < m; i++) q = (q << 8n) | BigInt(bytes[mAt + i]!);
      if (q < 1n || q >= size.N) {
        out(k, 'state_out_of_range', `revealed state ${q} is outside 1..${size.N - 1n}`);
        continue;
      }
      bigStates.push(q);
    }
    commits[kept] = position;
    players[kept++] = k;
  }
  return {
    players: players.slice(0, kept),
    states: smallStates !== null ? smallStates.slice(0, kept) : bigStates,
    commits: commits.slice(0, kept),
    disqualified,
  };
}

// ---------------------------------------------------------------- tweaks

/**
 * OS2IP(digest) mod N, for N < 2^32, sixteen bits at a time so every value
 * stays below 2^48. The quotient comes from multiplying by 1/N rather than
 * from `%` (a library call for doubles in V8, four times slower); it may be
 * one off either way, which the two corrections undo.
 */
function reduceSmall(digest: Uint8Array, n: number, inverse: number): number {
  let acc = 0;
  for (let i = 0; i < digest.length; i += 2) {
    const x = acc * 65536 + ((digest[i]! << 8) | digest[i + 1]!);
    acc = x - Math.floor(x * inverse) * n;
    if (acc < 0) acc += n;
    else if (acc >= n) acc -= n;
  }
  return acc;
}

function reduceBig(digest: Uint8Array, N: bigint): bigint {
  let x = 0n;
  for (const octet of digest) x = (x << 8n) | BigInt(octet);
  return x % N;
}

/** Resolution 7: t = OS2IP(H(X ‖ r)) mod N; a tweak function hands each player's H(X ‖ r) to the sink. */
type TweakSink = (k: number, digest: Uint8Array) => void;

/** A buffer for X ‖ r with X writable as 32-bit words. */
function tweakMessage(digestOctets: number, round: number): { message: Uint8Array; x: Int32Array } {
  const buffer = new Uint8Array(digestOctets + 4);
  buffer[digestOctets] = round;
  return { message: buffer.subarray(0, digestOctets + 1), x: new Int32Array(buffer.buffer, 0, digestOctets / 4) };
}

/** X for player k is (XOR of every C in the round) ⊕ C_k: one pass for the XOR, one hash per player. */
function tweakByXorOfAll(field: Field, commits: Uint32Array, round: number, sink: TweakSink): void {
  const { words, wordsPerC: w } = field.store;
  const all = new Int32Array(w);
  for (let k = 0; k < commits.length; k++) {
    const base = commits[k]! * w;
    for (let i = 0; i < w; i++) all[i] = all[i]! ^ words[base + i]!;
  }
  const { message, x } = tweakMessage(field.digestOctets, round);
  const digest = field.digest;
  for (let k = 0; k < commits.length; k++) {
    const base = commits[k]! * w;
    for (let i = 0; i < w; i++) x[i] = all[i]! ^ words[base + i]!;
    sink(k, digest(message));
  }
}

/** §4.3 word for word: X for player k is the XOR of every other player's C-value, O(K²). */
function tweakByXorOfOthers(field: Field, commits: Uint32Array, round: number, sink: TweakSink): void {
  const { words, wordsPerC: w } = field.store;
  const K = commits.length;
  const { message, x } = tweakMessage(field.digestOctets, round);
  for (let k = 0; k < K; k++) {
    x.fill(0);
    for (let j = 0; j < K; j++) {
      if (j === k) continue;
      const base = commits[j]! * w;
      for (let i = 0; i < w; i++) x[i] = x[i]! ^ words[base + i]!;
    }
    sink(k, field.digest(message));
  }
}

interface Assigned {
  readonly tweaks: Residues;
  readonly states: Residues;
}

/** §4.3: each assigned state is (revealed state + tweak) mod N. */
function assign(field: Field, roster: Roster, round: number, tweak: typeof tweakByXorOfAll): Assigned {
  const { size } = field;
  const { commits, states: revealed } = roster;
  const K = commits.length;
  if (revealed instanceof Uint32Array) {
    const n = size.n;
    const inverse = 1 / n;
    const tweaks = new Uint32Array(K);
    const states = new Uint32Array(K);
    tweak(field, commits, round, (k, digest) => {
      const t = reduceSmall(digest, n, inverse);
      const s = revealed[k]! + t;
      tweaks[k] = t;
      states[k] = s >= n ? s - n : s;
    });
    return { tweaks, states };
  }
  const tweaks: bigint[] = new Array<bigint>(K);
  const states: bigint[] = new Array<bigint>(K);
  tweak(field, commits, round, (k, digest) => {
    const t = reduceBig(digest, size.N);
    tweaks[k] = t;
    states[k] = (revealed[k]! + t) % size.N;
  });
  return { tweaks, states };
}

// ---------------------------------------------------------------- scores

/** The draft's way: every pair plays Figure 1 once, K(K-1)/2 games. */
function scoreByPairs(states: Residues, size: GameSize): Int32Array {
  const K = states.length;
  const scores = new Int32Array(K);
  if (states instanceof Uint32Array) {
    const n = size.n;
    for (let i = 0; i < K; i++) {
      const I = states[i]!;
      for (let j = i + 1; j < K; j++) {
        const J = states[j]!;
        if (I === J) continue;
        const residue = J > I ? J - I : J - I + n;
        if (residue % 2 === 1) {
          scores[i]!++;
          scores[j]!--;
        } else {
          scores[i]!--;
          scores[j]!++;
        }
      }
    }
    return scores;
  }
  for (let i = 0; i < K; i++) {
    for (let j = i + 1; j < K; j++) {
      const result = rochambeau(states[i]!, states[j]!, size.N);
      if (result === 'win') {
        scores[i]!++;
        scores[j]!--;
      } else if (result === 'lose') {
        scores[i]!--;
        scores[j]!++;
      }
    }
  }
  return scores;
}

/**
 * From the states in sorted order: against the `above` players with a larger
 * state, s wins when the parity differs; against the `below` players with a
 * smaller state it wins when the parity agrees (adding N, which is odd, flips
 * the parity); equal states tie. With `sameAbove`/`sameBelow` the counts of
 * equal parity,
 *   score = (above - 2·sameAbove) + (2·sameBelow - below),
 * the same for every player in a run of equal states.
 */
function scoreBySorting(states: Residues): Int32Array {
  const K = states.length;
  const scores = new Int32Array(K);
  let order: Uint32Array;
  let parity: (r: number) => number;
  let same: (r: number, s: number) => boolean;
  if (states instanceof Uint32Array) {
    const sorted = sortByKey(states);
    order = sorted.order;
    const values = sorted.keys;
    parity = (r) => values[r]! & 1;
    same = (r, s) => values[r] === values[s];
  } else {
    order = Uint32Array.from(states.keys()).sort((a, b) => compareBig(states[a]!, states[b]!));
    const values = Array.from(order, (k) => states[k]!);
    parity = (r) => Number(values[r]! & 1n);
    same = (r, s) => values[r] === values[s];
  }
  let totalOdd = 0;
  for (let r = 0; r < K; r++) totalOdd += parity(r);
  let oddBelow = 0;
  for (let i = 0; i < K;) {
    let j = i + 1;
    while (j < K && same(j, i)) j++;
    const odd = parity(i);
    const oddHere = odd * (j - i);
    const below = i;
    const above = K - j;
    const oddAbove = totalOdd - oddBelow - oddHere;
    const sameBelow = odd === 1 ? oddBelow : below - oddBelow;
    const sameAbove = odd === 1 ? oddAbove : above - oddAbove;
    const score = above - 2 * sameAbove + 2 * sameBelow - below;
    for (let r = i; r < j; r++) scores[order[r]!] = score;
    oddBelow += oddHere;
    i = j;
  }
  return scores;
}

const compareBig = (a: bigint, b: bigint): number => (a < b ? -1 : a > b ? 1 : 0);

// ---------------------------------------------------------------- rounds

interface Method {
  readonly tweak: typeof tweakByXorOfAll;
  readonly score: (states: Residues, size: GameSize) => Int32Array;
}

function pick<T extends Residues>(values: T, positions: number[]): T {
  if (values instanceof Uint32Array) return Uint32Array.from(positions, (k) => values[k]!) as T;
  return positions.map((k) => values[k]!) as unknown as T;
}

function decide(game: RochambeauGame, options: JudgeOptions, method: Method): Verdict {
  const field = prepare(game, options);
  const { disqualified, ...qualified } = qualify(field);
  const rounds: Round[] = [];
  let roster: Roster = qualified;
  for (let round = 1; round <= MAX_ROUNDS && roster.players.length > 0; round++) {
    const assigned = assign(field, roster, round, method.tweak);
    const scores = method.score(assigned.states, field.size);
    rounds.push({ round, players: roster.players, tweaks: assigned.tweaks, states: assigned.states, scores });
    let best = -Infinity;
    for (let k = 0; k < scores.length; k++) if (scores[k]! > best) best = scores[k]!;
    const leaders: number[] = [];
    for (let k = 0; k < scores.length; k++) if (scores[k] === best) leaders.push(k);
    if (leaders.length === 1) {
      const winnerIndex = roster.players[leaders[0]!]!;
      return { outcome: 'winner', winner: field.table.ids[winnerIndex]!, winnerIndex, disqualified, rounds };
    }
    roster = { players: pick(roster.players, leaders), states: pick(roster.states, leaders), commits: pick(roster.commits, leaders) };
  }
  return { outcome: qualified.players.length === 0 ? 'no_players' : 'no_winner', winner: null, winnerIndex: null, disqualified, rounds };
}

/** The verdict of a game, in O(M log M). */
export function judge(game: RochambeauGame, options: JudgeOptions = {}): Verdict {
  return decide(game, options, { tweak: tweakByXorOfAll, score: (states) => scoreBySorting(states) });
}

/** The verdict the draft's text computes literally, in O(M²) per round: the reference `judge` is tested against. */
export function judgePairwise(game: RochambeauGame, options: JudgeOptions = {}): Verdict {
  return decide(game, options, { tweak: tweakByXorOfOthers, score: scoreByPairs });
}
