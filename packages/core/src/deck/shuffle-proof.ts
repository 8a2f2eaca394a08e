/**
 * A verifiable shuffle of the deck (docs/spec/deck.md §5): the shuffler permutes the ciphertexts and
 * re-encrypts each, and proves in zero knowledge that the output is a permutation of re-encryptions of the
 * input. The argument is Terelius and Wikström's proof of a shuffle (permutation matrix committed with
 * Pedersen commitments, a chain of commitments for the product of the challenges), in the form Haenni,
 * Locher, Koenig and Dubuis give for re-encryption mix-nets, written additively on ristretto255. The
 * Pedersen generators are hashed to the group from public labels, so there is no trusted setup; the
 * argument is made non-interactive by Fiat–Shamir with every public input in the hash (strong
 * Fiat–Shamir): the game, the shuffler's seat, the shuffle's index, the joint key, both decks and the
 * permutation commitments.
 *
 * Verification folds every equation into one multi-scalar multiplication with weights hashed from the
 * whole proof, so each seat and the auditor reach the same answer.
 */
import { FairtableError, type Violation } from '../errors.js';
import { decodeDeck, encodePair, reEncrypt, type Ciphertext, type Pair } from './elgamal.js';
import {
  Fn,
  BASE,
  Transcript,
  indexedChallenge,
  msm,
  mul,
  mulBase,
  mulSum,
  pedersenGenerators,
  pedersenH,
  fixedPointFromHex,
  pointFromHex,
  pointHex,
  randomScalar,
  scalarFromHex,
  scalarHex,
  seatOf,
  type DeckTable,
  type RPoint,
} from './group.js';
import { answersKept } from '../escrow/kept.js';
import type { ProvedOnce } from './proved-once.js';

/** Which shuffle of which deck a proof is about. */
export interface ShuffleStatement {
  readonly table: DeckTable;
  /** The shuffling player (its id). */
  readonly shuffler: string;
  /** The shuffle's number in the deck's history (0 for the first). */
  readonly index: number;
  /** The joint key, hex. */
  readonly key: string;
  readonly input: readonly Ciphertext[];
  readonly output: readonly Ciphertext[];
}

/** The proof, every point and scalar hex (docs/spec/deck.md §5.2). */
export interface ShuffleProof {
  /** c_j: the commitment to the permutation, one per input position. */
  readonly commitments: readonly string[];
  /** ĉ_1..ĉ_N: the chain of commitments. */
  readonly chain: readonly string[];
  readonly t1: string;
  readonly t2: string;
  readonly t3: string;
  readonly t4a: string;
  readonly t4b: string;
  /** t̂_1..t̂_N. */
  readonly tHat: readonly string[];
  readonly s1: string;
  readonly s2: string;
  readonly s3: string;
  readonly s4: string;
  /** ŝ_1..ŝ_N. */
  readonly sHat: readonly string[];
  /** s'_1..s'_N. */
  readonly sPrime: readonly string[];
}

/** A uniform integer in [0, m) from the random source (rejection sampling on 32-bit draws). */
function uniform(m: number, random: (n: number) => Uint8Array): number {
  const limit = Math.floor(0x100000000 / m) * m;
  for (;;) {
    const b = random(4);
    const x = ((b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!) >>> 0;
    if (x < limit) return x % m;
  }
}

/** A uniformly random permutation of 0..n−1 (Fisher–Yates): output position i takes input π[i]. */
export function randomPermutation(n: number, random: (n: number) => Uint8Array): number[] {
  const p = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = uniform(i + 1, random);
    [p[i], p[j]] = [p[j]!, p[i]!];
  }
  return p;
}

/** The seed of the challenges u_j: every public input and the permutation commitments. */
function seedOf(st: ShuffleStatement, input: readonly Pair[], output: readonly Pair[], key: RPoint, commitments: readonly RPoint[]): Uint8Array {
  const t = new Transcript('shuffle').text(st.table.game).int(seatOf(st.table, st.shuffler)).text(st.shuffler).int(st.index).point(key).int(input.length);
  for (const c of input) t.point(c.a).point(c.b);
  for (const c of output) t.point(c.a).point(c.b);
  return t.points(commitments).digest();
}

function challengeOf(seed: Uint8Array, chain: readonly RPoint[], ts: readonly RPoint[], tHat: readonly RPoint[]): bigint {
  return new Transcript('shuffle-challenge').raw(seed).points(chain).points(ts).points(tHat).challenge();
}

