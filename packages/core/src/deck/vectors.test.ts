/**
 * The deck's test vectors (packages/core/src/vectors/deck-*.json, docs/spec/deck.md §9): a joint key, one
 * shuffle of 52 cards with its proof, and one deal, all from a random source seeded by a fixed label. This
 * test rebuilds each file and compares it byte for byte, and checks every proof in it. Rewrite the files with
 * WRITE_DECK_VECTORS=1 (only when the encoding is meant to change).
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RandomStream } from '../stream.js';
import { taggedHash } from '../hash.js';
import { utf8 } from '../bytes.js';
import { combineKeyShares, keyShareValid, makeKeyShare } from './joint-key.js';
import { cardPoint, newDeck } from './elgamal.js';
import { mulBase, pedersenGenerators, pedersenH, randomScalar, scalarHex, type DeckTable } from './group.js';
import { proveShuffle, randomPermutation, verifyShuffle } from './shuffle-proof.js';
import { decryptionShare, decryptionShareValid, openFaceUp, openOwnCard } from './decrypt.js';

const source = (label: string) => {
  const s = new RandomStream(taggedHash('deck-vectors', utf8(label)), label);
  return (n: number) => s.bytes(n);
};
const table: DeckTable = { game: 'fairtable-deck-vectors', players: ['ann', 'bob', 'cat'] };
const SIZE = 52;

function build() {
  const random = source('fairtable/deck/vectors/1');
  const made = table.players.map((p) => makeKeyShare(table, p, random));
  const joint = combineKeyShares(
    table,
    made.map((m) => m.share),
  );
  const key = joint.key!;
  const jointKey = {
    source: 'docs/spec/deck.md §3 and §9; checked byte for byte by packages/core/src/deck/vectors.test.ts',
    game: table.game,
    players: table.players,
    shares: made.map((m) => ({ player: m.share.player, secret: scalarHex(m.secret), key: m.share.key, proof: m.share.proof })),
    jointKey: key,
    cards: Array.from({ length: SIZE }, (_, i) => ({ label: `fairtable/deck/card/${i}`, point: cardPoint(i).toHex() })),
    pedersen: { h: pedersenH().toHex(), generators: pedersenGenerators(SIZE).map((p) => p.toHex()) },
  };
  const input = newDeck(SIZE);
  const permutation = randomPermutation(SIZE, random);
  const rho = Array.from({ length: SIZE }, () => randomScalar(random));
  const st = { table, shuffler: 'bob', index: 0, key, input };
  const { output, proof } = proveShuffle(st, permutation, rho, random);
  const shuffle = {
    source: 'docs/spec/deck.md §5 and §9; checked byte for byte by packages/core/src/deck/vectors.test.ts',
    game: table.game,
    players: table.players,
    shuffler: 'bob',
    index: 0,
    jointKey: key,
    input,
    permutation,
    rho: rho.map(scalarHex),
    output,
    proof,
  };
  // Position 0 dealt to cat: ann and bob publish their shares; position 1 face up: all three.
  const dealt = [0, 1].map((seat) => decryptionShare(table, table.players[seat]!, made[seat]!.secret, 0, output[0]!, random));
  const faceUp = [0, 1, 2].map((seat) => decryptionShare(table, table.players[seat]!, made[seat]!.secret, 1, output[1]!, random));
  const deal = {
    source: 'docs/spec/deck.md §6 and §9; checked byte for byte by packages/core/src/deck/vectors.test.ts',
    game: table.game,
    players: table.players,
    keys: made.map((m) => m.share.key),
    deck: output,
    private: { position: 0, owner: 'cat', shares: dealt, card: openOwnCard(output[0]!, made[2]!.secret, dealt, SIZE) },
    faceUp: { position: 1, shares: faceUp, card: openFaceUp(table, joint.shares as string[], output[1]!, 1, faceUp, SIZE).card },
  };
  return { jointKey, shuffle, deal, made };
}

const files = { jointKey: 'deck-joint-key.json', shuffle: 'deck-shuffle.json', deal: 'deck-deal.json' } as const;
const path = (name: string): URL => new URL(`../vectors/${name}`, import.meta.url);

describe('deck vectors', () => {
  const built = build();
  if (process.env.WRITE_DECK_VECTORS === '1') {
    for (const [k, name] of Object.entries(files)) writeFileSync(path(name), `${JSON.stringify(built[k as keyof typeof files], null, 1)}\n`);
  }

  it('each file is rebuilt byte for byte from its seed', () => {
    for (const [k, name] of Object.entries(files)) {
      expect(readFileSync(path(name), 'utf8'), name).toBe(`${JSON.stringify(built[k as keyof typeof files], null, 1)}\n`);
    }
  });

  it('every proof in the files checks, the joint key is the sum, and the cards are as stated', () => {
    const jk = JSON.parse(readFileSync(path(files.jointKey), 'utf8')) as typeof built.jointKey;
    for (const s of jk.shares) expect(keyShareValid(table, s)).toBe(true);
    const sum = jk.shares.reduce((acc, s) => acc + BigInt(`0x${Buffer.from(s.secret, 'hex').reverse().toString('hex')}`), 0n);
    expect(jk.jointKey).toBe(mulBase(sum).toHex());
    const sh = JSON.parse(readFileSync(path(files.shuffle), 'utf8')) as typeof built.shuffle;
    expect(verifyShuffle({ table, shuffler: sh.shuffler, index: sh.index, key: sh.jointKey, input: sh.input, output: sh.output }, sh.proof)).toBe(true);
    expect(verifyShuffle({ table, shuffler: 'ann', index: sh.index, key: sh.jointKey, input: sh.input, output: sh.output }, sh.proof)).toBe(false);
    const d = JSON.parse(readFileSync(path(files.deal), 'utf8')) as typeof built.deal;
    for (const s of [...d.private.shares, ...d.faceUp.shares])
      expect(decryptionShareValid(table, d.keys[table.players.indexOf(s.player)]!, d.deck[s.position]!, s)).toBe(true);
    // The private card is the permutation's: output 0 holds input permutation[0], which is that card.
    expect(d.private.card).toBe(sh.permutation[0]);
    expect(d.faceUp.card).toBe(sh.permutation[1]);
  });
});

// An independent implementation (test/python/deck_check.py: ristretto255, hashing to the group, the
// transcripts and the shuffle's equations one by one, from the spec and the RFCs) checks the files too.
const CHECKER = fileURLToPath(new URL('../../../../test/python/deck_check.py', import.meta.url));
const hasPython = spawnSync('python3', ['--version']).status === 0;
const runChecker = (folder: string): { ok: boolean; failures: string[] } => {
  const run = spawnSync('python3', [CHECKER, folder], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (run.stderr) throw new Error(run.stderr);
  return JSON.parse(run.stdout) as { ok: boolean; failures: string[] };
};

// Skipped only where no python3 is installed: the checker is a second implementation, not part of the build.
describe.skipIf(!hasPython)('deck vectors, checked by an independent implementation', () => {
  it('accepts the files as they are', () => {
    expect(runChecker(fileURLToPath(new URL('../vectors/', import.meta.url)))).toEqual({ ok: true, failures: [] });
  }, 120_000);

  it('rejects a shuffle proof with one response changed and a decryption share of another player', () => {
    const folder = mkdtempSync(join(tmpdir(), 'deck-vectors-'));
    const read = (name: string): Record<string, unknown> => JSON.parse(readFileSync(path(name), 'utf8')) as Record<string, unknown>;
    writeFileSync(join(folder, files.jointKey), JSON.stringify(read(files.jointKey)));
    const sh = read(files.shuffle) as { proof: { s3: string } };
    sh.proof.s3 = `01${sh.proof.s3.slice(2)}`;
    writeFileSync(join(folder, files.shuffle), JSON.stringify(sh));
    const d = read(files.deal) as { faceUp: { shares: { player: string }[] } };
    d.faceUp.shares[0]!.player = 'bob';
    writeFileSync(join(folder, files.deal), JSON.stringify(d));
    const verdict = runChecker(folder);
    expect(verdict.ok).toBe(false);
    expect(verdict.failures).toContain('shuffle proof');
    expect(verdict.failures).toContain('decryption share of bob at 1');
  }, 120_000);
});
