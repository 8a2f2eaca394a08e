/**
 * Lobbies (docs/spec/web.md §2): the offer's schema, the invite secret's hash and the creator's signature on the
 * game id byte for byte against vectors/lobby.json, and every way a game's setup can differ from the offer a player
 * accepted, each said in words.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { fromHex, toHex } from './bytes.js';
import { generateKeyPair } from './identity.js';
import {
  durationWords,
  isLobbyView,
  lobbyGameBytes,
  offerError,
  offeredSetup,
  seatSecretHash,
  setupDifferences,
  signLobbyGame,
  verifyLobbyGame,
  type Offer,
} from './lobby.js';
import type { GameSetup } from './setup.js';

const vectors = JSON.parse(readFileSync(new URL('./vectors/lobby.json', import.meta.url), 'utf8')) as {
  seat: { secret: string; hash: string };
  game: { lobby: string; game: string; creatorSeed: string; creatorKey: string; signedBytes: string; sig: string };
};

const ann = generateKeyPair(new Uint8Array(32).fill(1));
const bob = generateKeyPair(new Uint8Array(32).fill(2));
const players = [
  { id: 'ann', key: toHex(ann.publicKey) },
  { id: 'bob', key: toHex(bob.publicKey) },
];
const offer: Offer = { protocol: 'dice', rounds: 3, states: 3, timeoutMs: 120_000 };
const setupOf = (o: Offer, extra: Partial<GameSetup> = {}): GameSetup => ({
  ...offeredSetup(o, players.length),
  players,
  nonce: '00'.repeat(32),
  created: 1,
  ...extra,
});

describe('lobby vectors', () => {
  it('hashes a seat secret and signs the game binding as the vectors say', () => {
    expect(seatSecretHash(vectors.seat.secret)).toBe(vectors.seat.hash);
    const g = vectors.game;
    const creator = generateKeyPair(fromHex(g.creatorSeed));
    expect(toHex(creator.publicKey)).toBe(g.creatorKey);
    expect(toHex(lobbyGameBytes(g.lobby, g.game))).toBe(g.signedBytes);
    expect(signLobbyGame(g.lobby, g.game, creator.secretKey)).toBe(g.sig);
    expect(verifyLobbyGame(g.lobby, g.game, g.sig, g.creatorKey)).toBe(true);
    expect(verifyLobbyGame(g.lobby, 'cd'.repeat(32), g.sig, g.creatorKey)).toBe(false);
    expect(verifyLobbyGame(g.lobby, g.game, g.sig, players[1]!.key)).toBe(false);
    expect(verifyLobbyGame(g.lobby, g.game, 'nope', g.creatorKey)).toBe(false);
  });
});

describe('offers', () => {
  it('accepts the offers the app makes, days for Diplomacy included, and says why any other is not one', () => {
    expect(offerError(offer)).toBe(null);
    expect(offerError({ protocol: 'diplomacy', rounds: 2, states: 3, timeoutMs: 3 * 86_400_000 })).toBe(null);
    expect(offerError({ ...offer, timeoutMs: 8 * 86_400_000 })).toMatch(/^offer\.timeoutMs: /);
    expect(offerError({ ...offer, extra: 1 })).toMatch(/^offer/);
    expect(offerError({ ...offer, protocol: 'rochambeau', states: 4 })).toBe('offer.states: the number of states must be odd');
    expect(offerError(null)).toMatch(/^offer/);
  });

  it('a dice offer may name a dice expression: read, made canonical in the setup, and a setup rolling other dice is told apart', () => {
    const rolled: Offer = { ...offer, roll: '3d6 + 2' };
    expect(offerError(rolled)).toBe(null);
    expect(offeredSetup(rolled, 2).params.roll).toBe('3d6+2');
    expect(offeredSetup(offer, 2).params.roll).toBeUndefined();
    expect(offerError({ ...offer, roll: '3d6+' })).toMatch(/^offer\.roll: expected dice or a number at the end at position 5$/);
    expect(offerError({ ...offer, protocol: 'snakes', roll: '1d6' })).toBe('offer.roll: only the dice game rolls a dice expression');
    const s = setupOf(rolled);
    expect(setupDifferences(s, rolled, players, null)).toEqual([]);
    expect(setupDifferences({ ...s, params: { ...s.params, roll: '3d6+20' } }, rolled, players, null)).toEqual([
      'the dice rolled each turn is 3d6+20, the offer said 3d6+2',
    ]);
  });
});

describe("a Hold'em offer", () => {
  it('names the blinds and starting chips, makes the setup the machine reads, and is told apart from one with other blinds', () => {
    const holdem: Offer = { ...offer, protocol: 'holdem', rounds: 1, bigBlind: 50, stack: 2_000 };
    expect(offerError(holdem)).toBe(null);
    expect(offeredSetup(holdem, 2)).toEqual({
      protocol: 'holdem',
      game: null,
      params: { timeoutMs: 120_000, bigBlind: 50, smallBlind: 25, stack: 2_000, hands: 1 },
    });
    // Defaults: a big blind of 100 and 100 big blinds each.
    expect(offeredSetup({ ...offer, protocol: 'holdem' }, 2).params).toMatchObject({ bigBlind: 100, smallBlind: 50, stack: 10_000, hands: 3 });
    expect(offerError({ ...holdem, bigBlind: 1 })).toMatch(/^offer\.bigBlind: /);
    expect(offerError({ ...offer, bigBlind: 100 })).toBe("offer.bigBlind: only Hold'em has blinds and starting chips");
    const s = setupOf(holdem);
    expect(setupDifferences(s, holdem, players, null)).toEqual([]);
    expect(setupDifferences({ ...s, params: { ...s.params, bigBlind: 500 } }, holdem, players, null)).toEqual(['the big blind is 500, the offer said 50']);
  });
});

describe('a lobby as served', () => {
  it('is read by its shape, whatever its offer', () => {
    const view = { lobby: 'l', offer: { protocol: 'dice', rounds: 'many' }, creator: 'ann', seats: [{ id: 'ann', key: null }], game: null };
    expect(isLobbyView(view)).toBe(true);
    expect(isLobbyView({ ...view, gameSig: 'ab' })).toBe(true);
    expect(isLobbyView({ ...view, seats: 'ann' })).toBe(false);
    expect(isLobbyView({ ...view, seats: [{ id: 'ann' }] })).toBe(false);
    expect(isLobbyView(null)).toBe(false);
  });
});

describe('a setup against the offer', () => {
  it('finds no difference in the game offered, for every game', () => {
    for (const protocol of ['dice', 'snakes', 'monopoly', 'rochambeau', 'diplomacy', 'holdem'] as const)
      expect(setupDifferences(setupOf({ ...offer, protocol }), { ...offer, protocol }, players, null)).toEqual([]);
    // Signidice: the wheel's key is the creator's own parameter.
    const roulette: Offer = { ...offer, protocol: 'signidice' };
    const s = setupOf(roulette);
    expect(setupDifferences({ ...s, params: { ...s.params, houseKey: { any: 'thing' } } }, roulette, players, null)).toEqual([]);
    expect(setupDifferences(s, roulette, players, null)).toEqual(['the setup lacks houseKey']);
  });

  it('says each difference: the deadline, a parameter, an added member, the game, the players, the relay key', () => {
    const s = setupOf(offer);
    expect(setupDifferences({ ...s, params: { ...s.params, timeoutMs: 1500 } }, offer, players, null)).toEqual(['the deadline is 1.5 s, the offer said 120 s']);
    expect(setupDifferences({ ...s, params: { ...s.params, rounds: 30 } }, offer, players, null)).toEqual(['the number of rounds is 30, the offer said 3']);
    expect(setupDifferences({ ...s, params: { ...s.params, decisionMs: 1000 } }, offer, players, null)).toEqual([
      'the setup adds the time to decide (1 s), which the offer did not have',
    ]);
    expect(setupDifferences({ ...s, params: { timeoutMs: 120_000 } }, offer, players, null)).toEqual(['the number of rounds is nothing, the offer said 3']);
    expect(setupDifferences({ ...s, game: 'snakes', params: { timeoutMs: 120_000, maxRounds: 3 } }, offer, players, null)).toContain(
      'the game is snakes, the offer said dice',
    );
    expect(setupDifferences({ ...s, witnesses: ['w'] } as GameSetup, offer, players, null)).toEqual([
      'the setup adds witnesses (["w"]), which the offer did not have',
    ]);
    const eve = toHex(generateKeyPair(new Uint8Array(32).fill(3)).publicKey);
    expect(setupDifferences({ ...s, players: [players[0]!, { id: 'bob', key: eve }] }, offer, players, null)[0]).toMatch(
      /^the players are ann \(key .*\), bob \(key /,
    );
    // The relay's key, where a setup carries it, must be this relay's.
    const relay = 'ee'.repeat(32);
    expect(setupDifferences({ ...s, relay } as GameSetup, offer, players, relay)).toEqual([]);
    expect(setupDifferences({ ...s, params: { ...s.params, relayKey: relay } }, offer, players, relay)).toEqual([]);
    expect(setupDifferences({ ...s, relay } as GameSetup, offer, players, 'ff'.repeat(32))).toEqual([
      'the setup names the relay eeeeeeee…, this relay is ffffffff…',
    ]);
    expect(setupDifferences({ protocol: 'chain' }, offer, players, null)[0]).toMatch(/^its setup is not readable/);
    // Witnesses: only those the relay publishes, each once.
    const w = [{ key: 'aa'.repeat(32), url: 'https://w.example' }];
    expect(setupDifferences({ ...s, params: { ...s.params, witnesses: w } }, offer, players, null, ['https://w.example'])).toEqual([]);
    expect(setupDifferences({ ...s, params: { ...s.params, witnesses: w } }, offer, players, null, [])[0]).toMatch(/^the setup names the witnesses/);
    expect(setupDifferences({ ...s, params: { ...s.params, witnesses: w } }, offer, players, null)[0]).toMatch(/this relay publishes none known$/);
    expect(setupDifferences({ ...s, params: { ...s.params, witnesses: [...w, ...w] } }, offer, players, null, ['https://w.example'])).toHaveLength(1);
  });

  it('says times in words', () => {
    expect([1500, 120_000, 3_600_000, 86_400_000, 3 * 86_400_000].map(durationWords)).toEqual(['1.5 s', '120 s', '1 hour', '1 day', '3 days']);
  });
});
