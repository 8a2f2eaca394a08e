/**
 * Press by mail and draft orders (docs/spec/mail.md §13, §11.2): three powers and a recorder who does not play
 * exchange private and public press through the post office over a phase, each reads exactly what it should, a
 * third power cannot read the private press from anything in its folder, forged and altered press is refused
 * naming only whoever signed it, the game's press rules are kept, press never enters the log, and in a
 * revisable game a draft is replaced by a later decide and then made final.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readdirSync, readFileSync, rmSync, mkdtempSync, writeFileSync, existsSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import { toHex } from '@fairtable/core/bytes.js';
import type { Envelope } from '@fairtable/core/envelope.js';
import { generateKeyPair, sign, toKeyFile, toPublicKeyFile, type KeyPair } from '@fairtable/core/identity.js';
import { parseTalk, talkSigningBytes, talkText, unwrapContentKey, writeTalk, type TalkMessage } from '@fairtable/core/press/index.js';
import { diplomacyRegistry } from '@fairtable/diplomacy/protocol/index.js';
import { armorMessage, mailNew, mailOrders, mailPress, mailRead, mailReady, mailStatus, mailTranscript, readMail, type MailResult } from './index.js';
import { PostOffice, asEmail, type Participant } from './post-office.js';

const root = mkdtempSync(join(tmpdir(), 'fairtable-press-mail-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const keysOf = new Map<string, KeyPair>();

function people(tag: string): Participant[] {
  return ['ann', 'ben', 'cat', 'rita'].map((id, i) => {
    const keys = generateKeyPair(new Uint8Array(32).fill(i + 41 + tag.length));
    keysOf.set(`${tag}/${id}`, keys);
    const key = join(root, `${tag}-${id}.json`);
    writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
    writeFileSync(join(root, `${tag}-${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
    return { id, dir: join(root, tag, id), key };
  });
}

/** A Diplomacy game by mail, powers in seat order (ann Austria, ben England, cat France), rita recording. */
function game(tag: string, o: { press?: { rule: string; mode: string }; revisable?: boolean }): { ps: Participant[]; post: PostOffice } {
  const ps = people(tag);
  mailNew({
    protocol: 'diplomacy',
    dir: ps[0]!.dir,
    key: ps[0]!.key,
    players: ps.map((p) => join(root, `${tag}-${p.id}.pub.json`)),
    recorder: 'rita',
    diplomacy: { years: 1, assign: 'fixed', ...(o.revisable === true ? { revisable: true } : {}) },
    ...(o.press === undefined ? {} : { press: o.press }),
    timeout: '3d',
  });
  const post = new PostOffice(ps, { wrap: (text, from, to, n) => (n % 2 === 0 ? asEmail(text, from, to) : text), twice: (n) => n % 3 === 0 });
  deliver(post, ps);
  return { ps, post };
}

/** Rounds of mail until nothing is left to deliver: every participant reads what reached it and mails its outbox. */
function deliver(post: PostOffice, ps: readonly Participant[]): Map<string, MailResult> {
  const last = new Map<string, MailResult>();
  for (let round = 0; round < 12; round++) {
    for (const p of ps) post.collect(p);
    if (post.waiting === 0) break;
    for (const p of ps) {
      const texts = post.take(p);
      if (texts.length === 0) continue;
      last.set(
        p.id,
        mailRead(
          p.dir,
          texts.map((text, i) => ({ name: `mail ${round}.${i}`, text })),
          p.key,
        ),
      );
    }
  }
  return last;
}

