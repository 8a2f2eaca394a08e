import { describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { generateKeyPair } from '@fairtable/core/identity.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { FetchLike } from './relay-http.js';
import { TableTalk } from './talk.js';

const GAME = '12'.repeat(32);
const ids = ['austria', 'england', 'france'];
const keys = ids.map((_, i) => generateKeyPair(new Uint8Array(32).fill(40 + i)));
const players = ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) }));

/** The relay's talk routes in memory, as talk.ts uses them; `pushed` collects what it would push. */
function fakeRelay() {
  const talk: { index: number; at: number; text: string }[] = [];
  const pushed: { index: number; at: number; text: string }[] = [];
  const fetch: FetchLike = (url, init) => {
    const ok = (status: number, body: unknown) => Promise.resolve({ status, ok: status < 300, text: () => Promise.resolve(JSON.stringify(body)) });
    if (init?.method === 'POST') {
      const t = { index: talk.length, at: 1000 + talk.length, text: init.body! };
      talk.push(t);
      pushed.push(t);
      return ok(201, { index: t.index, at: t.at });
    }
    const from = Number(new URL(url).searchParams.get('from') ?? '0');
    const page = talk.slice(from, from + 2);
    return ok(200, { talk: page, next: from + page.length });
  };
  return { talk, pushed, fetch };
}

const seat = (relay: ReturnType<typeof fakeRelay>, i: number, params: { [k: string]: JsonValue } = { press: { rule: 'full', mode: 'signed' } }) =>
  new TableTalk({
    relayUrl: 'http://relay.test',
    gameId: GAME,
    players,
    params,
    me: { id: ids[i]!, secretKey: keys[i]!.secretKey },
    fetch: relay.fetch,
    clock: () => 5,
  });

