/**
 * The relay as a witness (docs/spec/relay.md §8) on 127.0.0.1: a game's setup posted, each author's envelopes
 * taken in their own order and receipted, a resend answered with the same receipt, gaps and forks refused,
 * and everything kept across a restart on the same DATA_DIR.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Envelope } from '@fairtable/core/envelope.js';
import { checkWitnessReceipt } from '@fairtable/core/order/witness.js';
import { startRelay, type Relay } from './relay.js';
import { diceGame } from './test-helpers.js';

const dirs: string[] = [];
const relays: Relay[] = [];
afterEach(async () => {
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function relay(dataDir: string): Promise<Relay> {
  const r = await startRelay({ host: '127.0.0.1', port: 0, dataDir, logger: pino({ level: 'silent' }) });
  relays.push(r);
  return r;
}

const post = async (url: string, body: string) => {
  const res = await fetch(url, { method: 'POST', body });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
};

describe('the witness (docs/spec/relay.md §8)', () => {
  it("receipts each author's envelopes in its own order, refuses gaps and forks, and keeps them across a restart", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'fairtable-witness-'));
    dirs.push(dataDir);
    const r = await relay(dataDir);
    const g = diceGame(2, 7);
    expect((await fetch(`${r.url}/witness`).then((x) => x.json())) as unknown).toEqual({ relay: r.publicKey });
    expect((await post(`${r.url}/witness/games/${g.id}`, 'x')).status).toBe(404);
    const created = await post(`${r.url}/witness/games`, g.setupLine);
    expect(created.status).toBe(201);
    expect((await post(`${r.url}/witness/games`, g.setupLine)).status).toBe(200);
    const setup = JSON.parse(g.setupLine) as Envelope;
    const sign = (seq: number, prev: string, note: string): string =>
      envelopeLine(
        signEnvelope(
          { v: 1, game: g.id, from: 'p1', seq, prev, at: 1, head: envelopeHash(setup), time: 5, body: { type: 'note', note } },
          g.keys[1]!.secretKey,
        ),
      );
    const first = sign(0, g.id, 'a');
    const second = sign(1, envelopeHash(JSON.parse(first) as Envelope), 'b');
    expect((await post(`${r.url}/witness/games/${g.id}`, second)).body).toMatchObject({ error: { code: 'bad_position' } });
    const a = await post(`${r.url}/witness/games/${g.id}`, first);
    expect(a.status).toBe(201);
    const receipt = checkWitnessReceipt(a.body.receipt, fromHex(r.publicKey));
    expect(receipt).toMatchObject({ game: g.id, from: 'p1', seq: 0, hash: envelopeHash(JSON.parse(first) as Envelope) });
    expect((await post(`${r.url}/witness/games/${g.id}`, first)).body.receipt).toEqual(a.body.receipt);
    expect((await post(`${r.url}/witness/games/${g.id}`, sign(0, g.id, 'other'))).status).toBe(409);
    expect((await post(`${r.url}/witness/games/${g.id}`, second)).status).toBe(201);
    // Another player's key does not make p1's envelope.
    const forged = envelopeLine({ ...(JSON.parse(sign(2, g.id, 'c')) as Envelope), sig: toHex(new Uint8Array(64)) });
    expect((await post(`${r.url}/witness/games/${g.id}`, forged)).body).toMatchObject({ error: { code: 'bad_signature' } });

    await r.close();
    relays.splice(0);
    const again = await relay(dataDir);
    const held = (await fetch(`${again.url}/witness/games/${g.id}`).then((x) => x.text()))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { relay: string; text: string });
    expect(held.map((h) => h.text)).toEqual([g.setupLine, first, second]);
    expect(held.every((h) => h.relay === r.publicKey)).toBe(true);
    // The rebuilt door goes on from where it was.
    expect((await post(`${again.url}/witness/games/${g.id}`, second)).status).toBe(200);
    expect((await post(`${again.url}/witness/games/${g.id}`, sign(0, g.id, 'late fork'))).status).toBe(409);
  });
});
