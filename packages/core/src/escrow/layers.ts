/**
 * Seed 003's layered encryption (docs/spec/escrow.md §3): the owner's value M encrypted to a core group of
 * the other players, then wrapped layer by layer, each layer openable by either of a pair, so that the
 * others can peel it to M if the owner refuses to reveal, and anyone can check that a revealed M is the one
 * inside (the seed's background check).
 *
 * The whole onion travels in the owner's signed commit: the envelope signature binds the outer layer, and
 * each layer binds the next because it carries the hash of its content key (ChaCha20-Poly1305 is not
 * key-committing; with the key fixed, a body decrypts to one inside or none). So no layer needs a signature
 * of its own (§3.1).
 *
 * "Encrypt to a set" is one layer any member opens: a fresh 32-byte content key encrypts the inside, and is
 * sealed to each member under a key derived from e·A_i (A_i the member's fairtable key, e the layer's
 * ephemeral Ed25519 key). A member peels by publishing a·E with a Chaum–Pedersen proof (dleq.ts): anyone
 * then opens the box and the layer, or sees that the owner sealed garbage — the owner is named on that
 * evidence, and a member who publishes a wrong value is named instead. The ephemeral key signs the layer's
 * place (context, depth, members): proof that the owner knows e, so nobody can copy another box's ephemeral
 * into a layer and have a member publish the shared value of that other box.
 *
 * The layer plan for the others o1..om (in the setup's order) walks their ring: outermost (o1, om), then
 * (o1, o2), (o2, o3), …, (om−1, om) innermost; the core goes to every other player but the innermost pair.
 */
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { ed25519 } from '@noble/curves/ed25519.js';
import { hkdf } from '@noble/hashes/hkdf.js';
import { sha256 } from '@noble/hashes/sha2.js';
import { concatBytes, equalBytes, fromHex, fromUtf8, isHex, toHex, u32be, utf8 } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { hashJson, taggedHash } from '../hash.js';
import { canonicalize } from '../jcs.js';
import { exchangeValid, keyPoint, type Exchange } from './dleq.js';

/** One layer: who can open it, the ephemeral key and its proof, the content key sealed to each, its hash, the inside. */
export interface Layer {
  readonly to: readonly string[];
  /** E = e·G, the layer's ephemeral Ed25519 public key (hex). */
  readonly ephemeral: string;
  /** The ephemeral key's Ed25519 signature over the layer's place (`placeOf`). */
  readonly pok: string;
  /** The content key sealed to each member of `to`, in order (ChaCha20-Poly1305, zero nonce: each key once). */
  readonly boxes: readonly string[];
  /** H("layer-key", content key): the one key that opens `body`. */
  readonly keyHash: string;
  /** The inside, encrypted under the content key: the next layer (`encodeLayer`), or at the core the value. */
  readonly body: string;
}

export interface LayerPlan {
  /** The pairs, outermost first. */
  readonly layers: readonly (readonly [string, string])[];
  /** Who can open the core (M itself). */
  readonly core: readonly string[];
}

/** An owner's onion: the outer layer (published with the commitment) and each depth's ephemeral seed (kept until the reveal). */
export interface Onion {
  readonly outer: Layer;
  readonly seeds: readonly string[];
}

/**
 * A layer as the inside of the one around it: a 4-byte big-endian length, the canonical JSON of its other
 * members, then the body's raw bytes. Raw, not hex in JSON: each layer then adds a constant to the onion
 * rather than doubling it.
 */
export function encodeLayer(layer: Layer): Uint8Array {
  const { body, ...head } = layer;
  const h = utf8(canonicalize(head));
  return concatBytes(u32be(h.length), h, fromHex(body, 'body'));
}

/** The layer `encodeLayer` wrote, or null when the bytes are not one. */
export function decodeLayer(bytes: Uint8Array): unknown {
  try {
    if (bytes.length < 4) return null;
    const n = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0);
    if (4 + n > bytes.length) return null;
    const head = JSON.parse(fromUtf8(bytes.subarray(4, 4 + n))) as unknown;
    if (head === null || typeof head !== 'object' || Array.isArray(head) || 'body' in head) return null;
    return { ...head, body: toHex(bytes.subarray(4 + n)) };
  } catch {
    return null;
  }
}

/** The layers for an owner whose others are `others` (docs/spec/escrow.md §3). */
export function layerPlan(others: readonly string[]): LayerPlan {
  const m = others.length;
  if (m === 0 || new Set(others).size !== m) {
    throw new FairtableError('bad_input', 'layers: the other players must be at least one, each named once', { field: 'others' });
  }
  if (m === 1) return { layers: [], core: [...others] };
  if (m === 2) return { layers: [[others[0]!, others[1]!]], core: [...others] };
  const layers: [string, string][] = [[others[0]!, others[m - 1]!]];
  for (let i = 0; i + 1 < m; i++) layers.push([others[i]!, others[i + 1]!]);
  return { layers, core: others.slice(0, m - 2) };
}

