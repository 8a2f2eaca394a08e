/** Seed 003's layered encryption (docs/spec/escrow.md §3): the plan, peeling with proven exchanges when the owner refuses, the background check. */
import { describe, expect, it } from 'vitest';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { RandomStream } from '../stream.js';
import { toHex, utf8 } from '../bytes.js';
import { judgePeel, layerPlan, layerProblem, membersAt, onionProblem, wrap, exchangeContext, type Layer, type WrapOptions } from './layers.js';
import { exchange, exchangeValid } from './dleq.js';

const rng = (seed: number) => {
  const s = new RandomStream(new Uint8Array(32).fill(seed), 'test');
  return (n: number) => s.bytes(n);
};

const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G'];
const keys: Record<string, KeyPair> = Object.fromEntries(names.map((n, i) => [n, generateKeyPair(new Uint8Array(32).fill(100 + i))]));
const publicKeys: Record<string, string> = Object.fromEntries(names.map((n) => [n, toHex(keys[n]!.publicKey)]));
const others = names.slice(1);
const context = 'beacon/game00/1/A';
const plan = layerPlan(others);
const opts = (seed: number, fault?: WrapOptions['fault']): WrapOptions => ({ context, keys: publicKeys, random: rng(seed), ...(fault === undefined ? {} : { fault }) });

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

/** Peels every layer, each by the first member of its pair that is willing, through published exchanges. */
function peelAll(outer: Layer, willing: (p: string) => boolean): { value: Uint8Array; peelers: string[] } | { fault: string; by: string } | null {
  let layer = outer;
  const peelers: string[] = [];
  for (let depth = 0; ; depth++) {
    const who = layer.to.find(willing);
    if (who === undefined) return null;
    peelers.push(who);
    const x = exchange(layer.ephemeral, keys[who]!.secretKey, exchangeContext(context, depth, who));
    const r = judgePeel(layer, depth, plan, who, publicKeys[who]!, x, context);
    if (r.kind === 'value') return { value: r.value, peelers };
    if (r.kind === 'fault') return { fault: r.why, by: who };
    if (r.kind === 'bad-exchange') throw new Error('an honest exchange was refused');
    layer = r.layer;
  }
}

describe('wrapping, peeling and the background check', () => {
  const M = utf8('{"nonce":"5f","value":"4"}');
  const onion = wrap(M, others, opts(7));
  const outer = onion.outer;

  it('the outer layer is well formed for its pair, and its ephemeral key signs its place', () => {
    expect(layerProblem(outer, 0, ['B', 'G'], context)).toBeNull();
    expect(layerProblem(outer, 0, ['B', 'C'], context)).toMatch(/plan says/);
    expect(layerProblem(outer, 0, ['B', 'G'], 'another game')).toMatch(/does not sign its place/);
    expect(layerProblem({ ...outer, boxes: [outer.boxes[0]!] }, 0, ['B', 'G'], context)).toMatch(/one key box per member/);
    expect(onion.seeds).toHaveLength(7);
  });

  it('the others peel it to M when A refuses, whoever of each pair refuses too', () => {
    const all = peelAll(outer, () => true) as { value: Uint8Array; peelers: string[] };
    expect(toHex(all.value)).toBe(toHex(M));
    expect(all.peelers).toEqual(['B', 'B', 'C', 'D', 'E', 'F', 'B']);
    for (const refuser of others) expect(toHex((peelAll(outer, (p) => p !== refuser) as { value: Uint8Array }).value)).toBe(toHex(M));
    // A colluding pair blocks its layer: the scheme has no threshold.
    expect(peelAll(outer, (p) => p !== 'C' && p !== 'D')).toBeNull();
    // The innermost pair cannot read the core.
    expect(membersAt(plan, 6)).toEqual(['B', 'C', 'D', 'E']);
  });

  it('a wrong exchange, or one by a player not in the layer, is the publisher\'s fault', () => {
    const x = exchange(outer.ephemeral, keys.C!.secretKey, exchangeContext(context, 0, 'C'));
    expect(judgePeel(outer, 0, plan, 'C', publicKeys.C!, x, context).kind).toBe('bad-exchange');
    const g = exchange(outer.ephemeral, keys.G!.secretKey, exchangeContext(context, 0, 'G'));
    // G's value with B's name, and a proof made for another layer.
    expect(judgePeel(outer, 0, plan, 'B', publicKeys.B!, g, context).kind).toBe('bad-exchange');
    expect(exchangeValid(outer.ephemeral, publicKeys.G!, g, exchangeContext(context, 1, 'G'))).toBe(false);
    expect(exchangeValid(outer.ephemeral, publicKeys.G!, g, exchangeContext(context, 0, 'G'))).toBe(true);
    const flipped = { ...g, proof: (g.proof[0] === '0' ? '1' : '0') + g.proof.slice(1) };
    expect(exchangeValid(outer.ephemeral, publicKeys.G!, flipped, exchangeContext(context, 0, 'G'))).toBe(false);
  });

  it("garbage in a member's box of an inner layer: the proven exchange names the owner; the other member still peels", () => {
    const bad = wrap(M, others, opts(8, { depth: 1, what: 'box' })).outer;
    const r = peelAll(bad, () => true) as { fault: string; by: string };
    expect(r.by).toBe('B');
    expect(r.fault).toMatch(/B's key box of layer 1 does not open/);
    // B's partner in layer 1 is C: it opens the layer, and the peel goes on to M.
    const viaC = peelAll(bad, (p) => p !== 'B');
    expect(toHex((viaC as { value: Uint8Array }).value)).toBe(toHex(M));
  });

  it('garbage body in an inner layer: whoever peels it shows the owner at fault, and the value is lost', () => {
    const bad = wrap(M, others, opts(9, { depth: 2, what: 'body' })).outer;
    expect((peelAll(bad, () => true) as { fault: string }).fault).toMatch(/layer 2's body does not open/);
    expect((peelAll(bad, (p) => p !== 'C') as { fault: string }).fault).toMatch(/layer 2's body does not open/);
  });

  it('the background check: the seeds show every layer, and the revealed M is the one inside', () => {
    expect(onionProblem(outer, onion.seeds, others, publicKeys, context, M)).toBeNull();
    expect(onionProblem(outer, onion.seeds, others, publicKeys, context, utf8('{"nonce":"5f","value":"5"}'))).toMatch(/not the one revealed/);
    expect(onionProblem(outer, onion.seeds.slice(1), others, publicKeys, context, M)).toMatch(/seeds/);
    expect(onionProblem(outer, [...onion.seeds].reverse(), others, publicKeys, context, M)).toMatch(/seed 0/);
    const badBox = wrap(M, others, opts(8, { depth: 3, what: 'box' }));
    expect(onionProblem(badBox.outer, badBox.seeds, others, publicKeys, context, M)).toMatch(/D's key box of layer 3/);
    const badBody = wrap(M, others, opts(9, { depth: 6, what: 'body' }));
    expect(onionProblem(badBody.outer, badBody.seeds, others, publicKeys, context, M)).toMatch(/layer 6's body/);
  });

  it('small tables: one other opens the core alone; two others share one layer and the core', () => {
    for (const few of [['B'], ['B', 'C']]) {
      const o = wrap(M, few, opts(10));
      expect(onionProblem(o.outer, o.seeds, few, publicKeys, context, M)).toBeNull();
      expect(o.seeds).toHaveLength(few.length);
    }
  });
});
