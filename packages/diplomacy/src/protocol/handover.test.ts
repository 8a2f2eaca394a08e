/**
 * A newcomer approved by every active player takes over an absent power (docs/spec/diplomacy.md §10.15), on a
 * table whose orderer admits every line through the core's door (the relay's rule): the newcomer joins with
 * the transcript so far, is seated at the next round's start, orders, reveals and signs; each cheat is named
 * with its line, and honest players never are.
 */
import { describe, expect, it } from 'vitest';
import { randomChoice, simKeys, verifiedOnce } from '@fairtable/core/testing';
import { Auditor } from '@fairtable/core/audit.js';
import { toHex } from '@fairtable/core/bytes.js';
import { Door, type Admission } from '@fairtable/core/door.js';
import { signEnvelope, envelopeLine, type Body, type Envelope } from '@fairtable/core/envelope.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { Seat, type OutgoingHook } from '@fairtable/core/seat/seat.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { approveBody, diplomacyRegistry as registry, newcomerBody, newcomerConsent, openHandovers, proposalHash, type DiplomacyState } from './index.js';
import { diplomacyTable, seed } from './test-table.js';
import { TalkReader, talkRosterOfLog, writeTalk, type TalkMessage } from '@fairtable/core/press/index.js';
import { nativeSign, nativeVerify as checkSignature } from '@fairtable/node/native-verify.js';

// One OpenSSL check a (signature, key, message) for the whole file: every seat, door and audit here checks the same lines.
const nativeVerify = verifiedOnce(checkSignature);

/**
 * The seats, the door and the audits sign and check with OpenSSL's Ed25519 (the same signatures and verdicts as
 * noble's, which packages/node's differential test proves): most of this file's time was noble's checks, and the
 * Diplomacy machine's own tests keep a game on noble.
 */
const ed25519 = { sign: nativeSign, verify: nativeVerify } as const;

const newcomerKeys = simKeys(seed(77), 0);
const N1 = { id: 'n1', key: toHex(newcomerKeys.publicKey), name: 'Nora' };

/** Seven seats (fixed powers: p6 is Turkey) and an orderer with a door; p6 sends nothing, so Turkey falls into civil disorder after one phase. */
function handoverGame(params: Readonly<Record<string, JsonValue>> = {}, hooks: Readonly<Record<string, OutgoingHook>> = {}) {
  const base = diplomacyTable({ params: { timeoutMs: 1000, absentAfter: 1, years: 2, ...params }, keySeed: 21, randomSeed: 30, hooks, ed25519 });
  const door = new Door(base.setupLine, { verify: nativeVerify });
  const log = [base.setupLine];
  const pending: string[] = [];
  const refusals: Extract<Admission, { ok: false }>[] = [];
  const transport = { submit: (t: string) => pending.push(t), sync: () => undefined };
  const seats = base.ids.map((_, i) => new Seat({ ...base.options(i), transport }));
  const flush = (): void => {
    while (pending.length > 0) {
      const t = pending.shift()!;
      const a = door.admit(t, (JSON.parse(t) as Envelope).from);
      if (!a.ok) {
        refusals.push(a);
        continue;
      }
      if (a.duplicate) continue;
      log.push(t);
      for (const s of seats) s.receive(log.length - 1, t);
    }
  };
  const seat = (id: string): Seat => seats.find((s) => s.id === id)!;
  const state = (): DiplomacyState => seat('p0').referee.state as DiplomacyState;
  /** The newcomer's seat: it reads the whole log so far, then every line as it comes. */
  const join = (): Seat => {
    const stream = new RandomStream(seed(90), 'player');
    const s = new Seat({ ...base.options(0), id: N1.id, keys: newcomerKeys, random: (n: number) => stream.bytes(n), transport });
    log.forEach((t, i) => s.receive(i, t));
    seats.push(s);
    return s;
  };
  const random = new RandomStream(seed(40), 'strategy');
  /** One second of play: every seat but the silent ones answers its decision at random, then the clock moves. */
  const second = (silent: readonly string[] = ['p6']): void => {
    flush();
    for (const s of seats) {
      if (silent.includes(s.id)) continue;
      const d = s.decision();
      if (d !== null) {
        s.decide(randomChoice(d.choices, random));
        flush();
      }
    }
    base.clock.now += 1000;
    for (const s of seats) s.tick();
    flush();
  };
  const until = (done: () => boolean, limit = 200): void => {
    for (let i = 0; i < limit && !done(); i++) second();
    expect(done()).toBe(true);
  };
  const send = (id: string, body: Body): void => {
    seat(id).sendUnasked(body);
    flush();
  };
  const propose = (by = 'p0', power = 'turkey', consentKey = newcomerKeys.secretKey): string => {
    send(by, newcomerBody(power, N1, newcomerConsent(base.seats[0]!.gameId, power, N1, consentKey)));
    return proposalHash(base.seats[0]!.gameId, power, N1);
  };
  const audit = () => {
    const a = new Auditor(log[0]!, { registry, keepEvents: true, verify: nativeVerify });
    for (const l of log.slice(1)) a.add(l);
    return a;
  };
  /** The verdict's rule violations (absences apart) as [code, player]. */
  const ruled = (a: Auditor) =>
    a
      .verdict()
      .violations.filter((v) => v.kind !== 'absence')
      .map((v) => [v.code, v.player]);
  const gameId = base.seats[0]!.gameId;
  return { base, door, log, refusals, seats, seat, state, join, second, until, send, propose, audit, ruled, gameId, flush };
}

