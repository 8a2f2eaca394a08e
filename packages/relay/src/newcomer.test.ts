/**
 * Who the relay's door admits (docs/spec/relay.md §3, docs/SPEC.md §4.6): a newcomer's hello is refused
 * (`bad_hello`) until a `newcomer` line naming its id and key stands in the game's log, and the game is
 * unaffected; from that line on the newcomer says hello with that key, its envelopes are checked against it
 * like any player's, and a relay rebuilt from its store admits it again.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { toHex } from '@fairtable/core/bytes.js';
import { envelopeHash, envelopeLine, signEnvelope, type Body, type Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, type KeyPair } from '@fairtable/core/identity.js';
import { signHello } from '@fairtable/core/order/hello.js';
import { MAX_NEWCOMERS } from '@fairtable/core/transcript.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { createGame, diceGame, testRelays, WireClient, type Message, type TestGame } from './test-helpers.js';

const { relay, directory, closeAll } = testRelays();
afterEach(closeAll);

const nia = generateKeyPair(new Uint8Array(32).fill(77));
const other = generateKeyPair(new Uint8Array(32).fill(78));

/** Says hello as `id` with `keys`: the relay's answer (welcome or error) and whether it closed the connection. */
async function hello(url: string, g: TestGame, id: string, keys: KeyPair): Promise<{ answer: Message; client: WireClient }> {
  const c = await WireClient.open(url, g.id);
  const challenge = await c.next('challenge');
  c.send({ kind: 'hello', id, sig: signHello(g.id, challenge.nonce as string, keys.secretKey) });
  for (;;) {
    const m = c.messages.find((x) => x.kind === 'welcome' || x.kind === 'error');
    if (m !== undefined) return { answer: m, client: c };
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** `from`'s envelope number `seq` (after `prev`, having seen `at` lines), signed with `keys`. */
function envelope(g: TestGame, from: string, seq: number, prev: string, body: Body, keys: KeyPair, at = 1, head?: string): Envelope {
  const setup = JSON.parse(g.setupLine) as Envelope;
  return signEnvelope({ v: 1, game: g.id, from, seq, prev, at, head: head ?? envelopeHash(setup), time: 5, body }, keys.secretKey, nativeSign);
}

const transcript = async (url: string, g: TestGame): Promise<string[]> =>
  (await (await fetch(`${url}/games/${g.id}/transcript`)).text()).split('\n').filter((l) => l !== '');

describe("the relay's door and newcomers (SPEC §4.6)", () => {
  it('refuses a newcomer before a newcomer line names it, admits it with that key after, and again after a restart', async () => {
    const dataDir = directory();
    let r = await relay({ dataDir });
    const g = diceGame(2, 5);
    expect((await createGame(r.url, g.setupLine)).status).toBe(201);

    // Before any proposal: the hello is refused with its code, the connection closed, the log untouched.
    const early = await hello(r.url, g, 'nia', nia);
    expect(early.answer).toMatchObject({ kind: 'error', code: 'bad_hello' });
    await early.client.waitClosed();
    expect(await transcript(r.url, g)).toEqual([g.setupLine]);

    // p0 writes the newcomer line (the envelope layer reads only id and key; what it means is the protocol's).
    const p0 = await WireClient.join(r.url, g, 0);
    const setupHash = envelopeHash(JSON.parse(g.setupLine) as Envelope);
    const intro = envelope(g, 'p0', 1, setupHash, { type: 'newcomer', newcomer: { id: 'nia', key: toHex(nia.publicKey) } }, g.keys[0]!);
    p0.send({ kind: 'submit', text: envelopeLine(intro) });
    expect((await p0.next('entry')).line).toBe(1);

    // Another key for the same id is still refused: the door knows nia by the key the line gave it.
    const impostor = await hello(r.url, g, 'nia', other);
    expect(impostor.answer).toMatchObject({ kind: 'error', code: 'bad_hello' });

    const n = (await hello(r.url, g, 'nia', nia)).client;
    // Its envelopes are signature-checked against that key, and it may sign for nobody else.
    n.send({ kind: 'submit', text: envelopeLine(envelope(g, 'nia', 0, g.id, { type: 'note', note: 'forged' }, other)) });
    expect(await n.next('refused')).toMatchObject({ code: 'bad_signature' });
    n.send({ kind: 'submit', text: envelopeLine(envelope(g, 'p1', 0, g.id, { type: 'note', note: 'for p1' }, nia)) });
    expect(await n.next('refused')).toMatchObject({ code: 'not_your_seat' });
    const own = envelopeLine(envelope(g, 'nia', 0, g.id, { type: 'note', note: 'hello' }, nia));
    n.send({ kind: 'submit', text: own });
    expect(await n.next('entry')).toMatchObject({ line: 2, text: own });
    expect(await transcript(r.url, g)).toEqual([g.setupLine, envelopeLine(intro), own]);
    n.ws.close();
    p0.ws.close();

    // A relay rebuilt from its store passes every line through the door again: nia is an author there too.
    await r.close();
    r = await relay({ dataDir });
    const again = await hello(r.url, g, 'nia', nia);
    expect(again.answer).toMatchObject({ kind: 'welcome', lines: 3 });
    again.client.ws.close();
  });

  it(`at most MAX_NEWCOMERS (${MAX_NEWCOMERS}) newcomers a game: a later newcomer line introduces nobody`, async () => {
    const r = await relay();
    const g = diceGame(2, 7);
    expect((await createGame(r.url, g.setupLine)).status).toBe(201);
    const p0 = await WireClient.join(r.url, g, 0);
    let prev = envelopeHash(JSON.parse(g.setupLine) as Envelope);
    const keys = Array.from({ length: MAX_NEWCOMERS + 1 }, (_, i) => generateKeyPair(new Uint8Array(32).fill(100 + i)));
    for (const [i, k] of keys.entries()) {
      const e = envelope(g, 'p0', i + 1, prev, { type: 'newcomer', newcomer: { id: `n${i}`, key: toHex(k.publicKey) } }, g.keys[0]!, i + 1, prev);
      p0.send({ kind: 'submit', text: envelopeLine(e) });
      expect((await p0.next('entry')).line).toBe(i + 1);
      prev = envelopeHash(e);
    }
    const last = await hello(r.url, g, `n${MAX_NEWCOMERS - 1}`, keys[MAX_NEWCOMERS - 1]!);
    expect(last.answer).toMatchObject({ kind: 'welcome' });
    last.client.ws.close();
    expect((await hello(r.url, g, `n${MAX_NEWCOMERS}`, keys[MAX_NEWCOMERS]!)).answer).toMatchObject({ kind: 'error', code: 'bad_hello' });
    p0.ws.close();
  });

  it('a newcomer line that is not well-formed introduces nobody', async () => {
    const r = await relay();
    const g = diceGame(2, 6);
    expect((await createGame(r.url, g.setupLine)).status).toBe(201);
    const p0 = await WireClient.join(r.url, g, 0);
    const setupHash = envelopeHash(JSON.parse(g.setupLine) as Envelope);
    // A key that is not 32 bytes of hex: the line is recorded (the protocol judges it), nobody is made an author.
    p0.send({ kind: 'submit', text: envelopeLine(envelope(g, 'p0', 1, setupHash, { type: 'newcomer', newcomer: { id: 'nia', key: 'ab' } }, g.keys[0]!)) });
    expect((await p0.next('entry')).line).toBe(1);
    expect((await hello(r.url, g, 'nia', nia)).answer).toMatchObject({ kind: 'error', code: 'bad_hello' });
    p0.ws.close();
  });
});
