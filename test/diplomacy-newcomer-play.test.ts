/**
 * A newcomer takes over an absent Diplomacy power through a relay, from the command line
 * (docs/spec/diplomacy.md §10.15, "Front ends"): three players, the third never comes, its power falls into
 * civil disorder (`--absent-after 1`); the newcomer signs its consent (`diplomacy newcomer-consent`), one
 * player proposes it (`--propose-newcomer`), the other approves its key (`--approve-newcomer`), and the
 * newcomer (`--as-newcomer`) orders the power to the game's end. The fetched transcript audits valid, naming
 * only the absent player's absence; the newcomer's seat resumes from its own copy. Cheats: a newcomer nobody proposed is refused by the relay and the game
 * goes on unaffected (as a newcomer, it waits for a proposal and gives up); a consent its key did not sign is
 * refused before any seat proposes it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { startRelay } from '@fairtable/relay';
import { Referee } from '@fairtable/core/referee.js';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { fromKeyFile } from '@fairtable/core/identity.js';
import { talkText, writeTalk } from '@fairtable/core/press/index.js';
import { diplomacyRegistry, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { cliProcesses, main } from './cli-processes.js';

const cli = cliProcesses('fairtable-newcomer-play-');
afterAll(() => rmSync(cli.dir, { recursive: true, force: true }));

interface Envelope {
  readonly from: string;
  readonly body: { readonly type: string; readonly round?: number };
}

describe('fairtable play diplomacy: a newcomer takes over an absent power', () => {
  it('proposed and approved from the command line, it orders the power to the end; audit names only the absence', async () => {
    // As `fairtable relay` starts it: with Diplomacy's machine for the talk route's hand-overs (press.md §10).
    const relay = await startRelay({
      host: '127.0.0.1',
      port: 0,
      dataDir: join(cli.dir, 'data'),
      logger: pino({ level: 'silent' }),
      talkRegistry: diplomacyRegistry,
    });
    try {
      const [p1, p2, p3, nia, stranger] = ['p1', 'p2', 'p3', 'nia', 'zed'].map((n) => cli.keys(n)) as [
        ReturnType<typeof cli.keys>,
        ...ReturnType<typeof cli.keys>[],
      ];
      const niaKey = (JSON.parse(readFileSync(nia!.pub, 'utf8')) as { publicKey: string }).publicKey;
      let rest: Promise<{ status: number | null; stdout: string; stderr: string }[]> | null = null;
      let game = '';
      const creator = cli.start(
        [
          'play',
          'diplomacy',
          '--relay',
          relay.url,
          '--key',
          p1.key,
          '--players',
          [p1.pub, p2!.pub, p3!.pub].join(','),
          '--assign',
          'fixed',
          '--years',
          '1',
          '--absent-after',
          '1',
          '--timeout-ms',
          '10000',
          // Approved by key, known before the game exists.
          '--approve-newcomer',
          niaKey,
        ],
        (first) => {
          game = first.split(' ')[0]!;
          // The newcomer's consent for France, the third seat's power (fixed assignment, seat order).
          const consent = spawnSync(
            process.execPath,
            [main, 'diplomacy', 'newcomer-consent', '--game', game, '--power', 'france', '--key', nia!.key, '--name', 'Nia'],
            {
              encoding: 'utf8',
            },
          );
          const file = join(cli.dir, 'nia.newcomer.json');
          writeFileSync(file, consent.stdout);
          // A consent for France that the newcomer did not sign: the stranger's key signed it.
          const forged = JSON.parse(
            spawnSync(process.execPath, [main, 'diplomacy', 'newcomer-consent', '--game', game, '--power', 'france', '--key', stranger!.key], {
              encoding: 'utf8',
            }).stdout,
          ) as { newcomer: { id: string; key: string; name: string } };
          const bad = join(cli.dir, 'forged.newcomer.json');
          writeFileSync(bad, JSON.stringify({ ...forged, newcomer: { ...forged.newcomer, id: 'nia', key: niaKey } }));
          rest = Promise.all([
            cli.start(['play', '--relay', relay.url, '--key', p2!.key, '--join', game, '--propose-newcomer', file]),
            cli.start([
              'play',
              '--relay',
              relay.url,
              '--key',
              nia!.key,
              '--join',
              game,
              '--as-newcomer',
              '--newcomer-wait-ms',
              '60000',
              '--out',
              join(cli.dir, 'nia.jsonl'),
            ]),
            // A stranger nobody proposed, connecting as a newcomer anyway, straight to the relay: refused at the hello.
            cli.start(['play', '--relay', relay.url, '--key', stranger!.key, '--join', game, '--reconnect-ms', '2000']),
            // A seat given the forged consent to propose refuses it before playing.
            cli.start(['play', '--relay', relay.url, '--key', p2!.key, '--join', game, '--propose-newcomer', bad]),
            // The stranger as a newcomer: nobody proposes it, so it gives up waiting.
            cli.start(['play', '--relay', relay.url, '--key', stranger!.key, '--join', game, '--as-newcomer', '--newcomer-wait-ms', '3000']),
          ]);
        },
      );
      const made = await creator;
      expect(made.status, made.stderr).toBe(0);
      const [proposer, newcomer, strangerRun, forgedRun, unproposed] = await rest!;
      expect(proposer!.status, proposer!.stderr).toBe(0);
      expect(newcomer!.status, newcomer!.stderr).toBe(0);
      expect(strangerRun!.status).toBe(2);
      expect(strangerRun!.stderr).toMatch(/\[bad_hello\]/);
      expect(forgedRun!.status).toBe(2);
      expect(forgedRun!.stderr).toMatch(/\[bad_consent\]/);
      expect(unproposed!.status).toBe(2);
      expect(unproposed!.stderr).toMatch(/\[not_proposed\] no player proposed zed/);
      expect(proposer!.stderr).toMatch(/proposing Nia \(nia, key [0-9a-f]{16}…\) for france/);
      expect(made.stderr).toMatch(/approving Nia \(nia\) for france, proposed by p2/);
      expect(newcomer!.stderr).toMatch(/a player proposed us/);

      // Every seat ends on the same position; the newcomer holds France.
      const outcomes = [made, proposer!, newcomer!].map(
        (r) => JSON.parse(r.stdout.trim().split('\n').pop()!) as { summary: { powers: Record<string, string> } },
      );
      for (const o of outcomes) expect(o.summary).toEqual(outcomes[0]!.summary);
      expect(outcomes[0]!.summary.powers.nia).toBe('france');

      // The newcomer's seat resumed from its own copy (`--resume --as-newcomer`), on a relay that holds the whole
      // game: it replays the copy, catches up with the log and ends on the same position. Without --as-newcomer,
      // the copy is refused, as the setup does not name its key.
      const resumed = await cli.start(['play', '--relay', relay.url, '--key', nia!.key, '--resume', join(cli.dir, 'nia.jsonl'), '--as-newcomer']);
      expect(resumed.status, resumed.stderr + resumed.stdout).toBe(0);
      expect((JSON.parse(resumed.stdout.trim().split('\n').pop()!) as { summary: unknown }).summary).toEqual(outcomes[0]!.summary);
      const notSeated = await cli.start(['play', '--relay', relay.url, '--key', nia!.key, '--resume', join(cli.dir, 'nia.jsonl')]);
      expect(notSeated.status).toBe(2);
      expect(notSeated.stderr).toMatch(/\[bad_journal\]/);

      const fetched = join(cli.dir, 'fetched.jsonl');
      const f = await cli.start(['fetch', '--relay', relay.url, '--game', game, '--out', fetched]);
      expect(f.status, f.stderr).toBe(0);
      const lines = readFileSync(fetched, 'utf8').trim().split('\n');
      const judge = new Referee(lines[0]!, null, undefined, { registry: diplomacyRegistry, keepEvents: true });
      lines.slice(1).forEach((text, n) => judge.feedText(n + 1, text));
      const seated = judge.events.find((e) => e.type === 'newcomer-seated');
      expect(seated).toMatchObject({ power: 'france', player: 'nia', name: 'Nia', replaces: 'p3' });
      // The newcomer committed France's orders for a later phase, and the game finished.
      const envelopes = lines.map((t) => JSON.parse(t) as Envelope);
      const commits = envelopes.filter((e) => e.from === 'nia' && e.body.type === 'commit');
      expect(commits.length).toBeGreaterThan(0);
      expect(Math.min(...commits.map((e) => e.body.round!))).toBe(seated!.round);
      expect((judge.state as DiplomacyState).phase).toBe('done');
      // Nothing from the stranger, nor a proposal of the forged consent, stands in the log.
      expect(envelopes.some((e) => e.from === 'zed')).toBe(false);
      expect(envelopes.filter((e) => e.body.type === 'newcomer')).toHaveLength(1);

      const audit = spawnSync(process.execPath, [main, 'audit', fetched, '--json'], { encoding: 'utf8' });
      expect(audit.status, audit.stderr).toBe(0);
      const verdict = JSON.parse(audit.stdout) as { valid: boolean; violations: { kind: string; player: string; code: string }[] };
      expect(verdict.valid).toBe(true);
      // The absent player's missed orders, said as absences; no rule broken, by anybody.
      expect(verdict.violations.filter((v) => v.kind !== 'absence')).toEqual([]);
      expect(new Set(verdict.violations.map((v) => v.player))).toEqual(new Set(['p3']));

      // Table talk (press.md §10): the newcomer writes under its own key, another power reads it as the newcomer's;
      // the departed player's key writes no more, refused by its own command and by the relay.
      const said = await cli.start(['talk', '--relay', relay.url, '--game', game, '--key', nia!.key, 'Nia', 'holds', 'France', 'now.']);
      expect(said.status, said.stderr).toBe(0);
      expect(said.stdout).toMatch(/^nia wrote to the table/);
      const read = await cli.start(['talk', '--relay', relay.url, '--game', game, '--key', p1.key, 'read']);
      expect(read.status, read.stderr).toBe(0);
      expect(read.stdout).toMatch(/ nia to the table, signed: Nia holds France now\./);
      expect(read.stdout).not.toMatch(/REFUSED/);
      const departed = await cli.start(['talk', '--relay', relay.url, '--game', game, '--key', p3!.key, 'I am still France']);
      expect(departed.status).not.toBe(0);
      expect(departed.stderr).toMatch(/writes no more press/);
      const p3Keys = fromKeyFile(JSON.parse(readFileSync(p3!.key, 'utf8')));
      const late = writeTalk(
        { game, from: 'p3', to: 'table', seq: 1, at: Date.now(), body: 'I am still France' },
        { mode: 'signed', secretKey: p3Keys.keys.secretKey, players: [{ id: 'p3', key: toHex(p3Keys.keys.publicKey) }], random: randomBytes },
      );
      const posted = await fetch(`${relay.url}/games/${game}/talk`, { method: 'POST', body: talkText(late) });
      expect(posted.status).toBe(403);
      expect(((await posted.json()) as { error: { code: string } }).error.code).toBe('talk_departed');
    } finally {
      await relay.close();
    }
  }, 240_000);
});
