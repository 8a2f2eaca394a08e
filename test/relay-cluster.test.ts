/**
 * Three relay processes on one Postgres database behind HAProxy (deploy/haproxy.cfg; docs/spec/relay.md §4,
 * "Many processes behind a balancer"). Games of 4 players are created and played with the real client
 * (@fairtable/client) through balancers only: two seats of each game through the one that routes by game id,
 * two through a second with no affinity (round robin, "Clients on any process"), so most games have sockets
 * on processes that follow them and forward their lines; one relay process is killed (SIGKILL) mid-game.
 * The clients reconnect through the balancer, which has taken the dead process out; its games hash to the
 * others, which take their leases over once they run out. Every acknowledged line is still there, in
 * order; the games finish; fetch and the audit with the relay's receipts are valid and name nobody.
 *
 * GAMES is `FAIRTABLE_CLUSTER_GAMES`: 50 (200 seats) under `.ci/run`, 12 (48 seats) by default, for a
 * developer's inner loop on a 2-core machine. Skipped, saying why, without FAIRTABLE_TEST_DATABASE_URL or
 * HAProxy; under CI their absence fails.
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { auditWithReceipts } from '@fairtable/core/order/censorship.js';
import { randomStrategy, verifiedOnce } from '@fairtable/core/testing';
import { createGame, fetchGame, joinGame, type RelayGame } from '@fairtable/client';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { exited, haproxyBinary, startBalancer, startRelayProcess, type Balancer, type RelayProcess } from './relay-cluster.js';

const url = process.env.FAIRTABLE_TEST_DATABASE_URL;
const haproxy = haproxyBinary();
const missing = [
  ...(url === undefined ? ['FAIRTABLE_TEST_DATABASE_URL is not set (`eval "$(.ci/postgres.sh start)"` starts a server and sets it)'] : []),
  ...(haproxy === null ? ['HAProxy is not installed (`apt-get install haproxy`; .ci/run installs it)'] : []),
];
const GAMES = Number(process.env.FAIRTABLE_CLUSTER_GAMES ?? 12);
// Leases of 5 s: with 2 s leases, a relay on a loaded 2-core machine (the whole suite running beside it) renewed
// them late and lost games mid-run; FAIRTABLE_CLUSTER_LEASE_MS sets another length.
const LEASE_MS = Number(process.env.FAIRTABLE_CLUSTER_LEASE_MS ?? 5000);

if (missing.length > 0 && process.env.CI !== undefined && process.env.CI !== '')
  describe('relays behind a balancer under CI', () => {
    it('has a database and HAProxy', () => {
      throw new Error(`CI is set but ${missing.join('; and ')}: the relay service behind a balancer would go untested`);
    });
  });

/** Dice on the chain protocol for 4 players, keys from `seed`. */
function diceGame(seed: number, rounds: number): { id: string; setupLine: string; ids: string[]; keys: ReturnType<typeof generateKeyPair>[] } {
  const ids = ['p0', 'p1', 'p2', 'p3'];
  const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill((seed * 4 + i + 1) % 256)));
  const setup: GameSetup = {
    protocol: 'chain',
    game: 'dice',
    params: { timeoutMs: 60_000, rounds },
    players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
    nonce: toHex(randomBytes(32)),
    created: Date.now(),
  };
  return { id: gameIdOf(setup), setupLine: envelopeLine(createSetupEnvelope(setup, ids[0]!, keys[0]!)), ids, keys };
}

// What is tested is the service (balancer, leases, failover, forwarding), not the signatures: the seats sign
// and check with OpenSSL's Ed25519 (packages/node's fast path, the same signatures and verdicts as noble's, its
// differential test), each signature checked once for the four seats that read it, and hash with node:crypto's
// SHA-256 (the same bytes as noble's). The audits check with the same fast path, one game again on noble alone.
useNativeCrypto();
const fastVerify = verifiedOnce(nativeVerify);

const until = async (what: string, ms: number, ok: () => boolean | Promise<boolean>): Promise<void> => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
};

const schema = `cluster_${process.pid}_${randomUUID().slice(0, 8)}`;
const relays: RelayProcess[] = [];
const seats: RelayGame[] = [];
let balancer: Balancer | null = null;
let spread: Balancer | null = null;
afterAll(async () => {
  for (const s of seats.splice(0)) s.close();
  await balancer?.close();
  await spread?.close();
  for (const r of relays.splice(0)) {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
    await exited(r.child);
  }
  if (url === undefined) return;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
});

