/**
 * Diplomacy by mail (docs/spec/mail.md §11): three players and a recorder who does not play (seed 003's third
 * party who collects the hashes) play two game years through the post office, mail wrapped, quoted,
 * duplicated and late; one player writes every orders file in the seed's notation, the others answer at
 * random; the transcripts are identical and audit valid; a bad orders file is refused naming its line, and
 * tampered mail is refused.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { auditLines } from '@fairtable/core/audit.js';
import type { Envelope } from '@fairtable/core/envelope.js';
import type { Violation } from '@fairtable/core/errors.js';
import { generateKeyPair, toKeyFile, toPublicKeyFile } from '@fairtable/core/identity.js';
import type { Decision } from '@fairtable/core/protocols/machine.js';
import { simStrategy } from '@fairtable/core/testing';
import { Referee } from '@fairtable/core/referee.js';
import { diplomacyRegistry, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { type MailResult, mailNew, mailOrders, mailPrefs, mailRead, mailStatus, mailText, mailTranscript, readMail } from './index.js';
import { PostOffice, asEmail, asQuotedReply, type Participant } from './post-office.js';
import { runInProcess } from '../in-process.js';

const root = mkdtempSync(join(tmpdir(), 'fairtable-diplomacy-mail-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function people(tag: string): Participant[] {
  return ['ann', 'ben', 'cat', 'rita'].map((id, i) => {
    const keys = generateKeyPair(new Uint8Array(32).fill(i + 1 + tag.length * 13));
    const key = join(root, `${tag}-${id}.json`);
    writeFileSync(key, JSON.stringify(toKeyFile(id, keys)));
    writeFileSync(join(root, `${tag}-${id}.pub.json`), JSON.stringify(toPublicKeyFile(id, keys.publicKey)));
    return { id, dir: join(root, tag, id), key };
  });
}

const transcript = (p: Participant): string[] => {
  const out = join(root, `${p.id}-${Math.random().toString(36).slice(2)}.jsonl`);
  mailTranscript(p.dir, out);
  return readFileSync(out, 'utf8').trimEnd().split('\n');
};

/** A canonical order as a player writes it in seed 003's notation: `A par - bur` → `A Par-Bur`, `F stp/sc` → `F StP/SC`. */
const seedNotation = (order: string): string =>
  order
    .replace(
      /\b([a-z])([a-z]{2})(?:\/([a-z]{2}))?\b/g,
      (_, a: string, b: string, c?: string) => `${a.toUpperCase()}${b}${c === undefined ? '' : `/${c.toUpperCase()}`}`,
    )
    .replace(/ - /g, '-');

/** Ann's first orders, written by hand (with a wrong unit letter for the fleet in Brest), in the seed's notation. */
const FIRST_ORDERS = `# France, spring 1901
A Par-Bur

A Bre-MAO
A Mar S A Par-Bur
`;

/**
 * Ann's orders for a later phase, written in the seed's notation from what the decision offers: a move
 * where a unit has one (the k-th, turning with the phase), retreats, builds on distinct centres, removals.
 */
function ordersFor(d: Decision, turn: number): string {
  const fields = d.choices.type === 'record' ? d.choices.fields : {};
  const lines = ['# written by ann'];
  const built = new Set<string>();
  for (const [key, field] of Object.entries(fields)) {
    if (field.type !== 'one-of') continue;
    const values = field.values.map(String);
    if (key.startsWith('remove')) {
      lines.push(`Remove ${values[Number(key.split(' ')[1]) - 1]!.replace(/^Remove /, '')}`);
      continue;
    }
    if (key.startsWith('build')) {
      const build = values.find((v) => v !== values[0] && !built.has(v.split(' ').slice(-1)[0]!.slice(0, 3)));
      if (build === undefined) continue;
      built.add(build.split(' ').slice(-1)[0]!.slice(0, 3));
      lines.push(build);
      continue;
    }
    const moves = values.filter((v) => / - /.test(v) && !/ S /.test(v));
    lines.push(moves.length === 0 ? values[0]! : moves[turn % moves.length]!);
  }
  return lines.map((l) => (l.startsWith('#') ? l : seedNotation(l))).join('\n') + '\n';
}