describe('TableTalk', () => {
  it('sends, reads back in pages, counts unread, and keeps private press from those it is not for', async () => {
    const relay = fakeRelay();
    const a = seat(relay, 0);
    const e = seat(relay, 1);
    const f = seat(relay, 2);
    const observer = new TableTalk({
      relayUrl: 'http://relay.test',
      gameId: GAME,
      players,
      params: { press: { rule: 'full', mode: 'signed' } },
      fetch: relay.fetch,
    });
    await a.send('table', 'Hello, Europe.');
    await a.send(['england'], 'A word, England.');
    await e.send('table', 'Hello, Austria.');
    for (const t of [e, f, observer]) await t.load();
    expect(e.unread).toBe(2);
    expect(f.unread).toBe(2);
    expect(observer.unread).toBe(2);
    expect(f.entries.map((x) => (x.kind === 'shown' ? x.talk.body : x.kind))).toEqual(['Hello, Europe.', null, 'Hello, Austria.']);
    expect(e.entries.map((x) => (x.kind === 'shown' ? x.talk.body : x.kind))).toEqual(['Hello, Europe.', 'A word, England.', 'Hello, Austria.']);
    expect(observer.canWrite).toBe(false);
    await expect(observer.send('table', 'hi')).rejects.toThrow(/observer/);
    e.markRead();
    expect(e.unread).toBe(0);
    // a pushed message is taken at once; seq continues after a reload of the same seat
    const again = seat(relay, 0);
    await again.load();
    expect(again.unread).toBe(1);
    await again.send('table', 'Third.');
    e.take(relay.pushed[relay.pushed.length - 1]!);
    expect(e.unread).toBe(1);
    await a.load();
    const seqs = a.entries.flatMap((x) => (x.kind === 'shown' && x.talk.mine ? [x.talk.seq] : []));
    // the clock says 5 ms: the first number is 5000 to 5999, each next one above the last read
    expect(seqs.length).toBe(3);
    expect(seqs[0]).toBeGreaterThanOrEqual(5000);
    expect(seqs[0]).toBeLessThan(6000);
    expect(seqs[1]).toBeGreaterThan(seqs[0]!);
    expect(seqs[2]).toBeGreaterThan(seqs[1]!);
    expect(a.entries.every((x) => x.kind === 'shown')).toBe(true);
  });

  it('two devices of one seat writing without reading each other are not taken for equivocation', async () => {
    const relay = fakeRelay();
    // each device posts to the relay and reads nothing back; the clock moves a millisecond a message
    const blind: FetchLike = (url, init) =>
      init?.method === 'POST' ? relay.fetch(url, init) : Promise.resolve({ status: 200, ok: true, text: () => Promise.resolve('{"talk":[],"next":0}') });
    let now = 1_780_000_000_000;
    const device = () =>
      new TableTalk({
        relayUrl: 'http://relay.test',
        gameId: GAME,
        players,
        params: { press: { rule: 'full', mode: 'signed' } },
        me: { id: 'austria', secretKey: keys[0]!.secretKey },
        fetch: blind,
        clock: () => now++,
      });
    const [phone, laptop] = [device(), device()];
    for (let i = 0; i < 20; i++) await (i % 2 === 0 ? phone : laptop).send('table', `message ${i}`);
    const reader = seat(relay, 1);
    await reader.load();
    expect(reader.entries.filter((x) => x.kind === 'refused')).toEqual([]);
    expect(reader.entries.length).toBe(20);
  });

  it('a pushed message past a gap is fetched in order', async () => {
    const relay = fakeRelay();
    const a = seat(relay, 0);
    const f = seat(relay, 2);
    await a.send('table', 'one');
    await a.send('table', 'two');
    let changes = 0;
    f.onChange(() => changes++);
    f.take(relay.pushed[1]!);
    await f.load();
    expect(f.entries.map((x) => x.index)).toEqual([0, 1]);
    expect(changes).toBeGreaterThan(0);
  });

  it('reads the page once, then keeps up from the answers to its posts and the pushes: every message read once, in order', async () => {
    const relay = fakeRelay();
    let reads = 0;
    const a = new TableTalk({
      relayUrl: 'http://relay.test',
      gameId: GAME,
      players,
      params: { press: { rule: 'full', mode: 'signed' } },
      me: { id: ids[0]!, secretKey: keys[0]!.secretKey },
      fetch: (url, init) => {
        if (init?.method !== 'POST') reads++;
        return relay.fetch(url, init);
      },
      clock: () => 5,
    });
    const f = seat(relay, 2);
    await f.send('table', 'before');
    for (let i = 0; i < 6; i++) {
      await a.send(i % 2 === 0 ? 'table' : ['france'], `a ${i}`);
      // The relay pushes every message to every socket of the game, the author's own included.
      a.take(relay.pushed[relay.pushed.length - 1]!);
      await f.send('table', `f ${i}`);
      a.take(relay.pushed[relay.pushed.length - 1]!);
    }
    // The first send read the talk (two pages of the fake relay: one message, then none); nothing after it.
    expect(reads).toBe(2);
    expect(a.entries.map((x) => x.index)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    expect(a.entries.every((x) => x.kind === 'shown')).toBe(true);
    const seqs = a.entries.flatMap((x) => (x.kind === 'shown' && x.talk.mine ? [x.talk.seq] : []));
    expect(seqs).toEqual([...seqs].sort((p, q) => p - q));
    expect(new Set(seqs).size).toBe(6);
  });

  it('an answer that comes before the pushes of earlier messages waits for them; a gap no push fills is read from the pages', async () => {
    const relay = fakeRelay();
    let reads = 0;
    const counting: FetchLike = (url, init) => {
      if (init?.method !== 'POST') reads++;
      return relay.fetch(url, init);
    };
    const a = new TableTalk({
      relayUrl: 'http://relay.test',
      gameId: GAME,
      players,
      params: { press: { rule: 'full', mode: 'signed' } },
      me: { id: ids[0]!, secretKey: keys[0]!.secretKey },
      fetch: counting,
      clock: () => 5,
    });
    await a.send('table', 'first');
    // one read of the (empty) pages before the first post
    expect(reads).toBe(1);
    const f = seat(relay, 2);
    await f.send('table', 'from france');
    await f.send(['austria'], 'to austria');
    // austria's answer (index 3) comes before the pushes of france's two messages (1, 2)
    await a.send('table', 'second');
    expect(a.entries.map((x) => x.index)).toEqual([0]);
    a.take(relay.pushed[2]!);
    a.take(relay.pushed[1]!);
    expect(a.entries.map((x) => x.index)).toEqual([0, 1, 2, 3]);
    expect(a.entries.map((x) => (x.kind === 'shown' ? x.talk.body : x.kind))).toEqual(['first', 'from france', 'to austria', 'second']);
    await new Promise((r) => setTimeout(r, 400));
    expect(reads).toBe(1);
    // france writes again and the push is lost; austria's next answer leaves a gap that only a read fills
    await f.send('table', 'lost push');
    await a.send('table', 'third');
    expect(a.entries.length).toBe(4);
    await new Promise((r) => setTimeout(r, 400));
    expect(reads).toBeGreaterThan(1);
    expect(a.entries.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(a.entries.every((x) => x.kind === 'shown')).toBe(true);
  });

  it('pushes that come during a read, out of order and twice, are each read once and in order', async () => {
    const relay = fakeRelay();
    const a = seat(relay, 0);
    for (let i = 0; i < 7; i++) await a.send(i % 3 === 0 ? ['england'] : 'table', `m ${i}`);
    const e = seat(relay, 1);
    let changes = 0;
    e.onChange(() => changes++);
    const reading = e.load();
    for (const i of [5, 1, 6, 0, 3, 3, 2, 4, 6]) e.take(relay.pushed[i]!);
    await reading;
    expect(e.entries.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(e.entries.map((x) => (x.kind === 'shown' ? x.talk.body : x.kind))).toEqual(['m 0', 'm 1', 'm 2', 'm 3', 'm 4', 'm 5', 'm 6']);
    expect(changes).toBeGreaterThan(0);
    // pushed out of order with no read in progress: kept until the gap is filled, then read in order
    const f = seat(relay, 2);
    for (const i of [2, 1]) f.take(relay.pushed[i]!);
    f.take(relay.pushed[0]!);
    await f.load();
    expect(f.entries.map((x) => x.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(f.entries.filter((x) => x.kind === 'shown' && x.talk.body !== null).map((x) => x.index)).toEqual([1, 2, 4, 5]);
  });

  it('refuses to write what the game’s press rules forbid; table chat is on by default', async () => {
    const relay = fakeRelay();
    const publicOnly = seat(relay, 0, { press: { rule: 'public', mode: 'signed' } });
    await expect(publicOnly.send(['england'], 'psst')).rejects.toThrow(/public press only/);
    const none = seat(relay, 0, { press: { rule: 'none', mode: 'signed' } });
    await expect(none.send('table', 'hi')).rejects.toThrow(/no press/);
    const plain = seat(relay, 0, {});
    expect(plain.rules).toEqual({ rule: 'public', mode: 'signed' });
    expect(plain.canWritePrivately).toBe(false);
    await plain.send('table', 'hi');
    expect(relay.talk.length).toBe(1);
  });

  it('deniable press: recipients read and know the author; nothing is signed', async () => {
    const relay = fakeRelay();
    const params = { press: { rule: 'full', mode: 'deniable' } };
    const a = seat(relay, 0, params);
    const f = seat(relay, 2, params);
    await a.send(['france'], 'Deniably yours.');
    await f.load();
    expect(f.entries[0]).toMatchObject({ kind: 'shown', talk: { body: 'Deniably yours.', proof: 'deniable' } });
    expect(relay.talk[0]!.text).not.toContain('"sig"');
  });

  it('tries a post again after a network failure, and a message the relay kept twice is shown once, naming nobody', async () => {
    const relay = fakeRelay();
    let failures = 0;
    // The relay keeps the first post, then the answer is lost on the network: the worst case for a retry.
    const lossy: FetchLike = async (url, init) => {
      const answer = await relay.fetch(url, init);
      if (init?.method === 'POST' && failures++ === 0) throw new TypeError('fetch failed');
      return answer;
    };
    const writer = new TableTalk({
      relayUrl: 'http://relay.test',
      gameId: GAME,
      players,
      params: { press: { rule: 'full', mode: 'signed' } },
      me: { id: ids[0]!, secretKey: keys[0]!.secretKey },
      fetch: lossy,
      clock: () => 5,
    });
    await writer.send('table', 'Once only.');
    expect(relay.talk).toHaveLength(2);
    expect(relay.talk[0]!.text).toBe(relay.talk[1]!.text);
    const reader = seat(relay, 1);
    await reader.load();
    expect(reader.entries).toHaveLength(1);
    expect(reader.entries[0]!.kind).toBe('shown');
    expect(reader.unread).toBe(1);

    // A failure on every try is the caller's error, after three tries.
    let tries = 0;
    const down = new TableTalk({
      relayUrl: 'http://relay.test',
      gameId: GAME,
      players,
      params: { press: { rule: 'full', mode: 'signed' } },
      me: { id: ids[0]!, secretKey: keys[0]!.secretKey },
      fetch: (url, init) => {
        if (init?.method === 'POST') {
          tries++;
          return Promise.reject(new TypeError('fetch failed'));
        }
        return relay.fetch(url, init);
      },
      clock: () => 5,
    });
    await expect(down.send('table', 'Nobody hears this.')).rejects.toThrow('fetch failed');
    expect(tries).toBe(3);
  });
});