const turkeyVacant = (s: DiplomacyState): boolean => !s.active.includes('p6') && !Object.values(s.powers).includes('turkey');

describe('a newcomer takes over an absent power', () => {
  it('every active player approves; the newcomer orders Turkey from the next round and the audit names nobody', () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    const n1 = g.join();
    const proposal = g.propose();
    expect(openHandovers(g.state()).map((o) => o.waitingFor)).toEqual([['p1', 'p2', 'p3', 'p4', 'p5']]);
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) g.send(p, approveBody(proposal));
    const approvedAt = g.state().round;
    expect(g.state().powers.n1).toBeUndefined();
    g.until(() => g.state().phase === 'done');
    // Every seat, the newcomer's too, ends on the same position.
    const hashes = new Set(g.seats.map((s) => JSON.stringify((s.referee.state as DiplomacyState).position)));
    expect(hashes.size).toBe(1);
    expect(g.refusals).toEqual([]);
    const a = g.audit();
    const seated = a.referee.events.find((e) => e.type === 'newcomer-seated');
    expect(seated).toMatchObject({ proposal, power: 'turkey', player: 'n1', name: 'Nora', replaces: 'p6', round: approvedAt + 1 });
    // The newcomer committed, revealed and signed in every round from then on.
    const n1Lines = g.log
      .slice(1)
      .map((l) => JSON.parse(l) as Envelope)
      .filter((e) => e.from === 'n1');
    const rounds = new Set(n1Lines.filter((e) => e.body.type === 'commit').map((e) => e.body.round));
    expect(Math.min(...[...rounds].map(Number))).toBe(approvedAt + 1);
    expect(n1Lines.some((e) => e.body.type === 'sign')).toBe(true);
    expect(n1.outcome()).not.toBeNull();
    // One absence (p6's missed orders), no rule broken by anybody.
    expect(a.verdict().violations.map((v) => [v.kind, v.player])).toEqual([['absence', 'p6']]);
    expect((a.referee.state as DiplomacyState).powers.n1).toBe('turkey');
  });

  it('with threshold escrow the newcomer is dealt a share of every commitment and opens a withheld reveal with the others', () => {
    let dropped = false;
    // p1 commits in the newcomer's first round and then leaves without revealing (commit and leave, §10.6.1).
    const leaving: OutgoingHook = {
      body: (body, seat) => {
        const s = seat.referee.state as DiplomacyState;
        if (body.type !== 'reveal' || dropped || s.powers.n1 === undefined) return body;
        dropped = true;
        return null;
      },
    };
    const g = handoverGame({ escrow: 'threshold' }, { p1: leaving });
    g.until(() => turkeyVacant(g.state()));
    g.join();
    const proposal = g.propose();
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) g.send(p, approveBody(proposal));
    g.until(() => g.state().phase === 'done');
    expect(dropped).toBe(true);
    const lines = g.log.slice(1).map((l) => JSON.parse(l) as Envelope);
    const a = g.audit();
    const seatedRound = a.referee.events.find((e) => e.type === 'newcomer-seated')!.round;
    // Each commitment from the newcomer's first round on deals n - 1 = 7 shares, one sealed to the newcomer's key.
    const commits = lines.filter((e) => e.body.type === 'commit' && e.body.round === seatedRound);
    expect(commits.map((e) => (e.body.escrow as { shares: unknown[] }).shares.length)).toEqual(commits.map(() => 7));
    // The newcomer published its share of p1's escrow, which was opened and counted; nobody is named.
    expect(lines.some((e) => e.from === 'n1' && e.body.type === 'share' && e.body.dealer === 'p1' && typeof e.body.share === 'string')).toBe(true);
    expect(a.referee.events.find((e) => e.type === 'escrow-opened')).toMatchObject({ player: 'p1', power: 'england' });
    expect(a.verdict().violations.map((v) => [v.kind, v.player])).toEqual([['absence', 'p6']]);
  });
});