describe('Diplomacy by mail', () => {
  it('three players and a recorder play two years through wrapped, quoted, doubled and late mail; one writes orders files', () => {
    const tag = 'play';
    const ps = people(tag);
    const [ann, ben, cat, rita] = ps as [Participant, Participant, Participant, Participant];
    const created = mailNew({
      protocol: 'diplomacy',
      dir: ann.dir,
      key: ann.key,
      players: ps.map((p) => join(root, `${tag}-${p.id}.pub.json`)),
      recorder: 'rita',
      diplomacy: { years: 2 },
      timeout: '3d',
    });
    expect(created.status.decision?.kind).toBe('preferences');
    const post = new PostOffice(ps, {
      wrap: (text, from, to, n) =>
        n % 3 === 0 ? asEmail(text, from, to) : n % 3 === 1 ? asQuotedReply(text, from, to, 1 + (n % 2)) : asEmail(text, from, to).replace(/\n/g, '\r\n'),
      twice: (n) => n % 4 === 0,
      hold: (n) => (n % 5 === 0 ? 2 : 0),
    });
    const random = simStrategy(new Uint8Array(32).fill(7));
    const prefs: Record<string, string> = { ann: 'F', ben: 'E(GA)', cat: '(GR)A' };
    const written: { label: string; text: string; notes: readonly string[] }[] = [];
    let firstResults: MailResult['results'] = null;
    let turn = 0;
    const last = post.play((_who, d) => random(d), {
      maxRounds: 400,
      answer: (p, d) => {
        if (d.kind === 'preferences') return mailPrefs(p.dir, prefs[p.id]!);
        if (p.id !== 'ann') return null;
        const status = mailStatus(p.dir);
        const label = /\(([SFW]\d{4}[MRA])\)/.exec(status.board)?.[1] ?? '?';
        // The folder wrote the orders file to fill in, with the position and the orders offered.
        const template = join(p.dir, `orders-${label}.txt`);
        expect(existsSync(template), template).toBe(true);
        if (label === 'F1901M') firstResults = status.results;
        const text = label === 'S1901M' ? FIRST_ORDERS : ordersFor(d, turn++);
        if (label === 'S1901M') {
          const t = readFileSync(template, 'utf8');
          expect(t).toMatch(/^# France's orders for Spring 1901, movement \(S1901M\)/);
          expect(t).toContain('#     A par - bur');
          expect(t).toMatch(/^A par H$/m);
          // The position and the orders offered are in the status and in the mail the recorder sent.
          expect(status.board).toContain('Spring 1901, movement (S1901M)');
          expect(status.board).toMatch(/France \(ann\): F bre, A mar, A par/);
          expect(status.board).toContain("France's orders (ann) for Spring 1901, movement");
          expect(status.board).toMatch(/^ {4}A mar S A par - bur$/m);
          // Bad files are refused, naming the line, and nothing is sent.
          const before = readdirSync(join(p.dir, 'outbox')).length;
          expect(() => mailOrders(p.dir, 'A Par-Bur\nA Par-Pic\n')).toThrow(/^line 2: "A Par-Pic": par already has an order/);
          expect(() => mailOrders(p.dir, '# mine\nA Par-Xyz\n')).toThrow(expect.objectContaining({ code: 'unknown_province', field: 'line 2' }));
          expect(() => mailOrders(p.dir, 'F Kie-Hol\n')).toThrow(expect.objectContaining({ code: 'illegal_order', field: 'line 1' }));
          expect(() => mailOrders(p.dir, 'A Par-Mun\n')).toThrow(/line 1: "A Par-Mun": par does not border mun/);
          expect(() => mailPrefs(p.dir, 'F')).toThrow(expect.objectContaining({ code: 'illegal_choice' }));
          expect(readdirSync(join(p.dir, 'outbox'))).toHaveLength(before);
        }
        const r = mailOrders(p.dir, text);
        written.push({ label, text, notes: r.notes });
        return r;
      },
    });
    expect(last.map((r) => r.status.done)).toEqual([true, true, true, true]);
    for (const r of last) expect(r.status.problems).toEqual([]);

    const lines = transcript(ann);
    for (const p of [ben, cat, rita]) expect(transcript(p)).toEqual(lines);
    const verdict = auditLines(lines, { registry: diplomacyRegistry });
    expect(verdict.violations).toEqual([]);
    expect(verdict.valid).toBe(true);
    const summary = verdict.outcome!.summary as { phase: string; powers: Record<string, string> };
    expect(summary.phase).toBe('S1903M');
    expect(summary.powers).toMatchObject({ ann: 'france', ben: 'england' });

    // Ann wrote every phase's orders as a file; the wrong unit letter was read under the game's typo rule.
    const labels = written.map((w) => w.label);
    expect(labels.slice(0, 3)).toEqual(['S1901M', 'F1901M', 'W1901A']);
    expect(labels).toContain('S1902M');
    expect(written[0]!.notes.join('\n')).toContain('line 4: "A Bre-MAO": the unit is a fleet: read as "F bre - mao" (this game ignores unit letters)');
    // What she committed to and revealed is what she wrote, every phase.
    const envelopes = lines.slice(1).map((l) => JSON.parse(l) as Envelope);
    const reveals = envelopes.filter((e) => e.from === 'ann' && e.body.type === 'reveal').map((e) => (e.body.opening as { value: unknown }).value);
    expect(reveals[1]).toBe('F bre - mao\nA mar S A par - bur\nA par - bur');
    expect(reveals.length).toBe(written.length + 1);
    // Every set of commitments was recorded whole: the recorder held them until all three were in.
    const commits = envelopes.filter((e) => e.body.type === 'commit');
    for (const round of new Set(commits.map((e) => e.body.round))) expect(commits.filter((e) => e.body.round === round)).toHaveLength(3);
    expect(commits.filter((e) => e.body.label === 'S1902M')).toHaveLength(3);
    // After the spring, mail status showed every power's orders with what came of each: the machine's own
    // adjudication of the phase, and France's support given and fleet moved.
    const judge = new Referee(lines[0]!, null, undefined, { registry: diplomacyRegistry, keepEvents: true });
    lines.slice(1).forEach((text, i) => judge.feedText(i + 1, text));
    const spring = judge.events.find((e) => e.type === 'adjudicated' && e.phase === 'S1901M')!;
    const shown = firstResults as MailResult['results'];
    expect(shown?.label).toBe('S1901M');
    expect(shown?.orders).toEqual(spring.results);
    expect(new Set(shown?.orders.map((o) => o.power))).toEqual(
      new Set(['france', 'england', Object.values(summary.powers).find((x) => x !== 'france' && x !== 'england')]),
    );
    expect(shown?.orders.filter((o) => o.power === 'france' && o.order !== 'A par - bur').map((o) => [o.order, o.status])).toEqual([
      ['F bre - mao', 'succeeded'],
      ['A mar S A par - bur', 'succeeded'],
    ]);
    // The recorder's mail that carried the spring's adjudication said the same, in words, to everyone.
    const recorded = readdirSync(join(rita.dir, 'sent'))
      .map((f) => readFileSync(join(rita.dir, 'sent', f), 'utf8'))
      .filter((t) => /^Results of the .* \(S1901M\):$/m.test(t));
    expect(recorded).toHaveLength(1);
    expect(recorded[0]).toMatch(/^ {2}France:\n {4}F bre - mao: moved\n {4}A mar S A par - bur: support given\n {4}A par - bur: /m);

    // Mail altered in transit is refused by its checksum; an envelope altered inside and armored again, by its signature.
    const sent = readdirSync(join(ann.dir, 'sent')).sort();
    const reveal = sent
      .map((f) => readFileSync(join(ann.dir, 'sent', f), 'utf8'))
      .find((t) => readMail(t).some((m) => m.kind === 'submission' && m.line.includes('"type":"reveal"') && m.line.includes('A par - bur')))!;
    const armored = reveal.split('\n');
    const i = armored.findIndex((l) => l.startsWith('-----BEGIN')) + 3;
    armored[i] = armored[i]!.slice(0, 10) + (armored[i]![10] === 'A' ? 'B' : 'A') + armored[i]!.slice(11);
    const refused = mailRead(ben.dir, [{ name: 'altered', text: armored.join('\n') }]);
    expect(refused.refused.join('\n')).toMatch(/altered: \[bad_checksum\]/);
    const m = readMail(reveal).find((x) => x.kind === 'submission')!;
    if (m.kind !== 'submission') throw new Error('expected a submission');
    const forged = { ...m, line: m.line.replace('A par - bur', 'A par - pic') };
    expect(forged.line).not.toBe(m.line);
    const r = mailRead(rita.dir, [{ name: 'forged', text: mailText(forged) }]);
    expect(r.status.problems.map((p) => [p.code, p.player])).toEqual([['bad_signature', 'ann']]);
    expect(transcript(rita)).toEqual(lines);
    // About 30 s on a quiet machine; 65 s once when other tests loaded it.
  }, 180_000);
});

describe('Diplomacy by mail, a player away', () => {
  it('a player who sends nothing is named once each deadline has passed, and its units hold', () => {
    const tag = 'away';
    const ps = people(tag);
    const [ann, ben, , rita] = ps as [Participant, Participant, Participant, Participant];
    let now = Date.UTC(2026, 10, 1);
    const clock = (): number => now;
    mailNew({
      protocol: 'diplomacy',
      dir: ann.dir,
      key: ann.key,
      players: ps.map((p) => join(root, `${tag}-${p.id}.pub.json`)),
      recorder: 'rita',
      diplomacy: { years: 1, assign: 'fixed' },
      timeout: '1d',
      clock,
    });
    // Cat (France) never reads her mail: every phase waits for her until its deadline, a day.
    const post = new PostOffice(ps);
    const random = simStrategy(new Uint8Array(32).fill(9));
    const away = (who: string): boolean => who === 'cat';
    let last: MailResult[] = [];
    for (let step = 1; step <= 40; step++) {
      last = post.play((_who, d) => random(d), { maxRounds: step * 6, clock, tick: true, away });
      if (last.length === 3 && last.every((r) => r.status.done)) break;
      now += 12 * 3_600_000;
    }
    expect(last.map((r) => r.status.done)).toEqual([true, true, true]);
    const lines = transcript(ann);
    expect(transcript(ben)).toEqual(lines);
    expect(transcript(rita)).toEqual(lines);
    const envelopes = lines.slice(1).map((l) => JSON.parse(l) as Envelope);
    expect(envelopes.filter((e) => e.from === 'cat')).toEqual([]);
    // Each phase's commitments were held, then recorded at the deadline; then ann or ben claimed it, naming cat.
    // (a phase that waits for her signature waits a day too, then goes on without it).
    const verdict = auditLines(lines, { registry: diplomacyRegistry });
    const labels = [...new Set(envelopes.filter((e) => e.body.type === 'commit').map((e) => e.body.label as string))];
    expect(labels.slice(0, 2)).toEqual(['S1901M', 'F1901M']);
    // The last claim is the game's last line: no later line vouches for it, so the file audit names nobody on it
    // (the unvouched tail, docs/SPEC.md §4.4) and gives no outcome; the seats, which saw it live, settled on it.
    const named = labels.flatMap((_, i) => [`withheld cat commit ${i + 1}`, `withheld cat sign ${i + 1}`]);
    expect(verdict.violations.map((v) => `${v.code} ${v.player} ${/did not (\w+) in round (\d+)/.exec(v.message)?.slice(1).join(' ')}`)).toEqual([
      ...named.slice(0, -1),
      'withheld null undefined',
    ]);
    expect(verdict.violations[verdict.violations.length - 1]!.message).toMatch(/deadline claim names cat withheld/);
    // France's units took the defaults every phase: they hold where they started.
    const referee = new Referee(lines[0]!, null, undefined, { registry: diplomacyRegistry });
    lines.slice(1).forEach((text, i) => referee.feedText(i + 1, text));
    expect(referee.violations.filter((v) => v.code === 'withheld').map((v) => v.player)).toEqual(named.map(() => 'cat'));
    expect((referee.outcome()!.summary as { phase: string }).phase).toBe('S1902M');
    const position = (referee.state as DiplomacyState).position;
    expect(position.units.filter((u) => u.power === 'france').map((u) => `${u.type} ${u.at}`)).toEqual(['fleet bre', 'army mar', 'army par']);
    expect(last[0]!.board).toContain('France (cat): F bre, A mar, A par');
  }, 60_000);
});

describe('Diplomacy by mail, a reveal withheld', () => {
  // Each escrow opens cat's orders in its own messages: shares of the threshold scheme, proven peels of the seed's layers.
  it.each([
    ['threshold', 'share', 'dealer'],
    ['layers', 'peel', 'owner'],
  ] as const)(
    'the others open it from its %s escrow once the deadline has passed, and its orders stand',
    (scheme, opener, field) => {
      const tag = `escrow-${scheme}`;
      const ps = people(tag);
      const [ann] = ps as [Participant, Participant, Participant, Participant];
      let now = Date.UTC(2026, 10, 1);
      const clock = (): number => now;
      mailNew({
        protocol: 'diplomacy',
        dir: ann.dir,
        key: ann.key,
        players: ps.map((p) => join(root, `${tag}-${p.id}.pub.json`)),
        recorder: 'rita',
        diplomacy: { years: 1, assign: 'fixed', escrow: scheme },
        timeout: '1d',
        clock,
      });
      // Cat (France) commits to her orders, claims, and never mails her reveal: the last revealer's option.
      let withheld = 0;
      const post = new PostOffice(ps, {
        drop: (from, _file, text) =>
          from === 'cat' && readMail(text).some((m) => m.kind === 'submission' && m.line.includes('"type":"reveal"')) && withheld++ === 0,
      });
      const random = simStrategy(new Uint8Array(32).fill(11));
      let handWritten = false;
      let last: MailResult[] = [];
      for (let step = 1; step <= 40; step++) {
        last = post.play((_who, d) => random(d), {
          maxRounds: step * 6,
          clock,
          tick: true,
          // Her first orders by hand; she stays in the game (nothing was held against her), so later ones are drawn.
          answer: (p, d) => {
            if (p.id !== 'cat' || d.kind !== 'orders' || handWritten) return null;
            handWritten = true;
            return mailOrders(p.dir, 'A Par-Pic\nA Mar-Spa\nF Bre-MAO\n', clock);
          },
        });
        if (last.every((r) => r.status.done)) break;
        now += 12 * 3_600_000;
      }
      expect(withheld).toBe(1);
      expect(last.map((r) => r.status.done)).toEqual([true, true, true, true]);
      const lines = transcript(ann);
      for (const p of ps.slice(1)) expect(transcript(p)).toEqual(lines);
      const verdict = auditLines(lines, { registry: diplomacyRegistry });
      // Commit and leave (docs/spec/diplomacy.md §10.6.1): a reveal opened from escrow names nobody, and cat plays on.
      // Her mail seat never learns its reveal was lost (mail is not resent), so from then on she is away: later
      // phases name her absence (timed out: her units hold), never a rule broken, and never for the reveal.
      expect(verdict.valid).toBe(true);
      // The last phase's claim against her may stand in the unvouched tail (SPEC §4.4): then it names nobody.
      const tail = (v: Violation): boolean => v.player === null && v.code === 'withheld' && /deadline claim names cat/.test(v.message);
      expect(verdict.violations.filter((v) => !(tail(v) || (v.player === 'cat' && v.kind === 'absence' && !/did not reveal/.test(v.message))))).toEqual([]);
      // The file alone gives no outcome when that claim is the unvouched tail; the seats' referee (below) does.
      if (verdict.outcome !== null) expect(verdict.outcome.forfeits).toEqual([]);
      // The others opened cat's escrow (shares, or peels of her onion); the orders cat committed to were opened and adjudicated.
      const envelopes = lines.slice(1).map((l) => JSON.parse(l) as Envelope);
      const openers = envelopes.filter((e) => e.body.type === opener).map((e) => [e.from, e.body[field]]);
      expect(openers.length).toBeGreaterThan(0);
      for (const [from, whose] of openers) {
        expect(whose).toBe('cat');
        expect(['ann', 'ben']).toContain(from);
      }
      const referee = new Referee(lines[0]!, null, undefined, { registry: diplomacyRegistry, keepEvents: true });
      lines.slice(1).forEach((text, i) => referee.feedText(i + 1, text));
      expect(referee.outcome()!.forfeits).toEqual([]);
      const opened = referee.events.filter((e) => e.type === 'escrow-opened');
      expect(opened).toEqual([{ type: 'escrow-opened', player: 'cat', power: 'france', orders: ['F bre - mao', 'A mar - spa', 'A par - pic'] }]);
      const s1901 = referee.events.find((e) => e.type === 'adjudicated' && e.phase === 'S1901M') as unknown as {
        results: { power: string; order: string; status: string }[];
      };
      expect(s1901.results.filter((r) => r.power === 'france').map((r) => [r.order, r.status])).toEqual([
        ['F bre - mao', 'succeeded'],
        ['A mar - spa', 'succeeded'],
        ['A par - pic', 'succeeded'],
      ]);
    },
    // She stays in, away: every later phase waits a day for her (slow on a shared machine).
    240_000,
  );
});

describe('the fairtable mail command for Diplomacy', () => {
  const cli = join(fileURLToPath(new URL('../../../..', import.meta.url)), 'packages/cli/bin/fairtable.js');
  const run = (args: string[]) => spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', cwd: root });
  // After the two processes that create the game, the same command lines inside this process (in-process.ts).
  const here = (args: string[]) => runInProcess(args, { cwd: root });
  it('mail new diplomacy takes the play command options, and decide --orders and --prefs answer', async () => {
    const tag = 'cli';
    const ps = people(tag);
    const pubs = ps.map((p) => join(root, `${tag}-${p.id}.pub.json`)).join(',');
    const dir = join(root, tag, 'A');
    const bad = run(['mail', 'new', 'diplomacy', '--dir', dir, '--key', ps[0]!.key, '--players', pubs, '--assign', 'lottery']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/\[bad_input\] --assign must be weighted, serial or fixed/);
    const created = run([
      'mail',
      'new',
      'diplomacy',
      '--dir',
      dir,
      '--key',
      ps[0]!.key,
      '--players',
      pubs,
      '--recorder',
      'rita',
      '--assign',
      'fixed',
      '--typos',
      'strict',
      '--escrow',
      'threshold',
      '--threshold',
      '2',
      '--years',
      '1',
    ]);
    expect(created.status, created.stderr).toBe(0);
    const setup = JSON.parse(readFileSync(join(dir, 'transcript.jsonl'), 'utf8').split('\n')[0]!) as Envelope;
    expect((setup.body.setup as { params: unknown }).params).toMatchObject({
      years: 1,
      assign: 'fixed',
      typos: 'strict',
      escrow: 'threshold',
      threshold: 2,
      sealed: { types: ['commit'] },
      recorder: { id: 'rita' },
    });
    // Fixed assignment: ann (seat 1) plays Austria, and her orders are due at once.
    const status = await here(['mail', 'status', '--dir', dir]);
    expect(status.status, status.stderr).toBe(0);
    expect(status.stdout).toContain('Spring 1901, movement (S1901M)');
    expect(status.stdout).toMatch(/^ {2}Austria \(ann\): A bud, F tri, A vie$/m);
    expect(status.stdout).toMatch(/^ {4}A vie - gal$/m);
    expect(status.stdout).toContain('answer with: fairtable mail decide --dir DIR --orders FILE');
    const json = JSON.parse((await here(['mail', 'status', '--dir', dir, '--json'])).stdout) as { decision: { kind: string }; board: string };
    expect(json.decision.kind).toBe('orders');
    expect(json.board).toContain('Austria (ann): A bud, F tri, A vie');
    const prefs = await here(['mail', 'decide', '--dir', dir, '--prefs', 'A']);
    expect(prefs.status).toBe(2);
    expect(prefs.stderr).toMatch(/\[illegal_choice\] the game asks for orders now, not preferences/);
    // Under the strict typo rule a wrong unit letter is refused at its line, before anything is committed.
    writeFileSync(join(root, 'typo.txt'), 'A Vie-Gal\nA Tri-Alb\n');
    const typo = await here(['mail', 'decide', '--dir', dir, '--orders', join(root, 'typo.txt')]);
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/\[illegal_order\] line 2: "A Tri-Alb": the unit in tri is a fleet/);
    writeFileSync(join(root, 'orders.txt'), 'A Vie-Gal\nF Tri-Alb\nA Bud S A Vie-Gal\n');
    const orders = await here(['mail', 'decide', '--dir', dir, '--orders', join(root, 'orders.txt')]);
    expect(orders.status, orders.stderr).toBe(0);
    expect(orders.stdout).toMatch(/send to every other participant/);
    const submission = readdirSync(join(dir, 'outbox')).filter((f) => f.includes('submission'));
    expect(submission).toHaveLength(1);
    const again = await here(['mail', 'decide', '--dir', dir, '--orders', join(root, 'orders.txt')]);
    expect(again.status).toBe(2);
    expect(again.stderr).toMatch(/\[illegal_choice\] there are no orders to give now/);
  }, 30_000);
});
