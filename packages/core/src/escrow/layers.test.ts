/** Seed 003's layered encryption (docs/spec/escrow.md §3): the plan, peeling with proven exchanges when the owner refuses, the background check. */
import { describe, expect, it } from 'vitest';
import { generateKeyPair, type KeyPair } from '../identity.js';
import { RandomStream } from '../stream.js';
import { toHex, utf8 } from '../bytes.js';
import {
  decodeLayer,
  encodeLayer,
  exchangeContext,
  headProblem,
  layerPlan,
  membersAt,
  onionProblem,
  peelOn,
  recordExchange,
  startPeel,
  wrap,
  type OnionHead,
  type WrapOptions,
} from './layers.js';
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
const opts = (seed: number, fault?: WrapOptions['fault']): WrapOptions => ({
  context,
  keys: publicKeys,
  random: rng(seed),
  ...(fault === undefined ? {} : { fault }),
});

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

/**
 * Peels a withheld onion as a machine does: whoever is asked and `willing` publishes its proven exchange,
 * the others are passed over; returns the value, or the owner's faults when it cannot be opened.
 */
function peelAll(head: OnionHead, willing: (p: string) => boolean) {
  const p = startPeel(head);
  const asked: string[] = [];
  const refused = new Set<string>();
  for (let line = 1; ; line++) {
    const ask = peelOn(p, plan, context, (m) => !refused.has(m));
    if (ask.length === 0) break;
    for (const m of ask) {
      asked.push(m);
      if (!willing(m)) {
        refused.add(m);
        p.waiting = p.waiting.filter((x) => x !== m);
        continue;
      }
      expect(recordExchange(p, head, m, publicKeys[m]!, exchange(head.ephemeral, keys[m]!.secretKey, exchangeContext(context, m)), context, line)).toBe(true);
    }
  }
  return { value: p.value, faults: p.faults.map((f) => f.why), asked, shut: p.shut };
}

describe('wrapping, peeling and the background check', () => {
  const M = utf8('{"nonce":"5f","value":"4"}');
  const onion = wrap(M, others, opts(7));
  const head = onion.head;

  it("the head is well formed, and its ephemeral key signs the onion's context", () => {
    expect(headProblem(head, plan, context)).toBeNull();
    expect(headProblem(head, layerPlan(['B', 'C', 'D', 'E', 'G', 'F']), context)).toMatch(/plan says/);
    expect(headProblem(head, plan, 'another game')).toMatch(/does not sign its context/);
    expect(headProblem({ ...head, layer: { ...head.layer, boxes: [head.layer.boxes[0]!] } }, plan, context)).toMatch(/one key box per member/);
    expect(headProblem({ ...head, ephemeral: '00'.repeat(32) }, plan, context)).toMatch(/ephemeral key/);
    // An inner layer inside its parent: a constant added per layer, not a doubling.
    expect(decodeLayer(encodeLayer(head.layer))).toEqual(head.layer);
    expect(decodeLayer(new Uint8Array([0, 0, 0, 9, 1]))).toBeNull();
    expect(JSON.stringify(head).length).toBeLessThan(6000);
  });

  it('the others peel it to M when A refuses, each member publishing one exchange for every layer it is in', () => {
    const all = peelAll(head, () => true);
    expect(all.value).toBe(toHex(M));
    // B and G open the outer layer; B's exchange opens B|C too; C and D are asked for C|D, and so on round the ring.
    expect(all.asked).toEqual(['B', 'G', 'C', 'D', 'E', 'F']);
    for (const refuser of others) expect(peelAll(head, (p) => p !== refuser).value).toBe(toHex(M));
    // A colluding pair blocks its layer: the scheme has no threshold.
    const blocked = peelAll(head, (p) => p !== 'C' && p !== 'D');
    expect([blocked.value, blocked.shut]).toEqual([null, true]);
    // The innermost pair cannot read the core.
    expect(membersAt(plan, 6)).toEqual(['B', 'C', 'D', 'E']);
  });

  it("a wrong exchange, or another member's, is refused: the publisher's fault", () => {
    const p = startPeel(head);
    const g = exchange(head.ephemeral, keys.G!.secretKey, exchangeContext(context, 'G'));
    expect(recordExchange(p, head, 'B', publicKeys.B!, g, context, 1)).toBe(false);
    expect(exchangeValid(head.ephemeral, publicKeys.G!, g, exchangeContext(context, 'B'))).toBe(false);
    expect(exchangeValid(head.ephemeral, publicKeys.G!, g, exchangeContext(context, 'G'))).toBe(true);
    const flipped = { ...g, proof: (g.proof[0] === '0' ? '1' : '0') + g.proof.slice(1) };
    expect(exchangeValid(head.ephemeral, publicKeys.G!, flipped, exchangeContext(context, 'G'))).toBe(false);
    expect(recordExchange(p, head, 'G', publicKeys.G!, g, context, 2)).toBe(true);
  });

  it("garbage in a member's box of an inner layer: the proven exchange shows the owner's fault; the other member still peels", () => {
    const bad = wrap(M, others, opts(8, { depth: 1, what: 'box' })).head;
    const r = peelAll(bad, () => true);
    expect(r.faults).toEqual(["B's key box of layer 1 does not open with the shared value a·E"]);
    expect(r.value).toBe(toHex(M));
    expect(r.asked).toContain('C');
  });

  it('garbage body in an inner layer: the first exchange shows the owner at fault, and the value is lost', () => {
    const bad = wrap(M, others, opts(9, { depth: 2, what: 'body' })).head;
    const r = peelAll(bad, () => true);
    expect(r.faults).toEqual(["layer 2's body does not open with the key its hash names"]);
    expect([r.value, r.shut]).toEqual([null, true]);
  });

  it('the background check: the seed shows every layer, and the revealed M is the one inside', () => {
    expect(onionProblem(head, onion.seed, others, publicKeys, context, M)).toBeNull();
    expect(onionProblem(head, onion.seed, others, publicKeys, context, utf8('{"nonce":"5f","value":"5"}'))).toMatch(/not the one revealed/);
    expect(onionProblem(head, undefined, others, publicKeys, context, M)).toMatch(/no seed/);
    expect(onionProblem(head, '11'.repeat(32), others, publicKeys, context, M)).toMatch(/not the onion's ephemeral key/);
    const badBox = wrap(M, others, opts(8, { depth: 3, what: 'box' }));
    expect(onionProblem(badBox.head, badBox.seed, others, publicKeys, context, M)).toMatch(/D's key box of layer 3/);
    const badBody = wrap(M, others, opts(9, { depth: 6, what: 'body' }));
    expect(onionProblem(badBody.head, badBody.seed, others, publicKeys, context, M)).toMatch(/layer 6's body/);
  });

  it('small tables: one other opens the core alone; two others share one layer and the core', () => {
    for (const few of [['B'], ['B', 'C']]) {
      const o = wrap(M, few, opts(10));
      expect(onionProblem(o.head, o.seed, few, publicKeys, context, M)).toBeNull();
    }
  });
});
