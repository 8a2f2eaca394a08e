/**
 * What every relay store promises (docs/spec/relay.md §4, `Store`), as one suite run against each store:
 * SQLite (sqlite-store.test.ts) and Postgres (postgres-store.test.ts). A place is where one store keeps its
 * data (a directory, a schema); `open` may be called on it again after `close`, as a restarted relay does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { firstLogHash, nextLogHash, signReceipt, type Receipt } from '@fairtable/core/order/receipt.js';
import { signHoldingReceipt, type HoldingReceipt } from '@fairtable/core/order/holding.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import type { LineToStore, Store } from './store.js';

export interface StorePlace {
  open(): Store;
  /** Removes the place (after every store opened on it has closed). */
  remove(): Promise<void>;
}

const relaySecret = new Uint8Array(32).fill(9);
const hex = (byte: number): string => byte.toString(16).padStart(2, '0').repeat(32);

/** `count` lines of `game` from line `from` on, each with a receipt signed as a relay signs it. */
export function linesOf(game: string, from: number, count: number, size = 40): LineToStore[] {
  const out: LineToStore[] = [];
  let log = firstLogHash(game, hex(0));
  for (let line = 0; line < from + count; line++) {
    const hash = hex((line % 250) + 1);
    log = line === 0 ? firstLogHash(game, hash) : nextLogHash(log, hash);
    if (line < from) continue;
    const receipt: Receipt = signReceipt({ v: 1, game, line, hash, log, time: 1_700_000_000_000 + line }, relaySecret, nativeSign);
    out.push({ game, line, text: JSON.stringify({ line, pad: 'x'.repeat(size) }), receipt });
  }
  return out;
}

/**
 * `perGame`: the store's appends are all or none for each game, not across games (a `ShardedStore` commits each
 * database's part of a batch on its own; sharded-store.test.ts tests the split).
 */