/** The prover's random scalars, drawn in this order (r, r̂, w, ŵ, w′): the order fixes the proof's bytes for a given random source. */
interface ShuffleNonces {
  readonly r: readonly bigint[];
  readonly rHat: readonly bigint[];
  readonly w: readonly bigint[];
  readonly wHat: readonly bigint[];
  readonly wPrime: readonly bigint[];
}

function drawNonces(n: number, random: (n: number) => Uint8Array): ShuffleNonces {
  const draw = (k: number): bigint[] => Array.from({ length: k }, () => randomScalar(random));
  const r = draw(n);
  const rHat = draw(n);
  const w = draw(4);
  const wHat = draw(n);
  return { r, rHat, w, wHat, wPrime: draw(n) };
}

function checkPermutation(n: number, permutation: readonly number[], rho: readonly bigint[]): void {
  if (
    n < 2 ||
    permutation.length !== n ||
    rho.length !== n ||
    new Set(permutation).size !== n ||
    permutation.some((j) => !Number.isInteger(j) || j < 0 || j >= n)
  ) {
    throw new FairtableError('bad_input', 'a shuffle needs a permutation of the whole deck and one randomness per card', { field: 'permutation' });
  }
}

/**
 * Shuffles `input` under the joint key with permutation `permutation` (output i takes input
 * permutation[i]) and re-encryption randomness `rho` (output i's), and proves it. Exposed for tests and
 * vectors; players call `shuffle`. With a simulation's keeper (proved-once.ts), the same inputs and random
 * draws are proved once: the scalars are drawn before the keeper is asked.
 */
export function proveShuffle(
  st: Omit<ShuffleStatement, 'output'>,
  permutation: readonly number[],
  rho: readonly bigint[],
  random: (n: number) => Uint8Array,
  kept?: ProvedOnce,
): { output: Ciphertext[]; proof: ShuffleProof } {
  checkPermutation(st.input.length, permutation, rho);
  const key = fixedPointFromHex(st.key, 'key');
  const input = decodeDeck(st.input);
  const nonces = drawNonces(input.length, random);
  const prove = (): { output: Ciphertext[]; proof: ShuffleProof } => proveWith(st, key, input, permutation, rho, nonces);
  if (kept === undefined) return prove();
  const hex = (xs: readonly bigint[]): string[] => xs.map(scalarHex);
  return kept(['shuffle', st, permutation, hex(rho), hex(nonces.r), hex(nonces.rHat), hex(nonces.w), hex(nonces.wHat), hex(nonces.wPrime)], prove);
}