describe("a newcomer's table talk (press.md §10)", () => {
  it('the log makes the talk roster: the newcomer talks from its line, the departed player no longer from its hand-over', () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    g.join();
    const proposal = g.propose();
    const proposedAt = g.log.length - 1;
    // Proposed, not yet seated: the newcomer is an author and talks; p6 still does.
    expect(talkRosterOfLog(g.log, { registry })).toEqual({ newcomers: [{ id: 'n1', key: N1.key }], departed: [] });
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) g.send(p, approveBody(proposal));
    g.until(() => g.state().powers.n1 === 'turkey');
    const line = g.state().seatedAt.turkey!;
    expect(line).toBeGreaterThan(proposedAt);
    const at = (JSON.parse(g.log[line]!) as Envelope).time;
    const roster = talkRosterOfLog(g.log, { registry });
    expect(roster).toEqual({ newcomers: [{ id: 'n1', key: N1.key }], departed: [{ id: 'p6', by: 'n1', line, at }] });
    // Without Diplomacy's machine nobody is seen handed over (the core's registry does not hold it).
    expect(() => talkRosterOfLog(g.log)).toThrow();

    const players = g.base.ids.map((id, i) => ({ id, key: toHex(g.base.keys[i]!.publicKey) }));
    const keyOf = (id: string) => (id === 'n1' ? newcomerKeys : g.base.keys[Number(id.slice(1))]!).secretKey;
    let n = 0;
    const random = (k: number) => new Uint8Array(k).map((_, i) => (++n * 7 + i) & 255);
    const write = (from: string, to: TalkMessage['to'], when: number, body: string) =>
      writeTalk(
        { game: g.gameId, from, to, seq: when, at: when, body },
        { mode: 'signed', secretKey: keyOf(from), players: [...players, roster.newcomers[0]!], random },
      );
    const reader = new TalkReader({
      game: g.gameId,
      players,
      rules: { rule: 'full', mode: 'signed' },
      roster: () => roster,
      me: { id: 'p1', secretKey: keyOf('p1') },
    });
    const read = (m: TalkMessage) => {
      const r = reader.read(m);
      return r.kind === 'shown' ? `${r.talk.from}: ${r.talk.body}` : r.kind === 'refused' ? `${r.finding.code} ${r.finding.player}` : r.kind;
    };
    expect(read(write('p6', 'table', at - 1, 'back soon'))).toBe('p6: back soon');
    expect(read(write('n1', ['p1'], at + 1, 'Turkey here, Nora.'))).toBe('n1: Turkey here, Nora.');
    expect(read(write('p6', 'table', at, 'I am still Turkey'))).toBe('talk_departed null');
  });
});

