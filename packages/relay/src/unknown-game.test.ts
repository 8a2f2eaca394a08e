/**
 * Two refusals of the relay with codes a client can act on (docs/spec/relay.md §3, §8): the WebSocket of a
 * game it does not hold closes at once with 4404 `unknown_game`, and a setup naming a witness URL no
 * client may post to is not created (`400 bad_witness_url`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { UNKNOWN_GAME_CLOSE } from '@fairtable/core/order/hello.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { createGame, diceGame, testRelays } from './test-helpers.js';

const { relay, closeAll } = testRelays();
afterEach(closeAll);

/** The close of a WebSocket opened on `url`: its code and reason, or the error that kept it from opening. */
function closeOf(url: string): Promise<{ code: number; reason: string; opened: boolean }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    let opened = false;
    ws.on('open', () => (opened = true));
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString(), opened }));
    ws.on('error', reject);
  });
}

function setupLineWith(witnessUrl: string): string {
  const keys = [1, 2].map((i) => generateKeyPair(new Uint8Array(32).fill(40 + i)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 60_000, rounds: 1, witnesses: [{ key: 'cd'.repeat(32), url: witnessUrl }] },
    players: keys.map((k, i) => ({ id: `p${i}`, key: toHex(k.publicKey) })),
    nonce: toHex(new Uint8Array(32).fill(9)),
    created: 1_700_000_000_000,
  };
  return envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!));
}

describe('the relay refuses with codes', () => {
  it('closes the WebSocket of a game it does not hold with 4404 unknown_game, and serves a game it holds', async () => {
    const r = await relay();
    const ws = r.url.replace(/^http/, 'ws');
    const unknown = await closeOf(`${ws}/games/${'0'.repeat(64)}/ws`);
    expect(unknown).toEqual({ code: UNKNOWN_GAME_CLOSE, reason: 'unknown_game', opened: true });
    expect(UNKNOWN_GAME_CLOSE).toBe(4404);
    // A game it holds is served as before: the first frame is the challenge.
    const g = diceGame(2);
    expect((await createGame(r.url, g.setupLine)).status).toBe(201);
    const first = await new Promise<string>((resolve, reject) => {
      const s = new WebSocket(`${ws}/games/${g.id}/ws`);
      s.on('message', (data) => {
        resolve(data.toString());
        s.close();
      });
      s.on('error', reject);
    });
    expect(JSON.parse(first)).toMatchObject({ kind: 'challenge', relay: r.publicKey });
    expect(await (await fetch(`${r.url}/metrics`)).text()).toMatch(/unknown_game/);
  });

  it('refuses to create a game whose setup names a witness no client may post to (400 bad_witness_url)', async () => {
    const r = await relay();
    for (const [url, why] of [
      ['http://10.0.0.1:8080/admin', /plain http:/],
      ['https://witness.example.org/?token=1', /query/],
      ['https://u:p@witness.example.org/', /credentials/],
      ['https://witness.example.org/#x', /fragment/],
    ] as const) {
      const made = await createGame(r.url, setupLineWith(url));
      expect(made.status, url).toBe(400);
      expect(made.body.error).toMatchObject({ code: 'bad_witness_url' });
      expect((made.body.error as { message: string }).message).toMatch(why);
    }
    for (const url of ['https://witness.example.org/', 'http://127.0.0.1:9/']) expect((await createGame(r.url, setupLineWith(url))).status, url).toBe(201);
    // Plain http to another host only where whoever runs the relay allowed it.
    const lan = await relay({ httpWitnessHosts: ['witness.lan'] });
    expect((await createGame(lan.url, setupLineWith('http://witness.lan:8080/'))).status).toBe(201);
    expect((await createGame(lan.url, setupLineWith('http://witness.example.org/'))).status).toBe(400);
  });
});
