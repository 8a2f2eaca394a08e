/**
 * A player's side of Rochambeau: choosing a state 0 < q < N (draft-harkins-
 * rochambeau-02 §4.2), the nonce and Commit (§4.4) and the Reveal (§4.6);
 * and `pickOne`, the draft's designated-router use (§1): M nodes that do not
 * trust each other each commit and reveal, and all of them compute the same
 * chosen node.
 *
 * q is drawn uniformly by rejection sampling (resolution 5) and the nonce is
 * 32 random octets; in fairtable games its first 16 octets are the binding of
 * the game and player (resolution 11, `binding.ts`). Randomness comes from
 * the platform CSPRNG unless the caller passes a source, which tests and
 * simulations do to be reproducible.
 */
import { randomBytes as platformRandomBytes } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { BINDING_OCTETS, nonceBinding } from './binding.js';
import { NONCE_OCTETS, encodeCommit, encodeReveal, encodeState, gameSize } from './codec.js';
import { checkHashName, resolveDigest, type Digest, type HashName } from './hashes.js';
import { judge, type PlayerSubmission } from './judge.js';

/** length -> that many random octets. */
export type RandomBytes = (length: number) => Uint8Array;

export interface NonceBinding {
  readonly gameId: string;
  readonly playerId: string;
}

function draw(random: RandomBytes, length: number): Uint8Array {
  const bytes = random(length);
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    throw new FairtableError('bad_input', `random: asked for ${length} octets, got ${bytes?.length}`, { field: 'random' });
  }
  return bytes;
}

/** A state q uniform on 1..N-1. */
export function chooseState(N: bigint | number | string, random: RandomBytes = platformRandomBytes): bigint {
  const size = gameSize(N);
  const range = size.N - 1n;
  const top = range - 1n;
  const bits = top.toString(2).length;
  const octets = Math.ceil(bits / 8);
  // Masking the leading octet to `bits` bits keeps each try's acceptance above one half.
  const mask = 0xff >> (8 * octets - bits);
  for (;;) {
    const bytes = draw(random, octets);
    let value = BigInt(bytes[0]! & mask);
    for (let i = 1; i < octets; i++) value = (value << 8n) | BigInt(bytes[i]!);
    if (value < range) return value + 1n;
  }
}

/** 32 random octets; with a binding, its 16 octets come first and 16 random ones follow. */
export function makeNonce(binding?: NonceBinding, random: RandomBytes = platformRandomBytes): Uint8Array {
  if (binding === undefined) return draw(random, NONCE_OCTETS).slice();
  const nonce = new Uint8Array(NONCE_OCTETS);
  nonce.set(nonceBinding(binding.gameId, binding.playerId));
  nonce.set(draw(random, NONCE_OCTETS - BINDING_OCTETS), BINDING_OCTETS);
  return nonce;
}

/** Everything a player keeps between committing and revealing. */
export interface Move {
  readonly state: bigint;
  readonly nonce: Uint8Array;
  /** I2OSP(state, m). */
  readonly M: Uint8Array;
  /** C = H(nonce ‖ M). */
  readonly C: Uint8Array;
  /** The Commit payload, to send first. */
  readonly commit: Uint8Array;
  /** The Reveal payload, to send once every Commit is in. */
  readonly reveal: Uint8Array;
}

export interface MoveOptions {
  readonly N: bigint | number | string;
  readonly hash?: HashName;
  /** Fairtable games: bind the nonce to this game and player. */
  readonly binding?: NonceBinding;
  /** Play this state instead of a random one (tests, vectors). */
  readonly state?: bigint | number;
  readonly random?: RandomBytes;
  readonly digest?: Digest;
}

export function prepareMove(options: MoveOptions): Move {
  const size = gameSize(options.N);
  const random = options.random ?? platformRandomBytes;
  const digest = resolveDigest(checkHashName(options.hash ?? 'sha-256'), options.digest);
  const state = options.state === undefined ? chooseState(size.N, random) : BigInt(options.state);
  const M = encodeState(state, size);
  const nonce = makeNonce(options.binding, random);
  const reveal = encodeReveal(nonce, M);
  const C = digest(reveal.subarray(4));
  return { state, nonce, M, C, commit: encodeCommit(C), reveal };
}

export interface PickOptions {
  readonly N: bigint | number | string;
  readonly hash?: HashName;
  readonly gameId?: string;
  readonly digest?: Digest;
}

/**
 * The node the game chooses among `candidates` (listed in the order their
 * Commits arrived), or null when nobody is left or round 255 still ties, in
 * which case the nodes play again with fresh Commits.
 */
export function pickOne<T extends PlayerSubmission>(candidates: readonly T[], options: PickOptions): T | null {
  const game = {
    N: options.N,
    ...(options.hash === undefined ? {} : { hash: options.hash }),
    ...(options.gameId === undefined ? {} : { gameId: options.gameId }),
    players: candidates,
  };
  const verdict = judge(game, options.digest === undefined ? {} : { digest: options.digest });
  return verdict.winnerIndex === null ? null : candidates[verdict.winnerIndex]!;
}