describe('hand-over cheats are caught and named', () => {
  it('without every active approval nothing is handed over, and nobody is named for proposing', () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    const n1 = g.join();
    const proposal = g.propose();
    for (const p of ['p1', 'p2', 'p3', 'p4']) g.send(p, approveBody(proposal)); // p5 does not approve
    // Approvals from those who are no players in the game: the departed p6 and the newcomer itself.
    g.send('p6', approveBody(proposal));
    g.send('n1', approveBody(proposal));
    g.until(() => g.state().phase === 'done');
    const a = g.audit();
    expect(a.referee.events.some((e) => e.type === 'newcomer-seated')).toBe(false);
    expect(n1.decision()).toBeNull();
    expect(Object.values((a.referee.state as DiplomacyState).powers)).not.toContain('turkey');
    expect(g.ruled(a)).toEqual([
      ['unexpected_message', 'p6'],
      ['unexpected_message', 'n1'],
    ]);
  });

  it("an approval forged in another player's name is refused at the door, naming the connection that sent it", () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    const proposal = g.propose();
    for (const p of ['p1', 'p2', 'p3', 'p4']) g.send(p, approveBody(proposal));
    // p6 writes p5's approval and signs it with its own key.
    const pos = g.door.checker.authorPosition('p5')!;
    const forged = envelopeLine(
      signEnvelope(
        {
          v: 1,
          game: g.gameId,
          from: 'p5',
          seq: pos.count,
          prev: pos.lastHash,
          at: g.log.length,
          head: g.door.checker.hashOfLine(g.log.length - 1)!,
          time: g.base.clock.now,
          body: approveBody(proposal),
        },
        g.base.keys[6]!.secretKey,
      ),
    );
    expect(g.door.admit(forged, 'p6')).toMatchObject({ ok: false, code: 'not_your_seat', player: 'p6' });
    // Written into a log behind the door's back, it shows the log altered, names nobody, and hands nothing over.
    const a = g.audit();
    a.add(forged);
    expect(a.verdict().violations.at(-1)).toMatchObject({ code: 'bad_signature', player: null });
    expect(Object.keys((a.referee.state as DiplomacyState).handovers)).toEqual([proposal]);
    expect((a.referee.state as DiplomacyState).powers.n1).toBeUndefined();
  });

  it("the newcomer's key used before the hand-over takes effect is named; the hand-over still goes through", () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    g.join();
    const proposal = g.propose();
    const s = g.state();
    g.send('n1', { type: 'commit', round: s.round, label: 'S1901M', commitment: 'ab'.repeat(32) });
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) g.send(p, approveBody(proposal));
    g.until(() => g.state().phase === 'done');
    const a = g.audit();
    expect(g.ruled(a)).toEqual([['out_of_turn', 'n1']]);
    expect((a.referee.state as DiplomacyState).powers.n1).toBe('turkey');
  });

  it('a proposal written before the power was taken over is a race: refused, nobody named', () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    g.join();
    const proposal = g.propose();
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) g.send(p, approveBody(proposal));
    g.until(() => g.state().powers.n1 === 'turkey');
    const seatedAt = g.state().seatedAt.turkey!;
    // A player whose last line comes before the seating proposes another newcomer on the view just before it.
    const lines = g.log.map((l) => JSON.parse(l) as Envelope);
    const q = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'].find((p) => lines.findLastIndex((e) => e.from === p) < seatedAt)!;
    const other = simKeys(seed(78), 0);
    const n2 = { id: 'n2', key: toHex(other.publicKey), name: 'Olek' };
    const pos = g.door.checker.authorPosition(q)!;
    const late = envelopeLine(
      signEnvelope(
        {
          v: 1,
          game: g.gameId,
          from: q,
          seq: pos.count,
          prev: pos.lastHash,
          at: seatedAt,
          head: g.door.checker.hashOfLine(seatedAt - 1)!,
          time: g.base.clock.now,
          body: newcomerBody('turkey', n2, newcomerConsent(g.gameId, 'turkey', n2, other.secretKey)),
        },
        g.base.keys[Number(q.slice(1))]!.secretKey,
      ),
    );
    expect(g.door.admit(late, q)).toMatchObject({ ok: true });
    g.log.push(late);
    for (const s of g.seats) s.receive(g.log.length - 1, late);
    g.until(() => g.state().phase === 'done');
    const a = g.audit();
    expect(a.referee.events.find((e) => e.type === 'newcomer-refused')).toMatchObject({ power: 'turkey', newcomer: 'n2' });
    expect(g.ruled(a)).toEqual([]);
  });

  it('the departed key acting after the hand-over is named', () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    g.join();
    const proposal = g.propose();
    for (const p of ['p1', 'p2', 'p3', 'p4', 'p5']) g.send(p, approveBody(proposal));
    g.until(() => g.state().powers.n1 === 'turkey');
    const s = g.state();
    g.send('p6', { type: 'commit', round: s.round, label: 'F1901M', commitment: 'cd'.repeat(32) });
    g.until(() => g.state().phase === 'done');
    const a = g.audit();
    expect(g.ruled(a)).toEqual([['unexpected_message', 'p6']]);
    expect(a.verdict().violations.find((v) => v.kind !== 'absence')?.message).toMatch(/no longer acts for turkey/);
  });

  it('a hand-over of a power that is not absent is refused and its proposer named; so is a consent the newcomer did not sign', () => {
    const g = handoverGame();
    g.until(() => turkeyVacant(g.state()));
    g.propose('p0', 'france');
    g.propose('p1', 'turkey', g.base.keys[1]!.secretKey);
    g.until(() => g.state().phase === 'done');
    const a = g.audit();
    expect(g.ruled(a)).toEqual([
      ['unexpected_message', 'p0'],
      ['unexpected_message', 'p1'],
    ]);
    expect(
      a
        .verdict()
        .violations.filter((v) => v.kind !== 'absence')
        .map((v) => v.message),
    ).toEqual([expect.stringMatching(/france, which p2 holds/), expect.stringMatching(/consent that n1's key did not sign/)]);
    expect(Object.keys((a.referee.state as DiplomacyState).handovers)).toEqual([]);
  });
});
