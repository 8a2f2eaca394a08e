/** Seed 003's layered encryption (docs/spec/escrow.md §3): the plan, peeling when the owner refuses, the background check. */
import { describe, expect, it } from 'vitest';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { RandomStream } from '../stream.js';
import { toHex, utf8 } from '../bytes.js';
import { insideIs, layerKey, layerPlan, layerSigned, peel, wrap, type Layer } from './layers.js';

const rng = (seed: number) => {
  const s = new RandomStream(new Uint8Array(32).fill(seed), 'test');
  return (n: number) => s.bytes(n);
};

const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
const keys: Record<string, KeyPair> = Object.fromEntries(names.map((n, i) => [n, generateKeyPair(new Uint8Array(32).fill(100 + i))]));
const publicKeys = Object.fromEntries(names.map((n) => [n, keys[n]!.publicKey]));
const others = names.slice(1);
const context = 'game 00…/beacon/1/A';

describe('the layer plan', () => {
  it("seed 003's seven players: B or G outermost, the ring inwards, the core to B, C, D and E (vector)", () => {
    expect(layerPlan(others)).toEqual({
      layers: [
        ['B', 'G'],
        ['B', 'C'],
        ['C', 'D'],
        ['D', 'E'],
        ['E', 'F'],
        ['F', 'G'],
      ],
      core: ['B', 'C', 'D', 'E'],
    });
  });
  it('small tables: one other (no layers), two others (one pair; both can open the core)', () => {
    expect(layerPlan(['B'])).toEqual({ layers: [], core: ['B'] });
    expect(layerPlan(['B', 'C'])).toEqual({ layers: [['B', 'C']], core: ['B', 'C'] });
    expect(layerPlan(['B', 'C', 'D'])).toEqual({
      layers: [
        ['B', 'D'],
        ['B', 'C'],
        ['C', 'D'],
      ],
      core: ['B'],
    });
    expect(() => layerPlan([])).toThrow(/at least one/);
    expect(() => layerPlan(['B', 'B'])).toThrow(/once/);
  });
});

/** Peels every layer, each by the first member of its pair in `order` that is willing. */
function peelAll(outer: Layer, willing: (p: string) => boolean): { value: Uint8Array; peelers: string[] } | null {
  const coreDepth = layerPlan(others).layers.length;
  let layer = outer;
  const peelers: string[] = [];
  for (;;) {
    const who = layer.to.find(willing);
    if (who === undefined) return null;
    peelers.push(who);
    const r = peel(layer, layerKey(layer, who, keys[who]!.secretKey, context), context, publicKeys.A!, coreDepth);
    if ('value' in r) return { value: r.value, peelers };
    layer = r.layer;
  }
}

describe('wrapping, peeling and the background check', () => {
  const M = utf8('{"nonce":"5f…","value":"4"}');
  const outer = wrap(M, others, { context, ownerSecretKey: keys.A!.secretKey, keys: publicKeys, random: rng(7) });

  it('every layer is signed by A; the others peel it to M when A refuses, whoever of each pair refuses too', () => {
    expect(layerSigned(outer, context, publicKeys.A!)).toBe(true);
    expect(layerSigned(outer, context, publicKeys.B!)).toBe(false);
    const all = peelAll(outer, () => true)!;
    expect(toHex(all.value)).toBe(toHex(M));
    expect(all.peelers).toEqual(['B', 'B', 'C', 'D', 'E', 'F', 'B']);
    // Any single refuser is routed around: each layer has a second member.
    for (const refuser of others) expect(toHex(peelAll(outer, (p) => p !== refuser)!.value)).toBe(toHex(M));
    // A colluding pair blocks its layer: the scheme has no threshold.
    expect(peelAll(outer, (p) => p !== 'C' && p !== 'D')).toBeNull();
  });

  it("only the layer's pair can open it; F and G cannot open the core", () => {
    expect(() => layerKey(outer, 'C', keys.C!.secretKey, context)).toThrow(/cannot open/);
    expect(() => layerKey(outer, 'B', keys.G!.secretKey, context)).toThrow(/does not open/);
    let layer = outer;
    for (let d = 0; d < 6; d++) {
      const r = peel(layer, layerKey(layer, layer.to[0]!, keys[layer.to[0]!]!.secretKey, context), context, publicKeys.A!, 6);
      layer = (r as { layer: Layer }).layer;
    }
    expect(layer.to).toEqual(['B', 'C', 'D', 'E']);
    expect(() => layerKey(layer, 'F', keys.F!.secretKey, context)).toThrow(/cannot open/);
  });

  it('the background check: the revealed M is the one inside, a different M is caught', () => {
    const open = (l: Layer): string => layerKey(l, l.to[0]!, keys[l.to[0]!]!.secretKey, context);
    expect(insideIs(outer, M, others, context, publicKeys.A!, open)).toBe(true);
    expect(insideIs(outer, utf8('{"nonce":"5f…","value":"5"}'), others, context, publicKeys.A!, open)).toBe(false);
  });

  it('a peeler who publishes a wrong key, or a layer not signed by A, is caught', () => {
    expect(() => peel(outer, '00'.repeat(32), context, publicKeys.A!, 6)).toThrow(/does not open/);
    const forged = { ...outer, body: outer.body.slice(0, -2) + (outer.body.endsWith('00') ? '01' : '00') };
    expect(() => peel(forged, layerKey(outer, 'B', keys.B!.secretKey, context), context, publicKeys.A!, 6)).toThrow(/not signed/);
    expect(() => peel(outer, layerKey(outer, 'B', keys.B!.secretKey, context), 'another game', publicKeys.A!, 6)).toThrow(/not signed/);
  });
});
