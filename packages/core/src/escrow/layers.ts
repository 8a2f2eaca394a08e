/**
 * Seed 003's layered encryption (docs/spec/escrow.md §3): the owner's value M encrypted to a core group of
 * the other players, then wrapped layer by layer, each layer openable by either of a pair and signed by the
 * owner, so that the others can peel it to M if the owner refuses to reveal, and anyone can check that a
 * revealed M is the one inside (the seed's background check).
 *
 * "Encrypt to a set" is one layer any member can open: a fresh 32-byte content key encrypts the layer's
 * plaintext with ChaCha20-Poly1305 (a zero nonce: each key is used once), and the content key is sealed to
 * each member exactly as an escrow share is (vss.ts: X25519 from the member's fairtable key, HKDF-SHA-256
 * bound to the context, the depth and the member, ChaCha20-Poly1305). A peeler publishes the content key;
 * anyone then decrypts the layer and checks the owner's signature on what is inside.
 *
 * The layer plan for the others o1..om (in the setup's order) walks their ring: outermost (o1, om), then
 * (o1, o2), (o2, o3), …, (om−1, om) innermost; the core goes to every other player but the innermost pair,
 * who thus cannot read M and so cannot pretend the last layer was corrupt. Seed 003's seven players fit it
 * with one more layer (C or D) than the seed lists.
 */
import { chacha20poly1305 } from '@noble/ciphers/chacha.js';
import { fromHex, fromUtf8, toHex, utf8 } from '../bytes.js';
import { FairtableError } from '../errors.js';
import { hashJson } from '../hash.js';
import { sign, verify } from '../identity.js';
import { openShare, sealShare } from './vss.js';

/** One layer: who can open it, the content key sealed to each, the encrypted inside, and the owner's signature. */
export interface Layer {
  readonly depth: number;
  readonly to: readonly string[];
  readonly keys: readonly { readonly ephemeral: string; readonly box: string }[];
  readonly body: string;
  readonly sig: string;
}

export interface LayerPlan {
  /** The pairs, outermost first. */
  readonly layers: readonly (readonly [string, string])[];
  /** Who can open the core (M itself). */
  readonly core: readonly string[];
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

const ZERO_NONCE = new Uint8Array(12);
const keyContext = (context: string, depth: number, member: string): string => `fairtable/layer/${context}/${depth}/${member}`;
const signedPart = (context: string, l: Omit<Layer, 'sig'>): Uint8Array =>
  hashJson('escrow-layer', { context, depth: l.depth, to: l.to, keys: l.keys, body: l.body });

function seal(depth: number, to: readonly string[], inside: Uint8Array, o: WrapOptions): Layer {
  const contentKey = o.random(32);
  const keys = to.map((p) => {
    const key = o.keys[p];
    if (key === undefined) throw new FairtableError('bad_input', `layers: no key for ${p}`, { field: 'keys' });
    return sealShare(toHex(contentKey), key, keyContext(o.context, depth, p), o.random);
  });
  const body = toHex(chacha20poly1305(contentKey, ZERO_NONCE).encrypt(inside));
  const unsigned = { depth, to: [...to], keys, body };
  return { ...unsigned, sig: toHex(sign(signedPart(o.context, unsigned), o.ownerSecretKey)) };
}

export interface WrapOptions {
  /** Binds the layers to one game, owner and purpose (e.g. "<game>/beacon/3/p0"). */
  readonly context: string;
  readonly ownerSecretKey: Uint8Array;
  /** Every other player's fairtable (Ed25519) public key. */
  readonly keys: Readonly<Record<string, Uint8Array>>;
  readonly random: (n: number) => Uint8Array;
}

/** Wraps `value` for the owner's `others` by the layer plan; returns the outermost layer (depth 0). */
export function wrap(value: Uint8Array, others: readonly string[], o: WrapOptions): Layer {
  const plan = layerPlan(others);
  const coreDepth = plan.layers.length;
  let layer = seal(coreDepth, plan.core, value, o);
  for (let d = coreDepth - 1; d >= 0; d--) layer = seal(d, plan.layers[d]!, utf8(JSON.stringify(layer)), o);
  return layer;
}

/** Whether the owner signed `layer` for `context` (anyone can check every layer it is shown). */
export function layerSigned(layer: Layer, context: string, ownerPublicKey: Uint8Array): boolean {
  try {
    const { sig, ...unsigned } = layer;
    return verify(fromHex(sig, 'sig', 64), signedPart(context, unsigned), ownerPublicKey);
  } catch {
    return false;
  }
}

/** A member of `layer.to` recovers the content key it publishes so that anyone can peel the layer. */
export function layerKey(layer: Layer, member: string, secretKey: Uint8Array, context: string): string {
  const i = layer.to.indexOf(member);
  if (i < 0) throw new FairtableError('bad_input', `layers: ${member} cannot open layer ${layer.depth}`, { field: 'member' });
  return openShare(layer.keys[i]!, secretKey, keyContext(context, layer.depth, member));
}

/**
 * Anyone, given a published content key: the layer inside (checked as the owner's, one deeper), or at the
 * core, the value. Throws `bad_share` when the key does not open the layer or the inside is not the owner's.
 */
export function peel(
  layer: Layer,
  contentKey: string,
  context: string,
  ownerPublicKey: Uint8Array,
  coreDepth: number,
): { readonly layer: Layer } | { readonly value: Uint8Array } {
  if (!layerSigned(layer, context, ownerPublicKey))
    throw new FairtableError('bad_share', `layer ${layer.depth} is not signed by its owner`, { field: 'layer' });
  let inside: Uint8Array;
  try {
    inside = chacha20poly1305(fromHex(contentKey, 'key', 32), ZERO_NONCE).decrypt(fromHex(layer.body, 'body'));
  } catch (cause) {
    throw new FairtableError('bad_share', `the published key does not open layer ${layer.depth}`, { field: 'key', cause });
  }
  if (layer.depth === coreDepth) return { value: inside };
  let next: Layer;
  try {
    next = JSON.parse(fromUtf8(inside)) as Layer;
  } catch (cause) {
    throw new FairtableError('bad_share', `layer ${layer.depth} holds no layer`, { field: 'layer', cause });
  }
  if (next.depth !== layer.depth + 1 || !layerSigned(next, context, ownerPublicKey)) {
    throw new FairtableError('bad_share', `layer ${layer.depth} holds a layer its owner did not sign at depth ${layer.depth + 1}`, { field: 'layer' });
  }
  return { layer: next };
}

/**
 * The seed's background check: peels every layer with the members' help (`open(layer)` gives the content
 * key a member publishes) and says whether the value inside is the one the owner revealed.
 */
export function insideIs(
  outer: Layer,
  revealed: Uint8Array,
  others: readonly string[],
  context: string,
  ownerPublicKey: Uint8Array,
  open: (layer: Layer) => string,
): boolean {
  const coreDepth = layerPlan(others).layers.length;
  let layer = outer;
  if (layer.depth !== 0) return false;
  for (;;) {
    const r = peel(layer, open(layer), context, ownerPublicKey, coreDepth);
    if ('value' in r) return toHex(r.value) === toHex(revealed);
    layer = r.layer;
  }
}
