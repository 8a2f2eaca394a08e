/** A player who leaves mid-hand cannot block it (docs/spec/deck.md §7): k of the others stand in for its decryption shares. */
import { describe, expect, it } from 'vitest';
import { RandomStream } from '../stream.js';
import { generateKeyPair } from '../identity.js';
import { violationKind } from '../errors.js';
import { toHex } from '../bytes.js';
import { combineKeyShares, makeKeyShare } from './joint-key.js';
import { newDeck, type Ciphertext } from './elgamal.js';
import { mulBase, randomScalar, type DeckTable } from './group.js';
import { shuffle } from './shuffle-proof.js';
import { decryptionShare, openFaceUp } from './decrypt.js';
import { backUpKey, backupMatchesKey, combineStandIns, leftTheHand, openBackupShare, standInShare, type KeyBackup } from './threshold.js';

const rng = (label: string) => {
  const s = new RandomStream(new Uint8Array(32).fill(11), label);
  return (n: number) => s.bytes(n);
};
const fairtableKeys = [0, 1, 2, 3].map((i) => generateKeyPair(new Uint8Array(32).fill(90 + i)));
const players = fairtableKeys.map((k) => toHex(k.publicKey));
const table: DeckTable = { game: 'hand-7', players };
const SIZE = 8;
const K = 2;

function setup() {
  const random = rng('threshold');
  const made = players.map((p) => makeKeyShare(table, p, random));
  const joint = combineKeyShares(
    table,
    made.map((m) => m.share),
  );
  const key = joint.key!;
  const backups: KeyBackup[] = made.map((m, seat) =>
    backUpKey(
      table,
      players[seat]!,
      m.secret,
      K,
      fairtableKeys.map((k) => k.publicKey),
      random,
    ),
  );
  let deck: Ciphertext[] = newDeck(SIZE);
  players.forEach((p, index) => (deck = shuffle({ table, shuffler: p, index, key, input: deck }, random).output));
  return { random, made, key, keys: made.map((m) => m.share.key), backups, deck };
}

describe('stand-ins for a player who left', () => {
  it('k holders open the leaver’s share of a face-up card; the card is the one all four would have opened; the leaver is named absent only', () => {
    const { random, made, keys, backups, deck } = setup();
    backups.forEach((b, seat) => expect(backupMatchesKey(table, keys[seat]!, b, K)).toBe(true));
    const position = 3;
    const all = [0, 1, 2, 3].map((seat) => decryptionShare(table, players[seat]!, made[seat]!.secret, position, deck[position]!, random));
    const expected = openFaceUp(table, keys, deck[position]!, position, all, SIZE).card;
    expect(expected).not.toBeNull();
    // p3 leaves. Holders p0 and p2 open their backup shares of p3's key and stand in.
    const leaver = backups[3]!;
    const standIns = [0, 2].map((seat) => {
      const held = openBackupShare(table, leaver, seat, fairtableKeys[seat]!.secretKey);
      expect(held).not.toBeNull();
      return standInShare(table, leaver, players[seat]!, held!, position, deck[position]!, random);
    });
    const rebuilt = combineStandIns(table, leaver, deck[position]!, position, standIns);
    expect(rebuilt.violations).toEqual([]);
    expect(rebuilt.share!.toHex()).toBe(all[3]!.share);
    const opened = openFaceUp(table, keys, deck[position]!, position, all.slice(0, 3), SIZE, [rebuilt.share!]);
    expect(opened).toEqual({ card: expected, violations: [] });
    const absent = leftTheHand(players[3]!, 9);
    expect(violationKind(absent)).toBe('absence');
    expect(absent.player).toBe(players[3]);
  });

  it('fewer than k stand-ins open nothing; a wrong stand-in share is named and left out', () => {
    const { random, backups, deck } = setup();
    const leaver = backups[3]!;
    const position = 1;
    const held = [0, 1, 2].map((seat) => openBackupShare(table, leaver, seat, fairtableKeys[seat]!.secretKey)!);
    const good = [0, 2].map((seat) => standInShare(table, leaver, players[seat]!, held[seat]!, position, deck[position]!, random));
    expect(combineStandIns(table, leaver, deck[position]!, position, good.slice(0, 1)).share).toBeNull();
    // p1 gives a share computed with a made-up scalar (it would steer the opened card): caught and named.
    const lie = standInShare(table, leaver, players[1]!, '07'.padEnd(64, '0'), position, deck[position]!, random);
    const withLie = combineStandIns(table, leaver, deck[position]!, position, [lie, ...good]);
    expect(withLie.violations.map((v) => `${v.code}:${v.player}`)).toEqual([`bad_decryption_share:${players[1]}`]);
    expect(withLie.share!.toHex()).toBe(combineStandIns(table, leaver, deck[position]!, position, good).share!.toHex());
    // A stand-in for another position replayed here fails too.
    const replayed = { ...standInShare(table, leaver, players[1]!, held[1]!, 2, deck[2]!, random), position };
    expect(combineStandIns(table, leaver, deck[position]!, position, [replayed]).violations).toHaveLength(1);
  });

  it('a backup not bound to the dealer’s key share, or a backup share that does not fit its commitments, is caught', () => {
    const { random, made, keys, backups } = setup();
    const other = backUpKey(
      table,
      players[2]!,
      randomScalar(random),
      K,
      fairtableKeys.map((k) => k.publicKey),
      random,
    );
    expect(backupMatchesKey(table, keys[2]!, other, K)).toBe(false);
    expect(backupMatchesKey(table, keys[2]!, backups[2]!, K + 1)).toBe(false);
    expect(backupMatchesKey(table, keys[2]!, { ...backups[2]!, commitments: [mulBase(made[2]!.secret).toHex(), 'zz'] }, K)).toBe(false);
    // A box sealed to seat 1 handed to seat 0 does not open for seat 0.
    const swapped: KeyBackup = { ...backups[2]!, sealed: [backups[2]!.sealed[1]!, ...backups[2]!.sealed.slice(1)] };
    expect(openBackupShare(table, swapped, 0, fairtableKeys[0]!.secretKey)).toBeNull();
    // Shares dealt for another key: they open but do not fit the published commitments.
    const mixed: KeyBackup = { ...other, commitments: backups[2]!.commitments };
    expect(openBackupShare(table, mixed, 0, fairtableKeys[0]!.secretKey)).toBeNull();
  });
});