/** Who can open the layer at `depth` (the core's depth is the number of pair layers). */
export const membersAt = (plan: LayerPlan, depth: number): readonly string[] => plan.layers[depth] ?? plan.core;

const ZERO_NONCE = new Uint8Array(12);
/** What a member's exchange and box key are bound to. */
export const exchangeContext = (context: string, depth: number, member: string): string => `fairtable/layer/${context}/${depth}/${member}`;
const placeOf = (context: string, depth: number, to: readonly string[]): Uint8Array => hashJson('escrow-layer', { context, depth, to });
const boxKey = (shared: Uint8Array, context: string, depth: number, member: string): Uint8Array =>
  hkdf(sha256, shared, utf8('fairtable/layer-box/v1'), utf8(exchangeContext(context, depth, member)), 32);
const keyHashOf = (contentKey: Uint8Array): string => toHex(taggedHash('layer-key', contentKey));

export interface WrapOptions {
  /** Binds the layers to one game, owner and purpose (e.g. "beacon/<game>/3/p0"). */
  readonly context: string;
  /** Every other player's fairtable (Ed25519) public key, hex. */
  readonly keys: Readonly<Record<string, string>>;
  readonly random: (n: number) => Uint8Array;
  /**
   * Builds a faulty layer on purpose (the simulator's cheats only): at `depth`, the first member's box
   * sealed under a wrong key, or the body encrypted under a key that does not match `keyHash`.
   */
  readonly fault?: { readonly depth: number; readonly what: 'box' | 'body' };
}

function seal(depth: number, to: readonly string[], inside: Uint8Array, o: WrapOptions): { layer: Layer; seed: string } {
  const seed = o.random(32);
  const { scalar: e, pointBytes } = ed25519.utils.getExtendedPublicKey(seed);
  const contentKey = o.random(32);
  const boxes = to.map((p, i) => {
    const key = o.keys[p];
    if (key === undefined) throw new FairtableError('bad_input', `layers: no key for ${p}`, { field: 'keys' });
    const shared = keyPoint(key).multiply(e).toBytes();
    const k = o.fault?.depth === depth && o.fault.what === 'box' && i === 0 ? o.random(32) : boxKey(shared, o.context, depth, p);
    return toHex(chacha20poly1305(k, ZERO_NONCE).encrypt(contentKey));
  });
  const bodyKey = o.fault?.depth === depth && o.fault.what === 'body' ? o.random(32) : contentKey;
  const layer: Layer = {
    to: [...to],
    ephemeral: toHex(pointBytes),
    pok: toHex(ed25519.sign(placeOf(o.context, depth, to), seed)),
    boxes,
    keyHash: keyHashOf(contentKey),
    body: toHex(chacha20poly1305(bodyKey, ZERO_NONCE).encrypt(inside)),
  };
  return { layer, seed: toHex(seed) };
}

/** Wraps `value` for the owner's `others` by the layer plan: the outer layer (depth 0) and the seeds, outermost first. */
export function wrap(value: Uint8Array, others: readonly string[], o: WrapOptions): Onion {
  const plan = layerPlan(others);
  const coreDepth = plan.layers.length;
  const seeds: string[] = [];
  let { layer, seed } = seal(coreDepth, plan.core, value, o);
  seeds.unshift(seed);
  for (let d = coreDepth - 1; d >= 0; d--) {
    ({ layer, seed } = seal(d, plan.layers[d]!, encodeLayer(layer), o));
    seeds.unshift(seed);
  }
  return { outer: layer, seeds };
}

/** Why `value` is not a well-formed layer for `to` at `depth`, or null (checked on every layer as it becomes public). */
export function layerProblem(value: unknown, depth: number, to: readonly string[], context: string): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `layer ${depth} is not an object`;
  const l = value as Partial<Record<keyof Layer, unknown>>;
  if (!Array.isArray(l.to) || canonicalize(l.to) !== canonicalize(to)) return `layer ${depth} is sealed to ${canonicalize(l.to ?? null)}, the plan says ${canonicalize(to)}`;
  if (!isHex(l.ephemeral, 32) || !isHex(l.pok, 64) || !isHex(l.keyHash, 32) || typeof l.body !== 'string' || !/^(?:[0-9a-f]{2})+$/.test(l.body))
    return `layer ${depth} lacks an ephemeral key, its proof, a key hash or a body`;
  if (!Array.isArray(l.boxes) || l.boxes.length !== to.length || !l.boxes.every((b) => isHex(b, 48))) return `layer ${depth} does not seal one key box per member`;
  try {
    const E = ed25519.Point.fromHex(l.ephemeral);
    if (!E.isTorsionFree() || E.equals(ed25519.Point.ZERO)) return `layer ${depth}'s ephemeral key is not a point of the prime-order group`;
  } catch {
    return `layer ${depth}'s ephemeral key is not a point`;
  }
  if (!ed25519.verify(fromHex(l.pok, 'pok', 64), placeOf(context, depth, to), fromHex(l.ephemeral, 'ephemeral', 32), { zip215: false }))
    return `layer ${depth}'s ephemeral key does not sign its place: nobody may be asked to exchange with it`;
  return null;
}

