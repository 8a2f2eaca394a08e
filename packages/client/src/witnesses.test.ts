/**
 * Publishing to witnesses (docs/spec/relay.md §8): a witness that says the client is over its rate (429) is asked
 * again, in order, and its receipt kept; a witness that is full (507) is given up and reported.
 */
import { describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { signWitnessReceipt } from '@fairtable/core/order/witness.js';
import { simulate } from '@fairtable/core/testing';
import type { EvidenceRecord } from '@fairtable/core/order/censorship.js';
import { lineHash } from './receipts.js';
import { WitnessPublisher } from './witnesses.js';

const witnessKey = generateKeyPair(new Uint8Array(32).fill(51));
const witness = { url: 'http://witness.example', key: toHex(witnessKey.publicKey) };
const game = simulate({ protocol: 'chain', players: 2, seed: new Uint8Array(32).fill(8), turns: 1 });
const gameId = (JSON.parse(game.lines[0]!) as { game: string }).game;

/** A witness answering each post from `statuses` in turn (a receipt with 200/201, a coded error otherwise). */
function fakeWitness(statuses: number[]) {
  const posts: string[] = [];
  const post = (_url: string, init: { body: string }) => {
    posts.push(init.body);
    const status = statuses.shift() ?? 201;
    const e = JSON.parse(init.body) as { from: string; seq: number };
    const body =
      status === 200 || status === 201
        ? { receipt: signWitnessReceipt({ v: 1, game: gameId, from: e.from, seq: e.seq, hash: lineHash(init.body)!, time: 1 }, witnessKey.secretKey) }
        : { error: { code: status === 429 ? 'rate_limited' : 'witness_full', message: 'no' } };
    return Promise.resolve({ status, text: () => Promise.resolve(JSON.stringify(body)) });
  };
  return { posts, post };
}

async function settle(publisher: WitnessPublisher, problems: string[]): Promise<void> {
  for (let i = 0; i < 100 && publisher.waiting > 0 && problems.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
}

describe('WitnessPublisher', () => {
  it('asks again after 429 and keeps the receipt', async () => {
    const w = fakeWitness([201, 429, 429, 201]);
    const evidence: EvidenceRecord[] = [];
    const problems: string[] = [];
    const p = new WitnessPublisher(
      gameId,
      [witness],
      w.post,
      (r) => evidence.push(r),
      (_w, m) => problems.push(m),
    );
    p.publish(game.lines[0]!, true);
    p.publish(game.lines[1]!);
    await settle(p, problems);
    expect(problems).toEqual([]);
    expect(w.posts).toEqual([game.lines[0], game.lines[1], game.lines[1], game.lines[1]]);
    expect(evidence.map((r) => r.text)).toEqual([game.lines[0], game.lines[1]]);
  });

  it('gives a full witness up (507) and says so', async () => {
    const w = fakeWitness([201, 507]);
    const problems: string[] = [];
    const p = new WitnessPublisher(
      gameId,
      [witness],
      w.post,
      () => {},
      (_w, m) => problems.push(m),
    );
    p.publish(game.lines[0]!, true);
    p.publish(game.lines[1]!);
    p.publish(game.lines[2]!);
    await settle(p, problems);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toContain('witness_full');
    expect(w.posts).toHaveLength(2);
    expect(p.waiting).toBe(0);
  });
});
