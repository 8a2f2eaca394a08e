/**
 * The relay's intake and verifying threads (docs/spec/relay.md, "The pipeline"): whatever the threads do (verify,
 * fail, be absent), each game's lines get exactly the door's answers they would get if each were
 * admitted alone, the moment it arrived, in arrival order.
 */
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { Door, type Admission } from '@fairtable/core/door.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { prepareLine } from '@fairtable/core/transcript.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import { Intake } from './intake.js';
import { diceGame, type TestGame } from './test-helpers.js';
import { VerifyPool, type Read } from './verify-pool.js';

const pools: VerifyPool[] = [];
afterEach(async () => {
  for (const p of pools.splice(0)) await p.close();
});
const pool = (size: number, onFailure?: (e: unknown) => void): VerifyPool => {
  const p = new VerifyPool(size, onFailure);
  pools.push(p);
  return p;
};

function envelope(g: TestGame, index: number, seq: number, prev: string, at: number, head: string, body: Record<string, unknown>): string {
  return envelopeLine(
    signEnvelope({ v: 1, game: g.id, from: g.ids[index]!, seq, prev, at, head, time: 1000 + at, body: body as Envelope['body'] }, g.keys[index]!.secretKey),
  );
}
const hashOf = (line: string): string => envelopeHash(JSON.parse(line) as Envelope);

/** A script of submissions to one game, [connection's player, text]: every kind of answer the door gives. */
function script(g: TestGame): [string, string][] {
  const h0 = hashOf(g.setupLine);
  const l1 = envelope(g, 1, 0, g.id, 1, h0, { type: 'note', n: 1 });
  const l2 = envelope(g, 2, 0, g.id, 2, hashOf(l1), { type: 'note', n: 2 });
  const badSig = JSON.parse(envelope(g, 2, 0, g.id, 2, hashOf(l1), { type: 'note', n: 2 })) as Record<string, string>;
  badSig.sig = badSig.sig!.slice(0, -2) + (badSig.sig!.endsWith('00') ? '01' : '00');
  const l3 = envelope(g, 1, 1, hashOf(l1), 3, hashOf(l2), { type: 'note', n: 3 });
  return [
    ['p1', l1],
    ['p2', JSON.stringify(badSig)],
    ['p2', l2],
    ['p1', envelope(g, 0, 1, hashOf(g.setupLine), 2, hashOf(l1), { type: 'note' })],
    ['p1', l1],
    ['p1', envelope(g, 1, 0, g.id, 1, h0, { type: 'note', n: 99 })],
    ['p1', envelope(g, 1, 5, hashOf(l1), 2, hashOf(l1), { type: 'note', n: 5 })],
    ['p2', 'not json'],
    ['p0', '{"v":1}'],
    ['p1', l3],
    ['p0', envelope(g, 0, 1, hashOf(g.setupLine), 1, h0, { type: 'note', n: 4 })],
  ];
}

const summary = (a: Admission): string => (a.ok ? `${a.duplicate ? 'duplicate' : 'line'} ${a.line} ${a.hash}` : `refused ${a.code}`);

/** The answers of a door taking each line alone, as it comes. */
function reference(g: TestGame): string[] {
  const door = new Door(g.setupLine, { verify: nativeVerify });
  return script(g).map(([who, text]) => summary(door.admit(text, who)));
}

/** The same submissions, of several games interleaved, through an intake; the answers per game once all are in. */
async function throughIntake(games: TestGame[], p: VerifyPool | null, meanwhile: () => void = () => {}): Promise<string[][]> {
  const doors = games.map((g) => new Door(g.setupLine, { verify: nativeVerify }));
  const answers: string[][] = games.map(() => []);
  const intake = new Intake<number>(p, (game, _text, a) => answers[game]!.push(summary(a)));
  const scripts = games.map(script);
  for (let k = 0; k < scripts[0]!.length; k++) for (let i = 0; i < games.length; i++) intake.submit(doors[i]!, i, scripts[i]![k]![0], scripts[i]![k]![1]);
  meanwhile();
  await intake.drained();
  expect(intake.waiting).toBe(0);
  return answers;
}

describe('the verifying threads', () => {
  it("answer what prepareLine says, on OpenSSL's path, for a good line, a bad signature and a line that is not canonical", async () => {
    const g = diceGame(3, 21);
    const p = pool(2);
    const lines = script(g).map(([, text]) => text);
    const key = g.keys[1]!.publicKey;
    const reads = await Promise.all(lines.map((text) => new Promise<Read | null>((resolve) => p.request(text, 'p1', toHex(key), resolve))));
    const nonCanonical = lines[0]!.replace('{"at":', '{ "at":');
    reads.push(await new Promise<Read | null>((resolve) => p.request(nonCanonical, 'p1', toHex(key), resolve)));
    lines.push(nonCanonical);
    const expected = lines.map((text) => {
      const r = prepareLine(0, text, new Map([['p1', key]]), nativeVerify);
      return { hash: r.hash, sigOk: r.sigOk, shapeError: r.shapeError };
    });
    expect(reads).toEqual(expected);
    // The script holds good and bad signatures, and lines that are not envelopes.
    expect(reads.some((r) => r?.sigOk === true)).toBe(true);
    expect(reads.some((r) => r !== null && r.shapeError === null && !r.sigOk)).toBe(true);
    expect(reads.some((r) => r?.shapeError !== null)).toBe(true);
  });

  it('answer null when there are none, so the caller verifies for itself', async () => {
    const p = pool(0);
    expect(p.size).toBe(0);
    expect(await new Promise((resolve) => p.request('x', 'p1', '00'.repeat(32), resolve))).toBeNull();
  });
});

describe('the intake', () => {
  // Eight games: 88 lines in one turn of the loop, split across the threads.
  const games = Array.from({ length: 8 }, (_, i) => diceGame(3, 22 + i));
  const expected = games.map(reference);

  it('gives each game the answers of its door taking every line alone, in arrival order, with two verifying threads', async () => {
    // The reference has every kind of answer, and lines admitted after refusals.
    expect(expected[0]!.map((s) => s.split(' ')[0] + ' ' + s.split(' ')[1])).toEqual([
      'line 1',
      'refused bad_signature',
      'line 2',
      'refused not_your_seat',
      'duplicate 1',
      'refused equivocation',
      'refused bad_position',
      'refused malformed',
      'refused malformed',
      'line 3',
      'line 4',
    ]);
    expect(await throughIntake(games, pool(2))).toEqual(expected);
  });

  it('gives the same answers with no verifying thread (every line verified on the event loop)', async () => {
    expect(await throughIntake(games, null)).toEqual(expected);
  });

  it('gives the same answers when its thread dies with lines in hand, and goes on without it', async () => {
    const failures: unknown[] = [];
    const p = pool(1, (e) => failures.push(e));
    const threads = (p as unknown as { threads: { worker: Worker }[] }).threads;
    expect(await throughIntake(games, p, () => void threads[0]!.worker.terminate())).toEqual(expected);
    expect(failures.length).toBe(1);
    expect(p.size).toBe(0);
    // A later game goes through with no thread at all.
    expect(await throughIntake([games[0]!], p)).toEqual([expected[0]]);
  });
});
