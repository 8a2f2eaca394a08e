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
import { readSubmitted } from './read-submitted.js';
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
  it("answer what readSubmitted says on the event loop, on OpenSSL's path, for every kind of line; a line read agrees with prepareLine", async () => {
    const g = diceGame(3, 21);
    const p = pool(2);
    const lines = script(g).map(([, text]) => text);
    const key = g.keys[1]!.publicKey;
    const nonCanonical = lines[0]!.replace('{"at":', '{ "at":');
    const badSig = lines[0]!.replace(/"sig":"([0-9a-f]{127})([0-9a-f])"/, (_, a: string, b: string) => `"sig":"${a}${b === '0' ? '1' : '0'}"`);
    expect(badSig).not.toBe(lines[0]);
    lines.push(badSig, nonCanonical);
    const ask = (text: string, next: number) => new Promise<Read | null>((resolve) => p.request(text, 'p1', toHex(key), next, resolve));
    const reads = await Promise.all(lines.map((text) => ask(text, 1)));
    expect(reads).toEqual(lines.map((text) => readSubmitted(text, 'p1', key, 1, nativeVerify)));
    // Every kind of answer: a good and a bad signature, another player's envelope, one ahead of its author, and lines that are not envelopes.
    expect(new Set(reads.map((r) => r?.kind))).toEqual(new Set(['read', 'other', 'ahead', 'malformed']));
    expect(reads.some((r) => r?.kind === 'read' && r.sigOk)).toBe(true);
    expect(reads.some((r) => r?.kind === 'read' && !r.sigOk)).toBe(true);
    expect(reads[reads.length - 1]).toMatchObject({ kind: 'malformed' });
    for (const [i, r] of reads.entries()) {
      const full = prepareLine(0, lines[i]!, new Map([['p1', key]]), nativeVerify);
      if (r?.kind === 'read') {
        expect({ hash: r.hash, sigOk: r.sigOk }).toEqual({ hash: full.hash, sigOk: full.sigOk });
        const { type, ...header } = r.header;
        expect(full.envelope).toMatchObject({ ...header, body: { type } });
      }
      if (r?.kind === 'malformed') expect(r.shapeError).toBe(full.shapeError);
    }
    // With a larger `next`, the line ahead is read and verified like any other.
    const ahead = lines[reads.findIndex((r) => r?.kind === 'ahead')]!;
    expect(await ask(ahead, 9)).toMatchObject({ kind: 'read', sigOk: true });
  });

  it('answer null when there are none, so the caller verifies for itself', async () => {
    const p = pool(0);
    expect(p.size).toBe(0);
    expect(await new Promise((resolve) => p.request('x', 'p1', '00'.repeat(32), 0, resolve))).toBeNull();
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