function proveWith(
  st: Omit<ShuffleStatement, 'output'>,
  key: RPoint,
  input: readonly Pair[],
  permutation: readonly number[],
  rho: readonly bigint[],
  nonces: ShuffleNonces,
): { output: Ciphertext[]; proof: ShuffleProof } {
  const n = input.length;
  const { r, rHat, w, wHat, wPrime } = nonces;
  const output = permutation.map((j, i) => reEncrypt(key, input[j]!, rho[i]!));
  const h = pedersenH();
  const hs = pedersenGenerators(n);
  const inverse: number[] = new Array<number>(n);
  permutation.forEach((j, i) => (inverse[j] = i));
  // c_j = r_j·G + H_{π⁻¹(j)}: input j goes to output π⁻¹(j).
  const commitments = r.map((rj, j) => mulBase(rj).add(hs[inverse[j]!]!));
  const seed = seedOf({ ...st, output: [] }, input, output, key, commitments);
  const u = Array.from({ length: n }, (_, j) => indexedChallenge(seed, j));
  const uPrime = permutation.map((j) => u[j]!);
  // ĉ_0 = H, ĉ_i = r̂_i·G + u'_i·ĉ_{i−1}.
  const chain: RPoint[] = [];
  let previous = h;
  for (let i = 0; i < n; i++) {
    previous = mulBase(rHat[i]!).add(mul(previous, uPrime[i]!));
    chain.push(previous);
  }
  // Σ w′_i·P_i, the w′ secret (each s′_i = w′_i + c·u′_i would give the permutation away).
  const sumOf = (points: readonly RPoint[]): RPoint => mulSum(points, wPrime);
  const t1 = mulBase(w[0]!);
  const t2 = mulBase(w[1]!);
  const t3 = mulBase(w[2]!).add(sumOf(hs));
  const t4a = sumOf(output.map((c) => c.a)).subtract(mulBase(w[3]!));
  const t4b = sumOf(output.map((c) => c.b)).subtract(mul(key, w[3]!));
  const tHat = wHat.map((wi, i) => mulBase(wi).add(mul(i === 0 ? h : chain[i - 1]!, wPrime[i]!)));
  const c = challengeOf(seed, chain, [t1, t2, t3, t4a, t4b], tHat);
  const rBar = r.reduce((acc, x) => Fn.add(acc, x), 0n);
  // v_N = 1, v_{i−1} = u'_i·v_i; r̂ = Σ r̂_i·v_i.
  let v = 1n;
  let rHatSum = 0n;
  for (let i = n - 1; i >= 0; i--) {
    rHatSum = Fn.add(rHatSum, Fn.mul(rHat[i]!, v));
    v = Fn.mul(v, uPrime[i]!);
  }
  const rTilde = r.reduce((acc, x, j) => Fn.add(acc, Fn.mul(x, u[j]!)), 0n);
  const rPrime = rho.reduce((acc, x, i) => Fn.add(acc, Fn.mul(x, uPrime[i]!)), 0n);
  const respond = (omega: bigint, x: bigint): string => scalarHex(Fn.add(omega, Fn.mul(c, x)));
  return {
    output: output.map(encodePair),
    proof: {
      commitments: commitments.map(pointHex),
      chain: chain.map(pointHex),
      t1: pointHex(t1),
      t2: pointHex(t2),
      t3: pointHex(t3),
      t4a: pointHex(t4a),
      t4b: pointHex(t4b),
      tHat: tHat.map(pointHex),
      s1: respond(w[0]!, rBar),
      s2: respond(w[1]!, rHatSum),
      s3: respond(w[2]!, rTilde),
      s4: respond(w[3]!, rPrime),
      sHat: wHat.map((wi, i) => respond(wi, rHat[i]!)),
      sPrime: wPrime.map((wi, i) => respond(wi, uPrime[i]!)),
    },
  };
}

/** The shuffler's move: a fresh random permutation and randomness, the shuffled deck and its proof. */
export function shuffle(
  st: Omit<ShuffleStatement, 'output'>,
  random: (n: number) => Uint8Array,
  kept?: ProvedOnce,
): { output: Ciphertext[]; proof: ShuffleProof } {
  const n = st.input.length;
  return proveShuffle(
    st,
    randomPermutation(n, random),
    Array.from({ length: n }, () => randomScalar(random)),
    random,
    kept,
  );
}

/**
 * The answers of the last shuffle checks, by the canonical text of statement and proof (escrow/kept.ts): every
 * replica of a table in one process (each seat, the audit of its transcript, a simulation's players) checks the
 * same proofs, and the second reads the first's answer. A few entries suffice: the replicas check a shuffle close
 * together, and each key is the whole deck's text (tens of KB).
 */
const shufflesChecked = answersKept<boolean>(64);

/** Whether `proof` shows that `st.output` is a permutation of re-encryptions of `st.input` under `st.key`. */
export function verifyShuffle(st: ShuffleStatement, proof: ShuffleProof): boolean {
  return shufflesChecked([st, proof], () => {
    try {
      return check(st, proof);
    } catch {
      // An undecodable point or scalar, or a list of the wrong length: the proof does not verify.
      return false;
    }
  });
}

/** The finding for a shuffle: none when its proof verifies, else `bad_shuffle` naming the shuffler. */
export function checkShuffle(st: ShuffleStatement, proof: ShuffleProof, seq = 0): Violation[] {
  if (verifyShuffle(st, proof)) return [];
  const message = `${st.shuffler}'s shuffle ${st.index} does not come with a valid proof that it permutes and re-encrypts its input`;
  return [{ code: 'bad_shuffle', player: st.shuffler, seq, message, evidence: [{ note: message }] }];
}

