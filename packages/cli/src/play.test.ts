import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { receiptError } from '@fairtable/core/order/receipt.js';
import { auditLines } from '@fairtable/core/audit.js';
import { startMiniRelay, type MiniRelay } from '../../../test/mini-relay.js';
import { cliProcesses, main, type Run } from '../../../test/cli-processes.js';

const { dir, start, keys } = cliProcesses('fairtable-play-');

let relay: MiniRelay | null = null;
afterEach(async () => {
  await relay?.close();
  relay = null;
});

/** The creator's run, and the joiners' runs started once it printed the game id. */
async function game(create: string[], joiners: { key: string; extra?: string[] }[]): Promise<{ creator: Run; others: Run[]; gameId: string; invite: string }> {
  let gameId = '';
  let invite = '';
  let others: Promise<Run[]> = Promise.resolve([]);
  const creator = await start(create, (first) => {
    [gameId, invite] = first.split(' ') as [string, string];
    others = Promise.all(joiners.map((j) => start(['play', '--relay', relay!.url, '--key', j.key, '--join', gameId, ...(j.extra ?? [])])));
  });
  return { creator, others: await others, gameId, invite };
}

describe('fairtable play and fetch through a relay', () => {
  it('three processes play dice to the end; fetch writes the transcript and receipts; audit says valid', async () => {
    relay = await startMiniRelay();
    const [a, b, c] = [keys('alice'), keys('bob'), keys('carol')];
    const out = join(dir, 'alice-copy.jsonl');
    const { creator, others, gameId, invite } = await game(
      [
        'play',
        'dice',
        '--relay',
        relay.url,
        '--key',
        a.key,
        '--players',
        [a.pub, b.pub, c.pub].join(','),
        '--turns',
        '2',
        '--timeout-ms',
        '5000',
        '--out',
        out,
      ],
      [{ key: b.key }, { key: c.key }],
    );
    expect(creator.status, creator.stderr).toBe(0);
    expect(gameId).toMatch(/^[0-9a-f]{64}$/);
    expect(invite).toBe(`${relay.url}/games/${gameId}`);
    const runs = [creator, ...others];
    const outcomes = runs.map((r) => {
      expect(r.status, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1]!) as { game: string; player: string; winners: string[]; lines: number };
    });
    expect(outcomes.map((o) => o.player)).toEqual(['alice', 'bob', 'carol']);
    // Progress on stderr: every player sees each roll in words, the same rolls in the same order.
    const rolls = runs.map((r) => r.stderr.split('\n').filter((l) => /turn \d+: (alice|bob|carol) rolled \d+ \+ \d+ = \d+$/.test(l)));
    expect(rolls[0]!.length, runs[0]!.stderr).toBe(6);
    for (const seen of rolls) expect(seen.map((l) => l.slice(l.indexOf('turn ')))).toEqual(rolls[0]!.map((l) => l.slice(l.indexOf('turn '))));
    for (const o of outcomes) {
      expect(o.game).toBe(gameId);
      expect(o.winners).toEqual(outcomes[0]!.winners);
      expect(o.winners.length).toBeGreaterThan(0);
    }
    const truth = relay.games.get(gameId)!;
    expect(outcomes[0]!.lines).toBe(truth.lines.length);
    // The creator's own copy, with its receipts, is the relay's log.
    expect(readFileSync(out, 'utf8')).toBe(truth.lines.join('\n') + '\n');
    expect(readFileSync(`${out}.receipts.jsonl`, 'utf8').trim().split('\n')).toHaveLength(truth.lines.length);

    const fetched = join(dir, 'fetched.jsonl');
    const f = await start(['fetch', '--relay', relay.url, '--game', gameId, '--out', fetched]);
    expect(f.status, f.stderr).toBe(0);
    expect(readFileSync(fetched, 'utf8')).toBe(truth.lines.join('\n') + '\n');
    const receipts = readFileSync(`${fetched}.receipts.jsonl`, 'utf8').trim().split('\n');
    expect(receipts).toHaveLength(truth.lines.length);
    for (const r of receipts) expect(receiptError(JSON.parse(r), relay.keys.publicKey)).toBeNull();
    const audit = spawnSync(process.execPath, [main, 'audit', fetched, '--json'], { encoding: 'utf8' });
    expect(audit.status, audit.stderr).toBe(0);
    expect(JSON.parse(audit.stdout)).toMatchObject({ valid: true, violations: [] });

    // A relay serving a receipt that does not fit its line: fetch writes both files as evidence, and exits 1.
    truth.receipts[2] = truth.receipts[3]!;
    const bad = join(dir, 'fetched-bad.jsonl');
    const g = await start(['fetch', '--relay', relay.url, '--game', gameId, '--out', bad]);
    expect(g.status, g.stderr).toBe(1);
    expect(g.stderr).toMatch(/\[relay_lied\]/);
    expect(JSON.parse(g.stderr.trim().split('\n').pop()!)).toMatchObject({ kind: 'wrong_receipt', line: 2 });
    expect(readFileSync(bad, 'utf8')).toBe(truth.lines.join('\n') + '\n');
    expect(readFileSync(`${bad}.receipts.jsonl`, 'utf8').trim().split('\n')).toHaveLength(truth.lines.length);
  });

  it('Monopoly, the whole game: two processes decide automatically (buy, bid, build, trade) to the end; the copy audits valid', async () => {
    relay = await startMiniRelay();
    const [a, b] = [keys('ann'), keys('ben')];
    const out = join(dir, 'monopoly-copy.jsonl');
    const { creator, others } = await game(
      ['play', 'monopoly', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`, '--turns', '4', '--timeout-ms', '5000', '--out', out],
      [{ key: b.key }],
    );
    expect(creator.status, creator.stderr).toBe(0);
    expect(others[0]!.status, others[0]!.stderr).toBe(0);
    const outcomes = [creator, others[0]!].map(
      (r) =>
        JSON.parse(r.stdout.trim().split('\n').pop()!) as {
          winners: string[];
          violations: unknown[];
          summary: { state: { stage: { kind: string }; round: number; deeds: Record<string, unknown> } };
        },
    );
    expect([outcomes[1]!.winners, outcomes[1]!.summary]).toEqual([outcomes[0]!.winners, outcomes[0]!.summary]);
    const o = outcomes[0]!;
    expect(o.violations).toEqual([]);
    expect(o.winners.length).toBeGreaterThan(0);
    // The game ran its four rounds (or ended sooner by a bankruptcy), and decisions were taken: deeds were bought.
    expect(o.summary.state.stage.kind).toBe('over');
    expect(Object.keys(o.summary.state.deeds).length).toBeGreaterThan(0);
    const lines = readFileSync(out, 'utf8').trim().split('\n');
    expect(lines.some((l) => (JSON.parse(l) as { body: { type: string } }).body.type === 'answer')).toBe(true);
    const verdict = auditLines(lines);
    expect(verdict.valid).toBe(true);
    expect(verdict.outcome?.winners).toEqual(o.winners);
  }, 60_000);

  it('Rochambeau: each player plays its --hand', async () => {
    relay = await startMiniRelay();
    const [a, b] = [keys('ann'), keys('ben')];
    const { creator, others } = await game(
      ['play', 'rochambeau', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`, '--hand', '1', '--timeout-ms', '5000'],
      [{ key: b.key, extra: ['--hand', '2'] }],
    );
    expect(creator.status, creator.stderr).toBe(0);
    expect(others[0]!.status, others[0]!.stderr).toBe(0);
    const o = JSON.parse(creator.stdout.trim().split('\n').pop()!) as { winners: string[]; summary: { attempts: number } };
    expect(o.winners).toHaveLength(1);
    // Fixed, different hands decide the game on its first attempt.
    expect(o.summary.attempts).toBe(1);
  });

  it('Signidice: the house creates and plays its seat like every other player; the player bets with --bet', async () => {
    relay = await startMiniRelay();
    const [h, p] = [keys('house'), keys('pat')];
    const { creator, others } = await game(
      ['play', 'signidice', '--relay', relay.url, '--key', h.key, '--players', `${h.pub},${p.pub}`, '--turns', '2', '--timeout-ms', '5000'],
      [{ key: p.key, extra: ['--bet', 'red:10', '--out', join(dir, 'pat.jsonl')] }],
    );
    expect(creator.status, creator.stderr).toBe(0);
    expect(others[0]!.status, others[0]!.stderr).toBe(0);
    const o = JSON.parse(others[0]!.stdout.trim().split('\n').pop()!) as { summary: { balances: Record<string, number> }; violations: unknown[] };
    expect(o.violations).toEqual([]);
    // Two rounds of red:10, as pat's own copy of the log shows: its balance moved by 10 each round, up or down.
    const bets = readFileSync(join(dir, 'pat.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { from: string; body: { type: string; bet?: unknown } })
      .filter((e) => e.from === 'pat' && e.body.type === 'bet');
    expect(bets).toHaveLength(2);
    expect(JSON.stringify(bets[0]!.body)).toMatch(/"kind":"red"/);
    expect(Math.abs(o.summary.balances.pat! - 1000) % 20).toBe(0);
    expect(JSON.parse(creator.stdout.trim().split('\n').pop()!).summary).toEqual(o.summary);
  });

  it('a relay that lies to a joining player: that player exits 1 with the finding and the receipts', async () => {
    relay = await startMiniRelay();
    const [a, b] = [keys('amy'), keys('bo')];
    relay.lie = (player, truth) => {
      if (player !== 'bo' || truth.lines.length < 2) return truth;
      const lines = [...truth.lines];
      lines[1] = lines[1]!.replace(/"time":(\d+)/, (_, d: string) => `"time":${Number(d) + 1}`);
      return { lines, receipts: truth.receipts };
    };
    const { others } = await game(
      ['play', 'chain', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`, '--turns', '1', '--timeout-ms', '1000'],
      [{ key: b.key }],
    );
    expect(others[0]!.status, others[0]!.stderr).toBe(1);
    expect(others[0]!.stderr).toMatch(/\[relay_lied\]/);
    const finding = JSON.parse(others[0]!.stderr.trim().split('\n').pop()!) as { kind: string; line: number; receipts: unknown[] };
    expect(finding).toMatchObject({ kind: 'altered_line', line: 1 });
    expect(receiptError(finding.receipts[0], relay.keys.publicKey)).toBeNull();
  });

  it('a relay that cannot be reached: connection_failed when creating, connection_closed when joining (exit 2)', async () => {
    relay = await startMiniRelay();
    const url = relay.url;
    await relay.close();
    relay = null;
    const [a, b] = [keys('y1'), keys('y2')];
    const c = await start(['play', 'dice', '--relay', url, '--key', a.key, '--players', `${a.pub},${b.pub}`]);
    expect(c.status).toBe(2);
    expect(c.stderr).toMatch(/\[connection_failed\]/);
    const j = await start(['play', '--relay', url, '--key', a.key, '--join', '00'.repeat(32), '--reconnect-ms', '500']);
    expect(j.status).toBe(2);
    expect(j.stderr).toMatch(/\[connection_closed\]/);
  });

  it('play dice --roll: every turn rolls the dice expression, each player sees it in words, the audit recomputes it; a bad one is refused with its position', async () => {
    relay = await startMiniRelay();
    const [a, b] = [keys('r1'), keys('r2')];
    const create = ['play', 'dice', '--roll', '2d20kh1 + 1', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`, '--turns', '2'];
    const { creator, others, gameId } = await game([...create, '--timeout-ms', '5000'], [{ key: b.key }]);
    expect(creator.status, creator.stderr).toBe(0);
    const rolls = [creator, ...others].map((r) => r.stderr.split('\n').filter((l) => /rolled 2d20kh1\+1: \d+ \(dropped \d+\)\+1 = \d+$/.test(l)));
    expect(rolls[0], creator.stderr).toHaveLength(4);
    expect(rolls[1]!.map((l) => l.slice(l.indexOf('turn ')))).toEqual(rolls[0]!.map((l) => l.slice(l.indexOf('turn '))));
    const lines = relay.games.get(gameId)!.lines;
    expect(JSON.parse(lines[0]!).body.setup.params.roll).toBe('2d20kh1+1');
    const verdict = auditLines(lines);
    expect(verdict.valid).toBe(true);
    expect(verdict.violations).toEqual([]);

    const bad = await start(['play', 'dice', '--roll', '3d6+', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/\[bad_dice_expression\] --roll "3d6\+": expected dice or a number at the end at position 5/);
    const snakes = await start(['play', 'snakes', '--roll', '1d6', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`]);
    expect(snakes.status).toBe(2);
    expect(snakes.stderr).toMatch(/--roll is for the dice game/);
  });

  it('refuses a creator who is not among the players, and a --join with a protocol', async () => {
    relay = await startMiniRelay();
    const [a, b, c] = [keys('x1'), keys('x2'), keys('x3')];
    const r = await start(['play', 'dice', '--relay', relay.url, '--key', c.key, '--players', `${a.pub},${b.pub}`]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/\[bad_input\]/);
    expect(r.stdout).toBe('');
    const j = await start(['play', 'dice', '--relay', relay.url, '--key', a.key, '--join', '00'.repeat(32)]);
    expect(j.status).toBe(2);
    expect(j.stderr).toMatch(/\[bad_input\]/);
  });
});