describe.skipIf(missing.length > 0)(`three relay processes behind HAProxy${missing.length > 0 ? ` (skipped: ${missing.join('; ')})` : ''}`, () => {
  it(
    `plays ${GAMES} games of 4 through the balancer; a process killed mid-game loses nothing acknowledged, and every game finishes and audits valid`,
    async () => {
      // The first process makes the schema; the others start on it.
      relays.push(await startRelayProcess({ databaseUrl: url!, schema, node: 'relay1', leaseMs: LEASE_MS, extra: ['--games-per-minute', '1000'] }));
      for (const node of ['relay2', 'relay3'])
        relays.push(await startRelayProcess({ databaseUrl: url!, schema, node, leaseMs: LEASE_MS, extra: ['--games-per-minute', '1000'] }));
      // One relay identity for the whole service.
      expect(new Set(relays.map((r) => r.key)).size).toBe(1);
      const relayKey = relays[0]!.key;
      balancer = await startBalancer(haproxy!, relays);
      // A second balancer with no affinity: each connection to the next live process in turn. Seats p2 and p3 of
      // every game come through it, so most games have sockets on processes that do not order them.
      spread = await startBalancer(haproxy!, relays, true);

      const games = Array.from({ length: GAMES }, (_, i) => diceGame(i, 8));
      /** When each line of each game first reached a seat here (ms). */
      const arrived = new Map<string, number[]>();
      for (const g of games) {
        const created = await createGame(balancer.url, g.setupLine);
        expect(created).toMatchObject({ game: g.id, relay: relayKey });
        arrived.set(g.id, []);
        for (let i = 0; i < g.ids.length; i++)
          seats.push(
            joinGame({
              relayUrl: i < 2 ? balancer.url : spread.url,
              gameId: g.id,
              id: g.ids[i]!,
              keys: g.keys[i]!,
              WebSocket,
              relayKey,
              sign: nativeSign,
              verify: fastVerify,
              strategy: randomStrategy(randomBytes(32)),
              backoffMs: { min: 50, max: 400 },
              onLine: (line) => {
                const times = arrived.get(g.id)!;
                times[line] ??= Date.now();
              },
            }),
          );
      }
      const seatsOf = (id: string): RelayGame[] => seats.filter((s) => s.gameId === id);
      const held = (id: string): readonly string[] => seatsOf(id).reduce((a, s) => (s.lines.length > a.length ? s.lines : a), [] as readonly string[]);

      // Each game's requests went to one process, the one holding its lease: every game is held, once.
      const leasesOf = async (r: RelayProcess): Promise<string[]> =>
        ((await (await fetch(`${r.url}/health`)).json()) as { leases: { game: string }[] }).leases.map((l) => l.game);
      await until('every game under way', 60_000, () => games.every((g) => held(g.id).length >= 6));
      const holdings = await Promise.all(relays.map(leasesOf));
      // No game is held by two processes. (Every game is held by one at nearly every moment, but a process
      // that renews its leases late on a loaded machine drops its games until their clients reconnect.)
      const held1 = holdings.flat();
      expect(new Set(held1).size).toBe(held1.length);
      for (const id of held1) expect(games.map((g) => g.id)).toContain(id);

      // Seats on processes that do not order their game: their lines were forwarded to the holder.
      const fanouts = await Promise.all(
        relays.map(async (r) => ((await (await fetch(`${r.url}/health`)).json()) as { fanout: { forwarded: number } }).fanout.forwarded),
      );
      expect(fanouts.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
      // A process asked directly for a game another holds serves it by following it (relay.md §4, "Clients on
      // any process"), and orders none of it: the lease stays where it was.
      const someone = held1[0]!;
      const other = relays.find((_, i) => !holdings[i]!.includes(someone))!;
      const followed = await fetch(`${other.url}/games/${someone}`);
      expect(followed.status).toBe(200);
      expect(await leasesOf(other)).not.toContain(someone);

      // The process holding the most games dies.
      const victim = holdings.reduce((best, h, i) => (h.length > holdings[best]!.length ? i : best), 0);
      const affected = holdings[victim]!;
      expect(affected.length).toBeGreaterThan(0);
      relays[victim]!.child.kill('SIGKILL');
      await exited(relays[victim]!.child);
      const killedAt = Date.now();
      // Every line a seat holds was stored and acknowledged (its receipt checked) before the kill.
      const acknowledged = new Map(games.map((g) => [g.id, [...held(g.id)]]));
      const stillPlaying = affected.filter((id) => seatsOf(id).every((s) => s.outcome() === null));

      const outcomes = await Promise.all(seats.map((s) => s.finished));
      for (const o of outcomes) expect(o.forfeits).toEqual([]);
      // Failover: from the kill to the last affected game taking a new line.
      const failoverMs = Math.max(0, ...stillPlaying.map((id) => arrived.get(id)![acknowledged.get(id)!.length]! - killedAt));
      console.log(
        `relay cluster: ${GAMES} games, ${affected.length} on the killed process (${stillPlaying.length} mid-game), failover ${failoverMs} ms (lease ${LEASE_MS} ms)`,
      );
      // The kill came mid-game; no process took a game over before the dead one's lease could have run out
      // (it renews every third of it).
      expect(stillPlaying.length).toBeGreaterThan(0);
      expect(failoverMs).toBeGreaterThan(LEASE_MS / 2);

      const survivors = relays.filter((_, i) => i !== victim);
      // The games that were mid-game on the dead process were taken over by the others (the ones it had
      // finished are taken over by the next request for them, below).
      const after = (await Promise.all(survivors.map(leasesOf))).flat();
      for (const id of stillPlaying) expect(after).toContain(id);
      for (const g of games) {
        const fetched = await fetchGame(balancer.url, g.id, relayKey);
        expect(fetched.lie).toBeNull();
        const ack = acknowledged.get(g.id)!;
        expect(fetched.lines.slice(0, ack.length)).toEqual(ack);
        for (const s of seatsOf(g.id)) expect(s.lines).toEqual(fetched.lines);
        const evidence = { orderer: relayKey, receipts: fetched.receipts, records: [] };
        const verdict = auditWithReceipts(fetched.lines, evidence, { verify: fastVerify });
        expect(verdict.violations).toEqual([]);
        expect(verdict.valid).toBe(true);
        expect(verdict.relay.receipted).toBe(fetched.lines.length);
        // One game that was mid-game on the killed process, audited again with noble's signature checks alone.
        if (g.id === stillPlaying[0]) expect(auditWithReceipts(fetched.lines, evidence)).toEqual(verdict);
      }
    },
    120_000 + GAMES * 5000,
  );
});
