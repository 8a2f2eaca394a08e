/**
 * Sealed mode end to end (docs/spec/sealed.md): the real relay and @fairtable/client seats. Honest: each
 * seat's commitment is held with a holding receipt, the set comes out at once and the game audits valid.
 * Lying: a relay that loses a held commitment (here its held table is wiped across a restart and the
 * author's resends never reach it) is caught by the author's client with the relay's own holding receipt
 * and a later line receipt as evidence.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { WebSocket } from 'ws';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { holdingReceiptError, lostHeldProof, type HoldingReceipt } from '@fairtable/core/order/holding.js';
import { receiptError } from '@fairtable/core/order/receipt.js';
import { createSetupEnvelope } from '@fairtable/core/setup.js';
import { createGame, joinGame, ReceiptChain, type RelayGame, type SocketConstructor } from '@fairtable/client';
import { SqliteStore, startRelay, type Relay } from '@fairtable/relay';

const dirs: string[] = [];
const relays: Relay[] = [];
const seats: RelayGame[] = [];
afterEach(async () => {
  for (const s of seats.splice(0)) s.close();
  for (const r of relays.splice(0)) await r.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

async function relayOn(dir: string, port = 0): Promise<Relay> {
  const r = await startRelay({ host: '127.0.0.1', port, dataDir: dir, logger: pino({ level: 'silent' }) });
  relays.push(r);
  return r;
}

function sealedBeacon(n: number, timeoutMs: number, sealedMs: number): { setupLine: string; players: { id: string; keys: KeyPair }[] } {
  const players = Array.from({ length: n }, (_, i) => ({ id: `p${i}`, keys: generateKeyPair() }));
  const setup = {
    protocol: 'beacon',
    game: null,
    params: { timeoutMs, sealed: { types: ['commit'], timeoutMs: sealedMs } },
    players: players.map((p) => ({ id: p.id, key: toHex(p.keys.publicKey) })),
    nonce: toHex(randomBytes(32)),
    created: Date.now(),
  };
  return { setupLine: envelopeLine(createSetupEnvelope(setup, 'p0', players[0]!.keys)), players };
}

function seat(url: string, game: string, relayKey: string, p: { id: string; keys: KeyPair }, socket: SocketConstructor = WebSocket): RelayGame {
  const g = joinGame({
    relayUrl: url,
    gameId: game,
    id: p.id,
    keys: p.keys,
    random: randomBytes,
    WebSocket: socket,
    relayKey,
    backoffMs: { min: 50, max: 200 },
  });
  seats.push(g);
  return g;
}

describe('sealed mode with the client', () => {
  it('every commitment is held with a holding receipt, the set comes out at once, the game audits valid', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-sealed-client-'));
    dirs.push(dir);
    const r = await relayOn(dir);
    const { setupLine, players } = sealedBeacon(3, 30_000, 30_000);
    const made = await createGame(r.url, setupLine);
    const held: HoldingReceipt[] = [];
    const games = players.map((p) => seat(r.url, made.game, made.relay, p));
    for (const g of games) g.on('held', (h) => held.push(h));
    const outcomes = await Promise.all(games.map((g) => g.finished));
    expect(new Set(outcomes.map((o) => JSON.stringify(o))).size).toBe(1);
    // Each set completes with its last commitment, which goes straight in: the others were held.
    expect(held.length).toBeGreaterThanOrEqual(2);
    for (const h of held) expect(holdingReceiptError(h, fromHex(made.relay))).toBeNull();
    for (const g of games) {
      const verdict = g.audit();
      expect(verdict.valid).toBe(true);
      expect(verdict.lie).toBeNull();
      for (const h of held) expect(g.receipts.some((x) => x.hash === h.hash)).toBe(true);
    }
  });

  it('with a player absent, the set comes out at its deadline and the ordinary deadline claims name the absent player', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-sealed-absent-'));
    dirs.push(dir);
    const r = await relayOn(dir);
    const { setupLine, players } = sealedBeacon(3, 800, 800);
    const made = await createGame(r.url, setupLine);
    const games = players.slice(0, 2).map((p) => seat(r.url, made.game, made.relay, p));
    const held: HoldingReceipt[] = [];
    for (const g of games) g.on('held', (h) => held.push(h));
    const outcomes = await Promise.all(games.map((g) => g.finished));
    expect(outcomes[0]!.forfeits).toEqual([{ player: 'p2', code: 'withheld' }]);
    expect(held).toHaveLength(2);
    const g = games[0]!;
    // The two commitments are consecutive lines in seat order, receipted together at the set's deadline.
    const commits = g.lines.map((t, i) => [i, JSON.parse(t) as { from: string; body: { type: string } }] as const).filter(([, e]) => e.body.type === 'commit');
    expect(commits.slice(0, 2).map(([, e]) => e.from)).toEqual(['p0', 'p1']);
    expect(commits[1]![0] - commits[0]![0]).toBe(1);
    const deadline = Math.min(...held.map((h) => h.until));
    expect(g.receipts[commits[0]![0]]!.time).toBe(deadline);
    expect(g.receipts[commits[1]![0]]!.time).toBe(deadline);
    const verdict = g.audit();
    expect(verdict.violations.map((v) => [v.code, v.player])).toEqual([['withheld', 'p2']]);
    expect(verdict.lie).toBeNull();
  });

  it('a relay that loses a held commitment is caught by its holding receipt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-sealed-lost-'));
    dirs.push(dir);
    const r1 = await relayOn(dir);
    const port = r1.port;
    const { setupLine, players } = sealedBeacon(3, 1000, 1000);
    const made = await createGame(r1.url, setupLine);
    // p0's network lets its first submission through and no resend after it: the relay never gets it back.
    let submitted = 0;
    class OneSubmit extends WebSocket {
      override send(data: string): void {
        if (data.includes('"kind":"submit"') && submitted++ > 0) return;
        super.send(data);
      }
    }
    const victim = seat(r1.url, made.game, made.relay, players[0]!, OneSubmit as unknown as SocketConstructor);
    const holding = await new Promise<HoldingReceipt>((resolve) => victim.on('held', resolve));
    await r1.close();
    relays.splice(relays.indexOf(r1), 1);
    // The loss: the relay's held table forgets p0's commitment.
    const store = new SqliteStore(dir);
    expect(await store.readHeld(made.game)).toHaveLength(1);
    await store.unhold(made.game, [holding.hash]);
    await store.close();

    const r2 = await relayOn(dir, port);
    const others = players.slice(1).map((p) => seat(r2.url, made.game, made.relay, p));
    const lie = await victim.finished.then(
      () => null,
      (e: { lie?: unknown }) => e.lie ?? null,
    );
    expect(lie).toMatchObject({ code: 'relay_lied', kind: 'lost_sealed', holding: [holding] });
    // Anyone can check the finding: the holding receipt, a later line receipt, and the lines the receipts chain over.
    const found = lie as { receipts: { line: number; time: number }[]; lines: { text: string }[] };
    const late = found.receipts[0]!;
    expect(late.time).toBeGreaterThan(holding.until);
    expect(receiptError(late, fromHex(made.relay))).toBeNull();
    const lines = [...victim.lines.slice(0, late.line), found.lines[0]!.text];
    const { chain, lie: chainLie } = ReceiptChain.replay(made.game, made.relay, lines, victim.receipts.slice(0, late.line + 1));
    expect(chainLie).toBeNull();
    expect(
      lostHeldProof(
        holding,
        chain.receipts[late.line]!,
        chain.receipts.map((x) => x.hash),
      ),
    ).toMatch(/promised/);
    // The others, served an honest-looking log, see no lie.
    for (const o of others) expect(o.lie).toBeNull();
  });
});
