/**
 * `fairtable play holdem` through a relay (docs/spec/holdem.md §11.6): two processes play a hand of
 * Hold'em on the deck to its end; both print the same outcome and the relay's log audits valid.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import { holdemRegistry } from '@fairtable/core/protocols/holdem/registry.js';
import { startMiniRelay, type MiniRelay } from '../../../test/mini-relay.js';
import { cliProcesses, type Run } from '../../../test/cli-processes.js';

const { start, keys } = cliProcesses('fairtable-play-holdem-');

let relay: MiniRelay | null = null;
afterEach(async () => {
  await relay?.close();
  relay = null;
});

describe('fairtable play holdem', () => {
  it('two processes play a hand on the deck through a relay; the same outcome, and the log audits valid', async () => {
    relay = await startMiniRelay();
    const [a, b] = [keys('ann'), keys('ben')];
    let gameId = '';
    let joiner: Promise<Run> = Promise.resolve({ status: null, stdout: '', stderr: '' });
    const creator = await start(
      ['play', 'holdem', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`, '--turns', '1', '--timeout-ms', '120000'],
      (first) => {
        gameId = first.split(' ')[0]!;
        joiner = start(['play', '--relay', relay!.url, '--key', b.key, '--join', gameId]);
      },
    );
    const other = await joiner;
    expect(creator.status, creator.stderr).toBe(0);
    expect(other.status, other.stderr).toBe(0);
    const outcomes = [creator, other].map((r) => {
      const lines = r.stdout.trim().split('\n');
      return JSON.parse(lines[lines.length - 1]!) as { winners: string[] };
    });
    expect(outcomes[1]!.winners).toEqual(outcomes[0]!.winners);
    expect(outcomes[0]!.winners.length).toBeGreaterThan(0);
    const verdict = auditLines(relay.games.get(gameId)!.lines, { registry: holdemRegistry });
    expect(verdict.violations).toEqual([]);
    expect(verdict.outcome?.winners).toEqual(outcomes[0]!.winners);
  }, 180_000);
});
