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
 * sealed to each member under a key derived from e·A_i, the depth and the member (A_i the member's fairtable
 * key, e the onion's one ephemeral Ed25519 key). A member peels by publishing a·E once, with a
 * Chaum–Pedersen proof (dleq.ts): anyone then opens every box of that member, layer after layer as each
 * becomes public, or sees that the owner sealed garbage — the owner is named on that evidence, and a member
 * who publishes a wrong value is named instead. One ephemeral key serves every layer: a member's value opens
 * its boxes of the inner layers early, but those are inside the outer ones and public no sooner. The
 * ephemeral key signs the onion's context: proof that the owner knows e, so nobody can copy another box's
 * ephemeral into an onion and have a member publish the shared value of that other box.
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
import { answersKept } from './kept.js';

/** One layer: who can open it, the content key sealed to each, its hash, and the inside. */
export interface Layer {
  readonly to: readonly string[];
  /** The content key sealed to each member of `to`, in order (ChaCha20-Poly1305, zero nonce: each key once). */
  readonly boxes: readonly string[];
  /** H("layer-key", content key): the one key that opens `body`. */
  readonly keyHash: string;
  /** The inside, encrypted under the content key: the next layer (`encodeLayer`), or at the core the value. */
  readonly body: string;
}

/** What an owner publishes with its commitment: the ephemeral key, its proof, and the outer layer. */
export interface OnionHead {
  /** E = e·G, the onion's ephemeral Ed25519 public key (hex). */
  readonly ephemeral: string;
  /** The ephemeral key's Ed25519 signature over the onion's context (`placeOf`). */
  readonly pok: string;
  readonly layer: Layer;
}

export interface LayerPlan {
  /** The pairs, outermost first. */
  readonly layers: readonly (readonly [string, string])[];
  /** Who can open the core (M itself). */
  readonly core: readonly string[];
}

/** An owner's onion: the head (published with the commitment) and the ephemeral seed (kept until the reveal). */
export interface Onion {
  readonly head: OnionHead;
  readonly seed: string;
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
/** What a member's exchange is bound to: the onion's context and the member. */
export const exchangeContext = (context: string, member: string): string => `fairtable/layer/${context}/${member}`;
const placeOf = (context: string): Uint8Array => hashJson('escrow-onion', { context });
const boxKey = (shared: Uint8Array, context: string, depth: number, member: string): Uint8Array =>
  hkdf(sha256, shared, utf8('fairtable/layer-box/v1'), utf8(`${context}/${depth}/${member}`), 32);
const keyHashOf = (contentKey: Uint8Array): string => toHex(taggedHash('layer-key', contentKey));

export interface WrapOptions {
  /** Binds the onion to one game, owner and purpose (e.g. "beacon/<game>/3/p0"). */
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

/** Wraps `value` for the owner's `others` by the layer plan: the head to publish and the seed to keep. */
export function wrap(value: Uint8Array, others: readonly string[], o: WrapOptions): Onion {
  const plan = layerPlan(others);
  const seed = o.random(32);
  const { scalar: e, pointBytes } = ed25519.utils.getExtendedPublicKey(seed);
  const shared: Record<string, Uint8Array> = {};
  for (const p of others) {
    const key = o.keys[p];
    if (key === undefined) throw new FairtableError('bad_input', `layers: no key for ${p}`, { field: 'keys' });
    shared[p] = keyPoint(key).multiply(e).toBytes();
  }
  const seal = (depth: number, to: readonly string[], inside: Uint8Array): Layer => {
    const contentKey = o.random(32);
    const faulty = o.fault?.depth === depth;
    const boxes = to.map((p, i) => {
      const k = faulty && o.fault?.what === 'box' && i === 0 ? o.random(32) : boxKey(shared[p]!, o.context, depth, p);
      return toHex(chacha20poly1305(k, ZERO_NONCE).encrypt(contentKey));
    });
    const bodyKey = faulty && o.fault?.what === 'body' ? o.random(32) : contentKey;
    return { to: [...to], boxes, keyHash: keyHashOf(contentKey), body: toHex(chacha20poly1305(bodyKey, ZERO_NONCE).encrypt(inside)) };
  };
  let layer = seal(plan.layers.length, plan.core, value);
  for (let d = plan.layers.length - 1; d >= 0; d--) layer = seal(d, plan.layers[d]!, encodeLayer(layer));
  const head = { ephemeral: toHex(pointBytes), pok: toHex(ed25519.sign(placeOf(o.context), seed)), layer };
  return { head, seed: toHex(seed) };
}

/** Why `value` is not a well-formed layer for `to` at `depth`, or null. */
function layerProblem(value: unknown, depth: number, to: readonly string[]): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return `layer ${depth} is not an object`;
  const l = value as Partial<Record<keyof Layer, unknown>>;
  if (!Array.isArray(l.to) || canonicalize(l.to) !== canonicalize(to))
    return `layer ${depth} is sealed to ${canonicalize(l.to ?? null)}, the plan says ${canonicalize(to)}`;
  if (!isHex(l.keyHash, 32) || typeof l.body !== 'string' || !/^(?:[0-9a-f]{2})+$/.test(l.body)) return `layer ${depth} lacks a key hash or a body`;
  if (!Array.isArray(l.boxes) || l.boxes.length !== to.length || !l.boxes.every((b) => isHex(b, 48)))
    return `layer ${depth} does not seal one key box per member`;
  return null;
}

const headsChecked = answersKept<string | null>(512);
/** Why a published head cannot be used (checked by everyone as the commit arrives), or null. */
export const headProblem = (value: unknown, plan: LayerPlan, context: string): string | null =>
  headsChecked([value, plan, context], () => headProblemOf(value, plan, context));

function headProblemOf(value: unknown, plan: LayerPlan, context: string): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'the onion is not an object';
  const h = value as Partial<Record<keyof OnionHead, unknown>>;
  if (!isHex(h.ephemeral, 32) || !isHex(h.pok, 64)) return "the onion lacks its ephemeral key or the key's proof";
  try {
    const E = ed25519.Point.fromHex(h.ephemeral);
    if (!E.isTorsionFree() || E.equals(ed25519.Point.ZERO)) return "the onion's ephemeral key is not a point of the prime-order group";
  } catch {
    return "the onion's ephemeral key is not a point";
  }
  if (!ed25519.verify(fromHex(h.pok, 'pok', 64), placeOf(context), fromHex(h.ephemeral, 'ephemeral', 32), { zip215: false }))
    return "the onion's ephemeral key does not sign its context: nobody may be asked to exchange with it";
  return layerProblem(h.layer, 0, membersAt(plan, 0));
}

/** What opening a layer with one member's shared value shows. */
export type LayerResult =
  /** The layer does not open or holds garbage: the owner's fault. */
  | { readonly kind: 'fault'; readonly why: string; readonly box: boolean }
  | { readonly kind: 'layer'; readonly layer: Layer }
  | { readonly kind: 'value'; readonly value: Uint8Array };

function openLayer(layer: Layer, depth: number, plan: LayerPlan, member: string, shared: Uint8Array, context: string): LayerResult {
  const i = layer.to.indexOf(member);
  let contentKey: Uint8Array;
  try {
    contentKey = chacha20poly1305(boxKey(shared, context, depth, member), ZERO_NONCE).decrypt(fromHex(layer.boxes[i]!, 'box'));
  } catch {
    return { kind: 'fault', why: `${member}'s key box of layer ${depth} does not open with the shared value a·E`, box: true };
  }
  if (keyHashOf(contentKey) !== layer.keyHash)
    return { kind: 'fault', why: `${member}'s key box of layer ${depth} holds a key that does not match the layer's key hash`, box: true };
  let inside: Uint8Array;
  try {
    inside = chacha20poly1305(contentKey, ZERO_NONCE).decrypt(fromHex(layer.body, 'body'));
  } catch {
    return { kind: 'fault', why: `layer ${depth}'s body does not open with the key its hash names`, box: false };
  }
  if (depth === plan.layers.length) return { kind: 'value', value: inside };
  const next = decodeLayer(inside);
  const problem = next === null ? 'no layer' : layerProblem(next, depth + 1, membersAt(plan, depth + 1));
  return problem === null ? { kind: 'layer', layer: next as Layer } : { kind: 'fault', why: `layer ${depth} holds a bad layer: ${problem}`, box: false };
}

/**
 * The peeling of one withheld onion, as machine state (plain data): the layer public now, every member's
 * proven exchange so far (with the log line that published it), the members asked and not yet answered,
 * and the outcome. The machine asks, waits, names; `peelOn` does the rest.
 */
export interface Peel {
  depth: number;
  layer: Layer;
  shared: Record<string, { readonly value: string; readonly line: number }>;
  waiting: string[];
  /** The core's bytes, once opened. */
  value: string | null;
  shut: boolean;
  /** The owner's faults shown so far, each with the line of the exchange that shows it. */
  faults: { readonly why: string; readonly line: number }[];
}

export const startPeel = (head: OnionHead): Peel => ({ depth: 0, layer: head.layer, shared: {}, waiting: [], value: null, shut: false, faults: [] });

/** A member's published exchange: recorded when its proof holds (true), refused otherwise (false: the member's fault). */
export function recordExchange(p: Peel, head: OnionHead, member: string, memberKey: string, x: Exchange, context: string, line: number): boolean {
  p.waiting = p.waiting.filter((m) => m !== member);
  if (!exchangeValid(head.ephemeral, memberKey, x, exchangeContext(context, member))) return false;
  p.shared[member] = { value: x.shared, line };
  return true;
}

/**
 * Opens every layer the exchanges published so far open, then says whom to ask: the members of the layer
 * now public who have published nothing and are `able` (still in the game, not named for refusing). New
 * faults of the owner are appended to `p.faults`. The onion is shut when nobody able is left to open it,
 * or when its garbage is the same for every member (a body or an inner layer). Returns the members to ask.
 */
export function peelOn(p: Peel, plan: LayerPlan, context: string, able: (member: string) => boolean): string[] {
  while (!p.shut && p.value === null) {
    let opened: LayerResult | null = null;
    for (const m of p.layer.to) {
      const x = p.shared[m];
      if (x === undefined) continue;
      const r = openLayer(p.layer, p.depth, plan, m, fromHex(x.value, 'shared', 32), context);
      if (r.kind !== 'fault') {
        opened = r;
        break;
      }
      if (!p.faults.some((f) => f.why === r.why)) p.faults.push({ why: r.why, line: x.line });
      if (!r.box) {
        p.shut = true;
        return [];
      }
    }
    if (opened?.kind === 'value') p.value = toHex(opened.value);
    else if (opened?.kind === 'layer') {
      p.depth++;
      p.layer = opened.layer;
      p.waiting = [];
    } else {
      if (p.waiting.length > 0) return p.waiting;
      const ask = p.layer.to.filter((m) => p.shared[m] === undefined && able(m));
      if (ask.length === 0) p.shut = true;
      p.waiting = ask;
      return ask;
    }
  }
  return [];
}

const onionsChecked = answersKept<string | null>(512);
/**
 * The seed's background check, from the seed the owner publishes with its reveal, on a head that passed
 * `headProblem`: the seed is the ephemeral key's, every member's box of every layer gives the layer's key,
 * every body opens, down to the core, which must be `revealed`. Null when all is well, else the owner's fault.
 */
export const onionProblem: typeof onionProblemOf = (head, seedHex, others, keys, context, revealed) =>
  onionsChecked([head, seedHex, others, keys, context, toHex(revealed)], () => onionProblemOf(head, seedHex, others, keys, context, revealed));

function onionProblemOf(
  head: OnionHead,
  seedHex: unknown,
  others: readonly string[],
  keys: Readonly<Record<string, string>>,
  context: string,
  revealed: Uint8Array,
): string | null {
  const plan = layerPlan(others);
  if (!isHex(seedHex, 32)) return 'the reveal carries no seed for its onion';
  const seed = fromHex(seedHex, 'seed', 32);
  const { scalar: e, pointBytes } = ed25519.utils.getExtendedPublicKey(seed);
  // The head passed `headProblem` at commit (its proof verified against E): the seed need only be E's.
  if (toHex(pointBytes) !== head.ephemeral) return "the seed is not the onion's ephemeral key";
  const shared: Record<string, Uint8Array> = {};
  for (const m of others) {
    const key = keys[m];
    if (key === undefined) return `the onion is sealed to ${m}, who has no key`;
    shared[m] = keyPoint(key).multiplyUnsafe(e).toBytes();
  }
  let layer = head.layer;
  for (let depth = 0; ; depth++) {
    let result: LayerResult | null = null;
    // Every member's box must give the layer's key; the body is opened once.
    for (const m of layer.to) {
      const r: LayerResult | null = result === null ? openLayer(layer, depth, plan, m, shared[m]!, context) : boxOpens(layer, depth, m, shared[m]!, context);
      if (r !== null && r.kind === 'fault') return r.why;
      if (result === null) result = r;
    }
    if (result === null) return `layer ${depth} has no member`;
    if (result.kind === 'value') return equalBytes(result.value, revealed) ? null : 'the value inside the layers is not the one revealed';
    layer = result.layer;
  }
}

function boxOpens(layer: Layer, depth: number, member: string, shared: Uint8Array, context: string): LayerResult | null {
  try {
    const k = chacha20poly1305(boxKey(shared, context, depth, member), ZERO_NONCE).decrypt(fromHex(layer.boxes[layer.to.indexOf(member)]!, 'box'));
    if (keyHashOf(k) === layer.keyHash) return null;
  } catch {
    // Falls through to the fault below.
  }
  return { kind: 'fault', why: `${member}'s key box of layer ${depth} does not give the layer's key`, box: true };
}
