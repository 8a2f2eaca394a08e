/**
 * The web app's side of handing a Diplomacy power to a newcomer (apps/web/src/newcomer.ts, docs/spec/diplomacy.md
 * §10.15, "Front ends"): the newcomer file the page makes is the command line's, byte for byte, and each reads
 * the other's; a file whose consent its key did not sign, or that names another game, is refused with words that
 * say so; the powers in civil disorder; whether the log proposed the newcomer yet.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeLine, signEnvelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, toKeyFile } from '@fairtable/core/identity.js';
import { createSetupEnvelope, gameIdOf, type GameSetup } from '@fairtable/core/setup.js';
import { newcomerBody, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { startingPosition } from '@fairtable/diplomacy/position.js';
import { standardMap } from '@fairtable/diplomacy';
import { fingerprint, makeNewcomerFile, newcomerFileText, powersInDisorder, proposalFor, readNewcomerFile } from '../src/newcomer.js';
import { main } from '../../../test/cli-processes.js';

const GAME = 'ab'.repeat(32);
const nia = generateKeyPair();
const who = { id: 'nia', key: toHex(nia.publicKey), name: 'Nia' };
const dir = mkdtempSync(join(tmpdir(), 'fairtable-web-newcomer-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the newcomer file in the browser', () => {
  it('is the file `fairtable diplomacy newcomer-consent` prints, byte for byte, and reads back', () => {
    const key = join(dir, 'nia.json');
    writeFileSync(key, JSON.stringify(toKeyFile('nia', nia)));
    const cli = spawnSync(process.execPath, [main, 'diplomacy', 'newcomer-consent', '--game', GAME, '--power', 'france', '--key', key, '--name', 'Nia'], {
      encoding: 'utf8',
    });
    expect(cli.status, cli.stderr).toBe(0);
    const mine = makeNewcomerFile(GAME, 'france', who, nia.secretKey);
    // Ed25519 signatures are deterministic: the same consent, the same text.
    expect(`${newcomerFileText(mine)}\n`).toBe(cli.stdout);
    expect(readNewcomerFile(cli.stdout.trim(), GAME)).toEqual(mine);
  });

  it('refuses a file that is not one, another game’s, and a consent its key did not sign', () => {
    const good = makeNewcomerFile(GAME, 'france', who, nia.secretKey);
    expect(readNewcomerFile('{not json', GAME)).toMatch(/not JSON/);
    expect(readNewcomerFile(JSON.stringify({ ...good, type: 'fairtable-key' }), GAME)).toMatch(/not a newcomer file/);
    expect(readNewcomerFile(JSON.stringify(good), 'cd'.repeat(32))).toMatch(/for game abababababab…, not this one/);
    // A stranger signs a consent and puts Nia's id and key on it: the consent does not verify under Nia's key.
    const zed = generateKeyPair();
    const forged = makeNewcomerFile(GAME, 'france', { id: 'nia', key: toHex(zed.publicKey), name: 'Nia' }, zed.secretKey);
    const swapped = { ...forged, newcomer: { ...forged.newcomer, key: who.key } };
    expect(readNewcomerFile(JSON.stringify(swapped), GAME)).toMatch(/not signed by nia's key for france/);
    // The consent is for France: the file altered to name Germany no longer verifies.
    expect(readNewcomerFile(JSON.stringify({ ...good, power: 'germany' }), GAME)).toMatch(/not signed by nia's key for germany/);
    // Nor does a changed name.
    expect(readNewcomerFile(JSON.stringify({ ...good, newcomer: { ...good.newcomer, name: 'Nina' } }), GAME)).toMatch(/not signed/);
  });

  it('shows a key by its first 16 hex digits in groups of four', () => {
    expect(fingerprint('0123456789abcdef'.repeat(4))).toBe('0123 4567 89ab cdef');
  });
});

describe('the powers in civil disorder', () => {
  it('are the powers on the board that no player holds', () => {
    const s = { powers: { p1: 'england', p2: 'germany', p3: 'russia' }, position: startingPosition(standardMap) } as unknown as DiplomacyState;
    expect(powersInDisorder(s)).toEqual(['austria', 'france', 'italy', 'turkey']);
    // A power with no unit and no centre left is off the board: nobody takes it over.
    const gone = startingPosition(standardMap);
    const noFrance = {
      ...gone,
      units: gone.units.filter((u) => u.power !== 'france'),
      supplyCenterOwners: gone.supplyCenterOwners.filter((o) => o.power !== 'france'),
    };
    expect(powersInDisorder({ ...s, position: noFrance } as DiplomacyState)).toEqual(['austria', 'italy', 'turkey']);
  });
});

describe('whether the log proposed the newcomer', () => {
  const p1 = generateKeyPair();
  const setup: GameSetup = {
    protocol: 'diplomacy',
    game: 'diplomacy',
    params: {},
    players: [{ id: 'p1', key: toHex(p1.publicKey) }],
    nonce: '00'.repeat(32),
    created: 0,
  };
  const gameId = gameIdOf(setup);
  const first = envelopeLine(createSetupEnvelope(setup, 'p1', p1));
  const proposal = (n: { id: string; key: string; name: string }) =>
    envelopeLine(
      signEnvelope(
        {
          v: 1,
          game: gameId,
          from: 'p1',
          seq: 1,
          prev: '00'.repeat(32),
          at: 1,
          head: '00'.repeat(32),
          time: 0,
          body: newcomerBody('france', n, '00'.repeat(64)),
        },
        p1.secretKey,
      ),
    );

  it('waits until a `newcomer` line names its id and key', () => {
    expect(proposalFor([], 'nia', who.key)).toBe('waiting');
    expect(proposalFor([first], 'nia', who.key)).toBe('waiting');
    expect(proposalFor([first, proposal({ ...who, id: 'ned' })], 'nia', who.key)).toBe('waiting');
    expect(proposalFor([first, proposal(who)], 'nia', who.key)).toBe('proposed');
  });

  it('says so when the id is a player already, or the log gave the id another key', () => {
    expect(proposalFor([first], 'p1', who.key)).toMatch(/p1 is a player of this game already/);
    const other = toHex(generateKeyPair().publicKey);
    expect(proposalFor([first, proposal({ ...who, key: other })], 'nia', who.key)).toMatch(/another key/);
  });
});