export function describeStoreContract(name: string, makePlace: () => Promise<StorePlace>, options: { readonly perGame?: boolean } = {}): void {
  describe(`the Store contract: ${name}`, () => {
    const places: StorePlace[] = [];
    const open: Store[] = [];
    afterEach(async () => {
      for (const s of open.splice(0)) await s.close();
      for (const p of places.splice(0)) await p.remove();
    });
    const fresh = async (): Promise<StorePlace> => {
      const p = await makePlace();
      places.push(p);
      return p;
    };
    const opened = (p: StorePlace): Store => {
      const s = p.open();
      open.push(s);
      return s;
    };
    const gameA = 'a1'.repeat(32);
    const gameB = 'b2'.repeat(32);

    it('creates a game once, with its setup as line 0, and lists it', async () => {
      const store = opened(await fresh());
      const [setup] = linesOf(gameA, 0, 1);
      expect(await store.createGame(gameA, 'chain', setup!)).toBe(true);
      expect(await store.createGame(gameA, 'chain', setup!)).toBe(false);
      expect(await store.lineCount(gameA)).toBe(1);
      expect(await store.lineCount(gameB)).toBe(0);
      expect(await store.readLines(gameA, 0, 10)).toEqual([{ line: 0, text: setup!.text, receipt: setup!.receipt }]);
      expect(await store.listGames()).toEqual([{ game: gameA, protocol: 'chain', created: setup!.receipt.time }]);
    });

    it('appends lines of several games in one call, and reads them back in order, from and up to a line', async () => {
      const store = opened(await fresh());
      await store.createGame(gameA, 'chain', linesOf(gameA, 0, 1)[0]!);
      await store.createGame(gameB, 'mental', linesOf(gameB, 0, 1)[0]!);
      const a = linesOf(gameA, 1, 5);
      const b = linesOf(gameB, 1, 3);
      await store.append([a[0]!, b[0]!, a[1]!, a[2]!, b[1]!, b[2]!, a[3]!, a[4]!]);
      expect(await store.lineCount(gameA)).toBe(6);
      expect(await store.lineCount(gameB)).toBe(4);
      const read = await store.readLines(gameA, 2, 3);
      expect(read.map((l) => l.line)).toEqual([2, 3, 4]);
      expect(read).toEqual(a.slice(1, 4).map(({ line, text, receipt }) => ({ line, text, receipt })));
      expect(await store.readLines(gameA, 6, 10)).toEqual([]);
      expect((await store.listGames()).map((g) => g.game).sort()).toEqual([gameA, gameB].sort());
    });

    it(`appends all or none${options.perGame === true ? ' for each game' : ''}: a batch with a line already stored writes nothing of it`, async () => {
      const store = opened(await fresh());
      await store.createGame(gameA, 'chain', linesOf(gameA, 0, 1)[0]!);
      await store.createGame(gameB, 'chain', linesOf(gameB, 0, 1)[0]!);
      await store.append(linesOf(gameA, 1, 2));
      // Line 2 of game A is there already: the batch fails, and game B's lines in it are not written either.
      await expect(store.append([...linesOf(gameB, 1, 2), ...linesOf(gameA, 2, 2)])).rejects.toThrow();
      expect(await store.lineCount(gameA)).toBe(3);
      const bStored = await store.lineCount(gameB);
      if (options.perGame === true) expect([1, 3]).toContain(bStored);
      else expect(bStored).toBe(1);
      // And the store goes on.
      if (bStored === 1) await store.append(linesOf(gameB, 1, 2));
      expect(await store.lineCount(gameB)).toBe(3);
    });

    it('reads a page bounded in bytes, the first line always', async () => {
      const store = opened(await fresh());
      if (store.readPage === undefined) return;
      await store.createGame(gameA, 'chain', linesOf(gameA, 0, 1)[0]!);
      await store.append(linesOf(gameA, 1, 9, 1000));
      const one = await store.readLines(gameA, 1, 1);
      const size = one[0]!.text.length + JSON.stringify(one[0]!.receipt).length;
      const page = await store.readPage(gameA, 1, 100, size * 3 + 10);
      expect(page.map((l) => l.line)).toEqual([1, 2, 3]);
      expect((await store.readPage(gameA, 4, 100, 1)).map((l) => l.line)).toEqual([4]);
      expect((await store.readPage(gameA, 1, 2, 1 << 20)).map((l) => l.line)).toEqual([1, 2]);
      expect(await store.readPage(gameA, 10, 5, 1 << 20)).toEqual([]);
    });

    it('keeps held envelopes, once each, and forgets the released ones', async () => {
      const store = opened(await fresh());
      if (store.hold === undefined || store.readHeld === undefined || store.unhold === undefined || store.gamesHolding === undefined) return;
      const held = (n: number): { text: string; receipt: HoldingReceipt } => ({
        text: `{"sealed":${n}}`,
        receipt: signHoldingReceipt({ v: 1, game: gameA, hash: hex(n), time: n, until: n + 1000 }, relaySecret, nativeSign),
      });
      await store.hold(gameA, held(2));
      await store.hold(gameA, held(1));
      await store.hold(gameA, held(1));
      await store.hold(gameB, held(3));
      expect((await store.readHeld(gameA)).map((h) => h.text)).toEqual(['{"sealed":1}', '{"sealed":2}']);
      expect(await store.readHeld(gameA)).toContainEqual(held(2));
      expect(await store.gamesHolding()).toEqual([gameA, gameB].sort());
      await store.unhold(gameA, [hex(1), hex(2)]);
      expect(await store.readHeld(gameA)).toEqual([]);
      expect(await store.gamesHolding()).toEqual([gameB]);
    });

    it('saves, replaces, lists and deletes lobbies', async () => {
      const store = opened(await fresh());
      if (store.saveLobby === undefined || store.listLobbies === undefined || store.deleteLobby === undefined) return;
      await store.saveLobby({ id: 'l2', created: 20, body: '{"n":2}' });
      await store.saveLobby({ id: 'l1', created: 10, body: '{"n":1}' });
      await store.saveLobby({ id: 'l2', created: 20, body: '{"n":3}' });
      expect(await store.listLobbies()).toEqual([
        { id: 'l1', created: 10, body: '{"n":1}' },
        { id: 'l2', created: 20, body: '{"n":3}' },
      ]);
      await store.deleteLobby('l1');
      expect((await store.listLobbies()).map((l) => l.id)).toEqual(['l2']);
    });

    it('keeps table talk beside the lines: indexes from 0 per game, even when appended at once; reads from an index; counts bytes', async () => {
      const store = opened(await fresh());
      const [setup] = linesOf(gameA, 0, 1);
      await store.createGame(gameA, 'chain', setup!);
      const texts = Array.from({ length: 6 }, (_, i) => `{"n":${i},"word":"héllo"}`);
      const indexes = await Promise.all(texts.map((t, i) => store.appendTalk!(gameA, 1000 + i, t)));
      expect([...indexes].sort((a, b) => a - b)).toEqual([0, 1, 2, 3, 4, 5]);
      expect(await store.appendTalk!(gameB, 5, 'other')).toBe(0);
      const read = await store.readTalk!(gameA, 2, 3);
      expect(read.map((t) => t.index)).toEqual([2, 3, 4]);
      for (const t of read) expect(t.text).toBe(texts[indexes.indexOf(t.index)]);
      expect(typeof read[0]!.at).toBe('number');
      expect(await store.talkUsage!(gameA)).toEqual({ count: 6, bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0) });
      // Talk never enters the log.
      expect(await store.lineCount(gameA)).toBe(1);
    });

    it('keeps everything, and the same relay key, across a close and a reopen', async () => {
      const place = await fresh();
      const first = place.open();
      const key = await first.relayKey();
      expect(key).toHaveLength(32);
      expect(await first.relayKey()).toEqual(key);
      await first.createGame(gameA, 'chain', linesOf(gameA, 0, 1)[0]!);
      await first.append(linesOf(gameA, 1, 4));
      await first.saveLobby?.({ id: 'l1', created: 1, body: '{}' });
      await first.close();
      const second = opened(place);
      expect(await second.relayKey()).toEqual(key);
      expect(await second.lineCount(gameA)).toBe(5);
      expect(await second.readLines(gameA, 0, 10)).toEqual(linesOf(gameA, 0, 5).map(({ line, text, receipt }) => ({ line, text, receipt })));
      if (second.listLobbies !== undefined) expect(await second.listLobbies()).toHaveLength(1);
      // Another place has another key.
      const other = opened(await fresh());
      expect(await other.relayKey()).not.toEqual(key);
    });
  });
}