/** What a member's published exchange shows about a layer. */
export type PeelResult =
  /** The member's value is not a·E for its key: the member's fault. */
  | { readonly kind: 'bad-exchange' }
  /** The exchange is right and the layer does not open or holds garbage: the owner's fault. */
  | { readonly kind: 'fault'; readonly why: string }
  | { readonly kind: 'layer'; readonly layer: Layer }
  | { readonly kind: 'value'; readonly value: Uint8Array };

/**
 * Anyone, given a member's exchange for `layer` (at `depth` of an onion planned by `plan`): whether the member
 * told the truth, and if so what the layer holds — the next layer (checked), the core's value, or the owner's fault.
 */
export function judgePeel(layer: Layer, depth: number, plan: LayerPlan, member: string, memberKey: string, x: Exchange, context: string): PeelResult {
  const i = layer.to.indexOf(member);
  if (i < 0 || !exchangeValid(layer.ephemeral, memberKey, x, exchangeContext(context, depth, member))) return { kind: 'bad-exchange' };
  return openLayer(layer, depth, plan, member, fromHex(x.shared, 'shared', 32), context);
}

function openLayer(layer: Layer, depth: number, plan: LayerPlan, member: string, shared: Uint8Array, context: string): Exclude<PeelResult, { kind: 'bad-exchange' }> {
  const i = layer.to.indexOf(member);
  let contentKey: Uint8Array;
  try {
    contentKey = chacha20poly1305(boxKey(shared, context, depth, member), ZERO_NONCE).decrypt(fromHex(layer.boxes[i]!, 'box'));
  } catch {
    return { kind: 'fault', why: `${member}'s key box of layer ${depth} does not open with the shared value e·A` };
  }
  if (keyHashOf(contentKey) !== layer.keyHash) return { kind: 'fault', why: `${member}'s key box of layer ${depth} holds a key that does not match the layer's key hash` };
  let inside: Uint8Array;
  try {
    inside = chacha20poly1305(contentKey, ZERO_NONCE).decrypt(fromHex(layer.body, 'body'));
  } catch {
    return { kind: 'fault', why: `layer ${depth}'s body does not open with the key its hash names` };
  }
  if (depth === plan.layers.length) return { kind: 'value', value: inside };
  const next = decodeLayer(inside);
  if (next === null) return { kind: 'fault', why: `layer ${depth} holds no layer` };
  const problem = layerProblem(next, depth + 1, membersAt(plan, depth + 1), context);
  return problem === null ? { kind: 'layer', layer: next as Layer } : { kind: 'fault', why: `layer ${depth} holds a bad layer: ${problem}` };
}

/**
 * The seed's background check, from the seeds the owner publishes with its reveal: every layer's ephemeral
 * key and proof, every member's box and every body, down to the core, which must be `revealed`. Null when all
 * is well, else the owner's fault.
 */
export function onionProblem(
  outer: Layer,
  seeds: readonly string[],
  others: readonly string[],
  keys: Readonly<Record<string, string>>,
  context: string,
  revealed: Uint8Array,
): string | null {
  const plan = layerPlan(others);
  if (seeds.length !== plan.layers.length + 1 || !seeds.every((s) => isHex(s, 32))) return `the reveal carries ${seeds.length} layer seeds, the onion has ${plan.layers.length + 1} layers`;
  let layer = outer;
  for (let depth = 0; ; depth++) {
    const seed = fromHex(seeds[depth]!, 'seed', 32);
    const { scalar: e, pointBytes } = ed25519.utils.getExtendedPublicKey(seed);
    if (toHex(pointBytes) !== layer.ephemeral) return `seed ${depth} is not layer ${depth}'s ephemeral key`;
    // Ed25519 signatures are deterministic: the proof is re-made from the seed rather than verified.
    if (toHex(ed25519.sign(placeOf(context, depth, layer.to), seed)) !== layer.pok) return `layer ${depth}'s proof is not its ephemeral key's signature of its place`;
    let result: ReturnType<typeof openLayer> | null = null;
    for (const member of layer.to) {
      const key = keys[member];
      if (key === undefined) return `layer ${depth} is sealed to ${member}, who has no key`;
      const r = openLayer(layer, depth, plan, member, keyPoint(key).multiplyUnsafe(e).toBytes(), context);
      if (r.kind === 'fault') return r.why;
      result = r;
    }
    if (result === null) return `layer ${depth} has no member`;
    if (result.kind === 'value') return equalBytes(result.value, revealed) ? null : `the value inside the layers is not the one revealed`;
    layer = result.layer;
  }
}
