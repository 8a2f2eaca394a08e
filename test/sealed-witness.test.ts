/**
 * Sealed mode with a witness (docs/spec/sealed.md §8): a witness serves what it holds to anyone, so a seat
 * publishes a sealed envelope to its witnesses only once it stands in the log. The real ordering relay, a
 * second relay as the witness, and @fairtable/client seats: while the set is held (one of three players is
 * away) nobody reads a commitment from `GET /witness/games/ID`; once it is released at its deadline the
 * witness holds both, and the absent player, not an honest one, is named.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { WebSocket } from 'ws';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import type { HoldingReceipt } from '@fairtable/core/order/holding.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { createGame, joinGame, type RelayGame } from '@fairtable/client';
import { startRelay, type Relay } from '@fairtable/relay';

const dirs: string[] = [];
const relays: Relay[] = [];
const seats: RelayGame[] = [];
afterEach(async () => {
  for (const s of seats.splice(0)) s.close();
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function relay(): Promise<Relay> {
  const dir = mkdtempSync(join(tmpdir(), 'fairtable-sealed-witness-'));
  dirs.push(dir);
  const r = await startRelay({ host: '127.0.0.1', port: 0, dataDir: dir, webDir: dir, logger: pino({ level: 'silent' }) });
  relays.push(r);
  return r;
}

/** The types of the envelopes the witness serves for `game` (none when it holds nothing yet). */
async function witnessed(witness: Relay, game: string): Promise<string[]> {
  const res = await fetch(`${witness.url}/witness/games/${game}`);
  if (res.status === 404) return [];
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (JSON.parse((JSON.parse(l) as { text: string }).text) as { body: { type: string } }).body.type);
}

describe('sealed envelopes and witnesses', () => {
  it('a witness holds no commitment while its set is held, and both once it is released', async () => {
    const orderer = await relay();
    const witness = await relay();
    const players = Array.from({ length: 3 }, (_, i) => ({ id: `p${i}`, keys: generateKeyPair() }));
    const setup = {
      protocol: 'beacon',
      game: null,
      params: { timeoutMs: 2500, sealed: { types: ['commit'], timeoutMs: 2500 } },
      players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
      nonce: toHex(randomBytes(32)),
      created: Date.now(),
    };
    const made = await createGame(orderer.url, envelopeLine(createSetupEnvelope(setup, 'p0', players[0]!.keys)));
    const held: HoldingReceipt[] = [];
    // p2 stays away: the set of the first round is held until its deadline.
    const games = players.slice(0, 2).map((p) => {
      const g = joinGame({
        relayUrl: orderer.url,
        gameId: made.game,
        id: p.id,
        keys: p.keys,
        random: randomBytes,
        WebSocket,
        relayKey: made.relay,
        backoffMs: { min: 50, max: 200 },
        witnesses: [{ url: witness.url, key: witness.publicKey }],
      });
      g.on('held', (h) => held.push(h));
      seats.push(g);
      return g;
    });
    const deadline = Date.now() + 10_000;
    while (held.length < 2 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(held).toHaveLength(2);
    // Both commitments are held, and have been for a while: the witness has the setup, not one commitment.
    await new Promise((r) => setTimeout(r, 300));
    const early = held.every((h) => Date.now() < h.until) ? await witnessed(witness, made.game) : null;
    expect(early, 'the set was released before the witness could be read').not.toBeNull();
    expect(early).not.toContain('commit');
    const outcomes = await Promise.all(games.map((g) => g.finished));
    expect(outcomes[0]!.forfeits).toEqual([{ player: 'p2', code: 'withheld' }]);
    const until = Date.now() + 10_000;
    let late = await witnessed(witness, made.game);
    while (late.filter((t) => t === 'commit').length < 2 && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 50));
      late = await witnessed(witness, made.game);
    }
    expect(late.filter((t) => t === 'commit')).toHaveLength(2);
    for (const g of games) {
      const verdict = g.audit();
      expect(verdict.violations.map((v) => [v.code, v.player])).toEqual([['withheld', 'p2']]);
      expect(verdict.lie).toBeNull();
    }
  });
});
