/**
 * `fairtable play crazy-eights` through a relay (docs/spec/crazy-eights.md §5): two processes play a game of
 * Crazy Eights on the deck to its end; both print the same outcome and the relay's log audits valid.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import { crazyEightsRegistry } from '@fairtable/core/protocols/crazy-eights/registry.js';
import { startMiniRelay, type MiniRelay } from '../../../test/mini-relay.js';
import { cliProcesses, type Run } from '../../../test/cli-processes.js';

const { start, keys } = cliProcesses('fairtable-play-eights-');

let relay: MiniRelay | null = null;
afterEach(async () => {
  await relay?.close();
  relay = null;
});

describe('fairtable play crazy-eights', () => {
  it('two processes play a game of Crazy Eights on the deck through a relay; the same outcome, and the log audits valid', async () => {
    relay = await startMiniRelay();
    const [a, b] = [keys('ann'), keys('ben')];
    let gameId = '';
    let joiner: Promise<Run> = Promise.resolve({ status: null, stdout: '', stderr: '' });
    const creator = await start(
      ['play', 'crazy-eights', '--relay', relay.url, '--key', a.key, '--players', `${a.pub},${b.pub}`, '--timeout-ms', '120000'],
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
    const verdict = auditLines(relay.games.get(gameId)!.lines, { registry: crazyEightsRegistry });
    expect(verdict.violations).toEqual([]);
    expect(verdict.outcome?.winners).toEqual(outcomes[0]!.winners);
  }, 300_000);
});