/** Every file in a folder, as text (what a player holds on disk). */
function folderText(dir: string): string {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const f of readdirSync(d)) {
      const path = join(d, f);
      if (statSync(path).isDirectory()) walk(path);
      else out.push(readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return out.join('\n');
}

const transcript = (p: Participant): string[] => {
  const out = join(root, `${p.id}-${Math.random().toString(36).slice(2)}.jsonl`);
  mailTranscript(p.dir, out);
  return readFileSync(out, 'utf8').trimEnd().split('\n');
};

/** Press from `from` in a mail of its own, as its folder would write it (for messages made by hand). */
const pressMail = (game: string, from: string, m: TalkMessage | string): string =>
  armorMessage({ kind: 'press', game, from, lines: [typeof m === 'string' ? m : talkText(m)] });

describe('press by mail', () => {
  it('two powers exchange private press and one writes to all over a phase: each reads exactly what it should; the game goes on', () => {
    const { ps, post } = game('talk', { press: { rule: 'full', mode: 'signed' } });
    const [ann, ben, cat, rita] = ps as [Participant, Participant, Participant, Participant];
    const secret = 'Austria to England: I move to Galicia, not Tyrolia.';
    const reply = 'England to Austria: understood, I keep the Channel.';
    const open = 'France to all: peace on the Rhine.';
    expect(mailPress(ann.dir, 'england', secret).notes.join('\n')).toContain('press written to ben (England), sealed to their keys');
    expect(mailPress(ben.dir, 'ann', reply).written).toHaveLength(1);
    mailPress(cat.dir, 'all', open);
    deliver(post, ps);

    const bodies = (r: MailResult): (string | null)[] => r.press!.items.map((i) => i.body).sort((a, b) => String(a).localeCompare(String(b)));
    const views = Object.fromEntries(ps.map((p) => [p.id, mailStatus(p.dir)])) as Record<string, MailResult>;
    expect(bodies(views.ann!)).toEqual([secret, reply, open].sort());
    expect(bodies(views.ben!)).toEqual([secret, reply, open].sort());
    // cat and the recorder see that ann and ben wrote to each other (who, when, how long), never what
    for (const id of ['cat', 'rita']) {
      const v = views[id]!;
      expect(v.press!.items).toHaveLength(3);
      expect(v.press!.items.filter((i) => i.body === null).map((i) => [i.from, i.to])).toEqual(
        expect.arrayContaining([
          ['ann', ['ben']],
          ['ben', ['ann']],
        ]),
      );
      expect(v.press!.items.find((i) => i.from === 'cat')!.body).toBe(open);
    }
    // unread: what came from others that this reader can read, until status showed it
    expect(views.ann!.press!.unread).toBe(2);
    expect(views.cat!.press!.unread).toBe(0);
    expect(mailStatus(ann.dir).press!.unread).toBe(0);
    // an honest conversation: nothing refused, nobody named
    for (const v of Object.values(views)) expect(v.press!.refused).toEqual([]);

    // the recorder forwarded the phase's press in its mail; cat's folder holds the private messages sealed only
    const forwarded = readdirSync(join(rita.dir, 'sent'))
      .flatMap((f) => readMail(readFileSync(join(rita.dir, 'sent', f), 'utf8')))
      .filter((m) => m.kind === 'press');
    expect(forwarded.flatMap((m) => (m.kind === 'press' ? m.lines : [])).length).toBeGreaterThanOrEqual(3);
    // cat's folder, and every mail cat received (what ann, ben and the recorder sent to the list)
    const catFiles = folderText(cat.dir) + folderText(rita.dir) + folderText(join(ann.dir, 'sent')) + folderText(join(ben.dir, 'sent'));
    for (const words of [secret, reply, 'Galicia', 'Channel']) expect(catFiles).not.toContain(words);
    const privates = readFileSync(join(cat.dir, 'press.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => parseTalk((JSON.parse(l) as { text: string }).text))
      .filter((m) => Array.isArray(m.to));
    expect(privates).toHaveLength(2);
    for (const m of privates) expect(() => unwrapContentKey(m, 'cat', keysOf.get('talk/cat')!.secretKey)).toThrow();

    // the phase goes on: everyone orders, the recorder records, press never enters the log
    mailOrders(ann.dir, 'A Vie-Gal\n');
    mailOrders(ben.dir, '');
    mailOrders(cat.dir, '');
    deliver(post, ps);
    const lines = transcript(ann);
    for (const p of [ben, cat, rita]) expect(transcript(p)).toEqual(lines);
    expect(lines.join('\n')).not.toContain('peace on the Rhine');
    const verdict = auditLines(lines, { registry: diplomacyRegistry });
    expect(verdict.violations).toEqual([]);
    expect(mailStatus(ben.dir).results?.orders).toContainEqual(expect.objectContaining({ power: 'austria', order: 'A vie - gal', status: 'succeeded' }));
  }, 180_000);

  it('forged or altered press is refused; only the seat whose key signed it is named, never the honest author', () => {
    const { ps, post } = game('forge', { press: { rule: 'full', mode: 'signed' } });
    const [ann, ben, cat, rita] = ps as [Participant, Participant, Participant, Participant];
    mailPress(ann.dir, 'england', 'Hold Galicia with me.');
    deliver(post, ps);
    const gameId = mailStatus(ann.dir).status.game;
    const honest = readFileSync(join(ben.dir, 'press.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => parseTalk((JSON.parse(l) as { text: string }).text))
      .find((m) => m.from === 'ann')!;
    // cat writes in ann's name, with cat's own key
    const players = ps.slice(0, 3).map((p) => ({ id: p.id, key: toHex(keysOf.get(`forge/${p.id}`)!.publicKey) }));
    const catKey = keysOf.get('forge/cat')!.secretKey;
    const own = writeTalk(
      { game: gameId, from: 'cat', to: 'table', seq: 7, at: 1_000, body: 'Austria will stab England.' },
      { mode: 'signed', secretKey: catKey, players, random: (n) => new Uint8Array(n).fill(3) },
    );
    const { sig: _, ...unsigned } = { ...own, from: 'ann' };
    const forged = { ...unsigned, sig: toHex(sign(talkSigningBytes(unsigned as TalkMessage), catKey)) } as TalkMessage;
    // ann's own private message with its ciphertext altered (by a carrier, or anyone)
    const box = honest.sealed!.box;
    const altered = { ...honest, sealed: { ...honest.sealed!, box: (box[0] === '0' ? '1' : '0') + box.slice(1) } };
    const texts = [
      { name: 'forged', text: asEmail(pressMail(gameId, 'ann', forged), 'ann', 'ben') },
      { name: 'altered', text: pressMail(gameId, 'ann', altered) },
      { name: 'junk', text: pressMail(gameId, 'ann', '{"not":"talk"}') },
    ];
    const read = mailRead(ben.dir, texts);
    expect(read.notes.join('\n')).toContain('press refused: [talk_forged] names cat');
    expect(read.refused).toEqual([]);
    const recorder = mailRead(rita.dir, texts);
    expect(recorder.notes.join('\n')).toContain('press not forwarded: [talk_forged] cat');
    expect(recorder.written).toEqual([]);
    for (const p of [ben, rita]) {
      const findings = mailStatus(p.dir).press!.refused;
      expect(findings.map((f) => [f.code, f.player]).sort()).toEqual([
        ['talk_bad_signature', null],
        ['talk_forged', 'cat'],
        ['talk_malformed', null],
      ]);
    }
    // the game did not stall: ben still orders, the phase goes on, the audit names nobody
    expect(mailStatus(ben.dir).status.decision?.kind).toBe('orders');
    for (const p of [ann, ben, cat]) mailOrders(p.dir, '');
    deliver(post, ps);
    const verdict = auditLines(transcript(ann), { registry: diplomacyRegistry });
    expect(verdict.violations).toEqual([]);
    expect(mailStatus(ann.dir).results?.label).toBe('S1901M');
  }, 180_000);

  it('the press rules of the setup: public only refuses private press, none refuses all; a private message made anyway names its author', () => {
    const { ps, post } = game('public', { press: { rule: 'public', mode: 'signed' } });
    const [ann, ben] = ps as [Participant, Participant];
    expect(() => mailPress(ann.dir, 'england', 'psst')).toThrow(expect.objectContaining({ code: 'no_press' }));
    expect(() => mailPress(ann.dir, 'all,england', 'psst')).toThrow(expect.objectContaining({ code: 'bad_input' }));
    expect(() => mailPress(ann.dir, 'ann', 'me')).toThrow(expect.objectContaining({ code: 'bad_input' }));
    expect(() => mailPress(ann.dir, 'nowhere', 'x')).toThrow(/--to: "nowhere" is no power or seat/);
    expect(() => mailPress(ps[3]!.dir, 'all', 'the recorder')).toThrow(expect.objectContaining({ code: 'bad_input' }));
    expect(readdirSync(join(ann.dir, 'outbox'))).toEqual([]);
    mailPress(ann.dir, 'observers', 'For the record: Austria holds.');
    deliver(post, ps);
    expect(mailStatus(ben.dir).press!.items.map((i) => [i.from, i.to, i.body])).toEqual([['ann', 'observers', 'For the record: Austria holds.']]);
    // ann's own program writes private press anyway: refused by every reader, ann named on her signature
    const gameId = mailStatus(ann.dir).status.game;
    const players = ps.slice(0, 3).map((p) => ({ id: p.id, key: toHex(keysOf.get(`public/${p.id}`)!.publicKey) }));
    const m = writeTalk(
      { game: gameId, from: 'ann', to: ['ben'], seq: 99, at: 5, body: 'psst' },
      { mode: 'signed', secretKey: keysOf.get('public/ann')!.secretKey, players, random: (n) => new Uint8Array(n).fill(9) },
    );
    expect(mailRead(ben.dir, [{ name: 'x', text: pressMail(gameId, 'ann', m) }]).notes.join('\n')).toContain('press refused: [talk_rule] names ann');

    const none = game('nopress', { press: { rule: 'none', mode: 'signed' } });
    expect(() => mailPress(none.ps[1]!.dir, 'all', 'hello')).toThrow(expect.objectContaining({ code: 'no_press' }));
  });
});

describe('press in other games by mail', () => {
  it('a recorder who plays sends its own press with its mail; a game without press rules has table chat', () => {
    const ps = people('dice').slice(0, 2);
    const [ann, ben] = ps as [Participant, Participant];
    mailNew({ protocol: 'dice', dir: ann.dir, key: ann.key, players: ps.map((p) => join(root, `dice-${p.id}.pub.json`)), turns: 1 });
    const post = new PostOffice(ps);
    deliver(post, ps);
    expect(() => mailPress(ann.dir, 'ben', 'private')).toThrow(expect.objectContaining({ code: 'no_press' }));
    const r = mailPress(ann.dir, 'all', 'Good luck, Ben.');
    expect(r.notes.join('\n')).toContain('it goes out with your next mail');
    expect(r.written).toEqual([expect.stringMatching(/-press-ann\.txt$/)]);
    deliver(post, ps);
    const seen = mailStatus(ben.dir).press!;
    expect(seen.rules).toEqual({ rule: 'public', mode: 'signed' });
    expect(seen.items.map((i) => [i.from, i.to, i.body, i.proof, i.unread])).toEqual([['ann', 'table', 'Good luck, Ben.', 'signed', true]]);
  });
});

describe('draft orders by mail', () => {
  it('a draft is replaced by a later decide, made final with mail ready, and the last orders count', () => {
    expect(() =>
      mailNew({
        protocol: 'diplomacy',
        dir: join(root, 'sealed-draft'),
        key: people('x')[0]!.key,
        players: ['ann', 'ben', 'cat'].map((id) => join(root, `x-${id}.pub.json`)),
        diplomacy: { revisable: true },
        sealed: ['commit'],
      }),
    ).toThrow(expect.objectContaining({ code: 'bad_input', field: 'sealed' }));
    const { ps, post } = game('draft', { revisable: true });
    const [ann, ben, cat] = ps as [Participant, Participant, Participant];
    // a game made without --revisable takes no drafts
    const fixed = game('final', {});
    expect(() => mailOrders(fixed.ps[0]!.dir, 'A Vie-Gal\n', undefined, { draft: true })).toThrow(expect.objectContaining({ code: 'illegal_choice' }));
    expect(() => mailReady(fixed.ps[0]!.dir)).toThrow(expect.objectContaining({ code: 'illegal_choice' }));

    expect(() => mailReady(ann.dir)).toThrow(expect.objectContaining({ code: 'illegal_choice' }));
    const first = mailOrders(ann.dir, 'A Vie-Gal\n', undefined, { draft: true });
    expect(first.orders).toBe('draft');
    deliver(post, ps);
    // once the recorder has the draft in the log, the orders are asked again: a new answer replaces it
    const drafted = mailStatus(ann.dir);
    expect(drafted.orders).toBe('draft');
    expect(drafted.status.decision?.kind).toBe('orders');
    // the second thoughts replace the first, still a draft
    expect(mailOrders(ann.dir, 'A Vie-Tyr\n', undefined, { draft: true }).orders).toBe('draft');
    deliver(post, ps);
    mailOrders(ben.dir, '');
    mailOrders(cat.dir, '');
    deliver(post, ps);
    // the phase waits for ann's ready (her draft is in the log)
    expect(mailStatus(ben.dir).status.next.what).toContain('ann');
    const ready = mailReady(ann.dir);
    expect(ready.orders).toBe('final');
    expect(ready.status.decision).toBeNull();
    deliver(post, ps);
    const lines = transcript(ann);
    for (const p of ps.slice(1)) expect(transcript(p)).toEqual(lines);
    const bodies = lines.slice(1).map((l) => (JSON.parse(l) as Envelope).body);
    const anns = lines
      .slice(1)
      .map((l) => JSON.parse(l) as Envelope)
      .filter((e) => e.from === 'ann')
      .map((e) => [e.body.type, e.body.ready ?? null]);
    expect(anns.slice(0, 3)).toEqual([
      ['commit', false],
      ['commit', false],
      ['ready', null],
    ]);
    expect(bodies.filter((b) => b.type === 'reveal').length).toBe(3);
    const verdict = auditLines(lines, { registry: diplomacyRegistry });
    expect(verdict.violations).toEqual([]);
    const results = mailStatus(ben.dir).results!;
    expect(results.label).toBe('S1901M');
    expect(results.orders).toContainEqual(expect.objectContaining({ power: 'austria', order: 'A vie - tyr', status: 'succeeded' }));
    expect(results.orders.some((o) => o.order === 'A vie - gal')).toBe(false);
    expect(existsSync(join(ann.dir, 'press.jsonl'))).toBe(false);
  }, 180_000);
});

describe('the commands', () => {
  const cli = join(fileURLToPath(new URL('../../../..', import.meta.url)), 'packages/cli/bin/fairtable.js');
  const run = (args: string[]) => spawnSync(process.execPath, [cli, 'mail', ...args], { encoding: 'utf8', cwd: root });

  it('mail press, mail status --json, mail decide --draft and mail ready, as separate processes', () => {
    const { ps, post } = game('cli', { press: { rule: 'full', mode: 'deniable' }, revisable: true });
    const [ann, ben] = ps as [Participant, Participant];
    const press = run(['press', '--dir', ann.dir, '--to', 'england,France', 'Shall', 'we', 'split', 'Germany?']);
    expect(press.stderr).toBe('');
    expect(press.stdout).toContain('press written to ben (England), cat (France), sealed to their keys');
    writeFileSync(join(root, 'cli-orders.txt'), 'A Vie-Gal\n');
    expect(run(['decide', '--dir', ann.dir, '--orders', join(root, 'cli-orders.txt'), '--draft']).stdout).toContain('sent as a draft');
    deliver(post, ps);
    const status = JSON.parse(run(['status', '--dir', ben.dir, '--json']).stdout) as MailResult['status'] & { press: MailResult['press'] };
    expect(status.press).toMatchObject({ rules: { rule: 'full', mode: 'deniable' }, unread: 1 });
    expect(status.press!.items.map((i) => [i.from, i.to, i.body, i.proof])).toEqual([['ann', ['ben', 'cat'], 'Shall we split Germany?', 'deniable']]);
    const mine = run(['status', '--dir', ann.dir]).stdout;
    expect(mine).toContain('your orders for this phase: a DRAFT');
    expect(mine).toMatch(/#0 \S+ ann \(Austria\) to ben \(England\), cat \(France\), private, deniable: Shall we split Germany\?/);
    expect(run(['ready', '--dir', ann.dir]).stdout).toContain('your draft is final');
    expect(mailStatus(ann.dir).orders).toBe('final');
  }, 180_000);
});