function check(st: ShuffleStatement, proof: ShuffleProof): boolean {
  const n = st.input.length;
  const lists = [st.output, proof.commitments, proof.chain, proof.tHat, proof.sHat, proof.sPrime];
  if (n < 2 || lists.some((l) => !Array.isArray(l) || l.length !== n)) return false;
  const key = pointFromHex(st.key, 'key');
  const input = decodeDeck(st.input);
  const output = decodeDeck(st.output);
  const pts = (l: readonly string[], f: string): RPoint[] => l.map((x, i) => pointFromHex(x, `${f}[${i}]`));
  const commitments = pts(proof.commitments, 'commitments');
  const chain = pts(proof.chain, 'chain');
  const tHat = pts(proof.tHat, 'tHat');
  const [t1, t2, t3, t4a, t4b] = [proof.t1, proof.t2, proof.t3, proof.t4a, proof.t4b].map((x) => pointFromHex(x, 't')) as [
    RPoint,
    RPoint,
    RPoint,
    RPoint,
    RPoint,
  ];
  const [s1, s2, s3, s4] = [proof.s1, proof.s2, proof.s3, proof.s4].map((x) => scalarFromHex(x, 's')) as [bigint, bigint, bigint, bigint];
  const sHat = proof.sHat.map((x) => scalarFromHex(x, 'sHat'));
  const sPrime = proof.sPrime.map((x) => scalarFromHex(x, 'sPrime'));
  const h = pedersenH();
  const hs = pedersenGenerators(n);
  const seed = seedOf(st, input, output, key, commitments);
  const u = Array.from({ length: n }, (_, j) => indexedChallenge(seed, j));
  const c = challengeOf(seed, chain, [t1, t2, t3, t4a, t4b], tHat);
  const uProduct = u.reduce((acc, x) => Fn.mul(acc, x), 1n);
  // Weights for folding the 5 + N equations into one: hashed from the challenge and every response.
  const fold = new Transcript('shuffle-fold').scalar(c).scalar(s1).scalar(s2).scalar(s3).scalar(s4);
  for (let i = 0; i < n; i++) fold.scalar(sHat[i]!).scalar(sPrime[i]!);
  const foldSeed = fold.digest();
  const d = Array.from({ length: 5 + n }, (_, k) => indexedChallenge(foldSeed, k));
  const [d1, d2, d3, d4a, d4b] = d as [bigint, bigint, bigint, bigint, bigint];
  const dHat = d.slice(5);
  // Each equation as (points, scalars) whose sum must be the identity:
  //   s1·G − c·(Σc_j − ΣH_i) − t1;  s2·G − c·(ĉ_N − u·H) − t2;  s3·G + Σs'_i·H_i − c·Σu_j·c_j − t3;
  //   Σs'_i·a'_i − s4·G − c·Σu_j·a_j − t4a;  Σs'_i·b'_i − s4·Y − c·Σu_j·b_j − t4b;
  //   ŝ_i·G + s'_i·ĉ_{i−1} − c·ĉ_i − t̂_i.
  const points: RPoint[] = [];
  const scalars: bigint[] = [];
  const add = (p: RPoint, k: bigint): void => {
    points.push(p);
    scalars.push(k);
  };
  let g = Fn.add(Fn.add(Fn.mul(d1, s1), Fn.mul(d2, s2)), Fn.sub(Fn.mul(d3, s3), Fn.mul(d4a, s4)));
  for (let i = 0; i < n; i++) g = Fn.add(g, Fn.mul(dHat[i]!, sHat[i]!));
  add(BASE, g);
  add(h, Fn.add(Fn.mul(Fn.mul(d2, c), uProduct), Fn.mul(dHat[0]!, sPrime[0]!)));
  add(key, Fn.neg(Fn.mul(d4b, s4)));
  for (let j = 0; j < n; j++) {
    const cu = Fn.mul(c, u[j]!);
    add(commitments[j]!, Fn.neg(Fn.add(Fn.mul(d1, c), Fn.mul(d3, cu))));
    add(input[j]!.a, Fn.neg(Fn.mul(d4a, cu)));
    add(input[j]!.b, Fn.neg(Fn.mul(d4b, cu)));
  }
  for (let i = 0; i < n; i++) {
    add(hs[i]!, Fn.add(Fn.mul(d1, c), Fn.mul(d3, sPrime[i]!)));
    add(output[i]!.a, Fn.mul(d4a, sPrime[i]!));
    add(output[i]!.b, Fn.mul(d4b, sPrime[i]!));
    const next = i + 1 < n ? Fn.mul(dHat[i + 1]!, sPrime[i + 1]!) : Fn.neg(Fn.mul(d2, c));
    add(chain[i]!, Fn.sub(next, Fn.mul(dHat[i]!, c)));
    add(tHat[i]!, Fn.neg(dHat[i]!));
  }
  add(t1, Fn.neg(d1));
  add(t2, Fn.neg(d2));
  add(t3, Fn.neg(d3));
  add(t4a, Fn.neg(d4a));
  add(t4b, Fn.neg(d4b));
  return msm(points, scalars).is0();
}
