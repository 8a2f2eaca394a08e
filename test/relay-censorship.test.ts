/**
 * The censoring orderer (issue 9, docs/spec/relay.md §9), replayed: a Signidice house that colludes with
 * the relay ordering its game sees the player's HR, works out that she would win, has the relay drop it,
 * and claims the deadline, which names her `withheld` and gives her bet to the house. Her client published
 * the HR to the witness relay the setup names, which receipted it before the claim was receipted; the
 * audit with the receipts and the witness's evidence names the relay and not her. Without the witness's
 * evidence the same log names her: the attack is real, and the evidence is what defeats it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { pino } from 'pino';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { envelopeLine, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { createSetupEnvelope, type GameSetup } from '@fairtable/core/setup.js';
import { signReceiptBatch } from '@fairtable/core/order/receipt.js';
import { Auditor } from '@fairtable/core/audit.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { ecvrfHouse } from '@fairtable/core/signidice/house-key.js';
import { auditWithReceipts, type EvidenceRecord } from '@fairtable/core/order/censorship.js';
import { simStrategy } from '@fairtable/core/testing';
import { createGame, fetchGame, joinGame, type RelayGame } from '@fairtable/client';
import { startRelay, type Relay } from '@fairtable/relay';
import { startMiniRelay, type MiniRelay } from './mini-relay.js';

const main = fileURLToPath(new URL('../packages/cli/bin/fairtable.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'fairtable-censor-'));
const closing: (() => unknown)[] = [];
afterAll(async () => {
  for (const c of closing.reverse()) await c();
  rmSync(dir, { recursive: true, force: true });
});

/** Would this HR line, added to the log, pay its author? What a house that sees it before it is ordered can know. */
function wouldWin(log: readonly string[], line: string): boolean {
  const auditor = new Auditor(log[0]!, { keepEvents: true });
  for (const l of log.slice(1)) auditor.add(l);
  const before = auditor.referee.events.length;
  auditor.add(line);
  const from = (JSON.parse(line) as Envelope).from;
  return auditor.referee.events.slice(before).some((e) => e.type === 'spin' && e.player === from && typeof e.won === 'number' && e.won > 0);
}

describe('a house colluding with the orderer drops a winning HR (docs/spec/relay.md §9)', () => {
  it('the relay is named, the player is not; without the witness the player would be', async () => {
    const orderer: MiniRelay = await startMiniRelay();
    closing.push(() => orderer.close());
    const witness: Relay = await startRelay({ host: '127.0.0.1', port: 0, dataDir: join(dir, 'witness'), logger: pino({ level: 'silent' }) });
    closing.push(() => witness.close());

    const houseKeys = generateKeyPair();
    const alice = generateKeyPair();
    const vrf = ecvrfHouse('ecvrf-ell2', randomBytes(32));
    // Twelve rounds of red: the chance that she never wins one, and the house never has a reason to cheat, is (19/37)^12 < 0.04%.
    const params: Record<string, JsonValue> = {
      timeoutMs: 800,
      houseKey: vrf.key as unknown as JsonValue,
      rounds: 12,
      maxPlayers: 1,
      witnesses: [{ key: witness.publicKey, url: witness.url }],
    };
    const setup: GameSetup = {
      protocol: 'signidice',
      game: null,
      params,
      players: [
        { id: HOUSE, key: toHex(houseKeys.publicKey) },
        { id: 'alice', key: toHex(alice.publicKey) },
      ],
      nonce: toHex(randomBytes(32)),
      created: Date.now(),
    };
    const created = await createGame(orderer.url, envelopeLine(createSetupEnvelope(setup, HOUSE, houseKeys)));

    let dropped: string | null = null;
    orderer.censor = (player, text, game) => {
      if (player !== 'alice') return false;
      if (dropped === text) return true;
      if (dropped !== null || (JSON.parse(text) as Envelope).body.type !== 'hr' || !wouldWin(game.lines, text)) return false;
      dropped = text;
      return true;
    };

    const common = { relayUrl: orderer.url, gameId: created.game, random: randomBytes, WebSocket, relayKey: created.relay, backoffMs: { min: 50, max: 400 } };
    const house = joinGame({ ...common, id: HOUSE, keys: houseKeys, prover: vrf.prove, strategy: simStrategy(randomBytes(32)) });
    const player: RelayGame = joinGame({
      ...common,
      id: 'alice',
      keys: alice,
      strategy: (d) => (d.kind === 'bet' ? { kind: 'red', pick: null, amount: 1 } : simStrategy(randomBytes(32))(d)),
    });
    closing.push(
      () => house.close(),
      () => player.close(),
    );
    await house.finished;
    expect(dropped, 'she never won a round, so the house had no reason to cheat').not.toBeNull();

    const fetched = await fetchGame(orderer.url, created.game, created.relay);
    expect(fetched.lie).toBeNull();
    // The attack worked on the log alone: she is named, her bet went to the house.
    const plain = auditWithReceipts(fetched.lines, { orderer: created.relay, receipts: fetched.receipts, records: [] });
    expect(plain.violations.filter((v) => v.player === 'alice').map((v) => v.code)).toEqual(['withheld']);

    // The witness held her HR, receipted before the claim was.
    const witnessed = (await fetch(`${witness.url}/witness/games/${created.game}`).then((r) => r.text()))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as EvidenceRecord);
    expect(witnessed.some((r) => r.text === dropped)).toBe(true);
    expect(player.evidence.some((r) => r.text === dropped && r.relay === witness.publicKey)).toBe(true);

    const judged = auditWithReceipts(fetched.lines, { orderer: created.relay, receipts: fetched.receipts, records: witnessed });
    expect(judged.violations.some((v) => v.player === 'alice')).toBe(false);
    expect(judged.violations.filter((v) => v.code === 'relay_censored').map((v) => v.relay)).toEqual([created.relay]);
    expect(judged.outcome).toBeNull();
    expect(judged.valid).toBe(false);
    // Her own evidence (what her client kept) is enough too.
    const own = auditWithReceipts(fetched.lines, { orderer: created.relay, receipts: fetched.receipts, records: player.evidence });
    expect(own.violations.some((v) => v.player === 'alice')).toBe(false);
    expect(own.violations.some((v) => v.code === 'relay_censored')).toBe(true);

    // The command line reaches the same verdict from the files.
    const file = join(dir, 'game.jsonl');
    writeFileSync(file, fetched.lines.map((l) => l + '\n').join(''));
    writeFileSync(`${file}.receipts.jsonl`, fetched.receipts.map((r) => JSON.stringify(r) + '\n').join(''));
    writeFileSync(join(dir, 'witness.jsonl'), witnessed.map((r) => JSON.stringify(r) + '\n').join(''));
    const cli = (extra: string[]) => spawnSync(process.execPath, [main, 'audit', file, '--json', '--relay-key', created.relay, ...extra], { encoding: 'utf8' });
    const withWitness = cli(['--witness', join(dir, 'witness.jsonl')]);
    expect(withWitness.status, withWitness.stderr).toBe(1);
    const v = JSON.parse(withWitness.stdout) as { violations: { code: string; player: string | null; relay?: string }[]; relay: { faultAt: number } };
    expect(v.violations.some((x) => x.player === 'alice')).toBe(false);
    expect(v.violations.find((x) => x.code === 'relay_censored')?.relay).toBe(created.relay);
    const without = JSON.parse(cli([]).stdout) as { violations: { code: string; player: string | null }[] };
    expect(without.violations.some((x) => x.code === 'withheld' && x.player === 'alice')).toBe(true);
    const untrusted = JSON.parse(cli(['--witness', join(dir, 'witness.jsonl'), '--untrusted-relay']).stdout) as {
      violations: { code: string; player: string | null }[];
    };
    // Without trusting the relays' clocks the witness's time proves nothing, and deadlines are the players' own claims.
    expect(untrusted.violations.some((x) => x.code === 'relay_censored')).toBe(false);
  }, 60_000);
});

describe('a relay that receipts an envelope to its author and serves another history (docs/spec/relay.md §9)', () => {
  it("is named by the author's kept receipt; the author, stopped by the finding and then claimed withheld, is not", async () => {
    const orderer: MiniRelay = await startMiniRelay();
    closing.push(() => orderer.close());
    const keys = [generateKeyPair(), generateKeyPair()];
    const setup: GameSetup = {
      protocol: 'chain',
      game: 'dice',
      params: { timeoutMs: 600, rounds: 2 },
      players: keys.map((k, i) => ({ id: `p${i}`, key: toHex(k.publicKey) })),
      nonce: toHex(randomBytes(32)),
      created: Date.now(),
    };
    const created = await createGame(orderer.url, envelopeLine(createSetupEnvelope(setup, 'p0', keys[0]!)));
    let lied = false;
    // p1's first envelope: it is told a receipt of another history for its line (the relay's signature on it).
    orderer.acceptedLie = (player, receipt) => {
      if (player !== 'p1' || lied) return receipt;
      lied = true;
      const { sig: _s, batch: _b, ...unsigned } = receipt;
      return signReceiptBatch([{ ...unsigned, log: receipt.hash }], orderer.keys.secretKey)[0]!;
    };
    const common = { relayUrl: orderer.url, gameId: created.game, random: randomBytes, WebSocket, relayKey: created.relay, backoffMs: { min: 50, max: 400 } };
    const [p0, p1] = keys.map((k, i) => joinGame({ ...common, id: `p${i}`, keys: k, strategy: simStrategy(randomBytes(32)) }));
    closing.push(
      () => p0!.close(),
      () => p1!.close(),
    );
    await expect(p1!.finished).rejects.toMatchObject({ lie: { kind: 'fork' } });
    await p0!.finished;
    const fetched = await fetchGame(orderer.url, created.game, created.relay);
    const plain = auditWithReceipts(fetched.lines, { orderer: created.relay, receipts: fetched.receipts, records: [] });
    expect(plain.violations.some((v) => v.code === 'withheld' && v.player === 'p1')).toBe(true);
    const judged = auditWithReceipts(fetched.lines, { orderer: created.relay, receipts: fetched.receipts, records: p1!.evidence });
    expect(judged.violations.some((v) => v.player === 'p1')).toBe(false);
    expect(judged.violations.filter((v) => v.code === 'relay_forked').map((v) => v.relay)).toEqual([created.relay]);
    expect(judged.outcome).toBeNull();
  }, 30_000);
});
