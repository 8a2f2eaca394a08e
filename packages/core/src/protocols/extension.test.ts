/**
 * Agreed deadline extensions (docs/SPEC.md §7.4.1): proposed by one seat, accepted by every active seat's own
 * signature, only then the deadline moves; a claim against the moved deadline is false; a forged acceptance is
 * refused at the door and moves nothing.
 */
import { describe, expect, it } from 'vitest';
import { Door } from '../door.js';
import { Auditor } from '../audit.js';
import { toHex } from '../bytes.js';
import type { Body } from '../envelope.js';
import { envelopeLine, signEnvelope } from '../envelope.js';
import { createSetupEnvelope } from '../setup.js';
import { Seat } from '../seat/seat.js';
import { RandomStream } from '../stream.js';
import { simKeys } from '../testing.js';
import { violationKind } from '../errors.js';

const seed = (n: number): Uint8Array => new Uint8Array(32).fill(n);

/** Three beacon seats behind a door; p2 is slow: what it sends waits in `stash` while `slow`, except extension messages. */
function table() {
  const clock = { now: 0 };
  const ids = ['p0', 'p1', 'p2'];
  const keys = ids.map((_, i) => simKeys(seed(71), i));
  const setupLine = envelopeLine(
    createSetupEnvelope(
      {
        protocol: 'beacon',
        game: null,
        params: { timeoutMs: 1000, rounds: 1 },
        players: ids.map((id, i) => ({ id, key: toHex(keys[i]!.publicKey) })),
        nonce: '00'.repeat(32),
        created: 0,
      },
      'p0',
      keys[0]!,
    ),
  );
  const door = new Door(setupLine);
  const log = [setupLine];
  const pending: { text: string; player: string }[] = [];
  const refused: string[] = [];
  const slow = { on: true, stash: [] as Body[] };
  const seats = ids.map((id, i) => {
    const stream = new RandomStream(seed(80 + i), 'player');
    return new Seat({
      id,
      keys: keys[i]!,
      setupLine,
      random: (n) => stream.bytes(n),
      clock: () => clock.now,
      transport: { submit: (text) => pending.push({ text, player: id }), sync: () => undefined },
      ...(id === 'p2'
        ? {
            outgoing: {
              body: (b: Body) => {
                if (slow.on && b.type !== 'extend-accept') {
                  slow.stash.push(b);
                  return null;
                }
                return b;
              },
            },
          }
        : {}),
    });
  });
  const flush = (): void => {
    while (pending.length > 0) {
      const { text, player } = pending.shift()!;
      if (log.includes(text)) continue;
      const a = door.admit(text, player);
      if (!a.ok) {
        refused.push(`${a.code}: ${a.message}`);
        continue;
      }
      if (a.duplicate) continue;
      log.push(text);
      for (const s of seats) s.receive(log.length - 1, text);
    }
  };
  const advance = (to: number): void => {
    for (; clock.now < to;) {
      clock.now = Math.min(to, clock.now + 100);
      for (const s of seats) s.tick();
      flush();
    }
  };
  const audit = () => {
    const a = new Auditor(log[0]!);
    for (const l of log.slice(1)) a.add(l);
    return a.verdict();
  };
  const arrive = (): void => {
    slow.on = false;
    for (const b of slow.stash.splice(0)) seats[2]!.sendUnasked(b);
    flush();
  };
  for (const s of seats) s.receive(0, setupLine);
  flush();
  return { clock, seats, keys, log, flush, advance, audit, arrive, refused, pending };
}

describe('agreed deadline extensions', () => {
  it('every active seat accepts: the deadline moves, nobody claims before it, the slow player is named by nobody', () => {
    const t = table();
    const [p0, p1, p2] = t.seats;
    expect((p0!.referee.state as { phase: string }).phase).toBe('commit');
    t.clock.now = 500;
    p0!.proposeExtension(6000);
    t.flush();
    p1!.acceptExtension();
    t.flush();
    expect(p0!.referee.extension.agreed).toBeNull();
    p2!.acceptExtension();
    t.flush();
    expect(p0!.referee.extension.agreed).toMatchObject({ phase: 'commit', until: 6000 });
    // Well past the old deadline (1000, claims from 1500): no seat claims while the extension holds.
    t.advance(5000);
    expect(t.log.some((l) => l.includes('"type":"deadline"'))).toBe(false);
    t.arrive();
    t.advance(20_000);
    const v = t.audit();
    expect(v.finished).toBe(true);
    expect(v.violations).toEqual([]);
    expect(v.valid).toBe(true);
  });

  it('without the extension the slow player times out: an absence, not rule breaking', () => {
    const t = table();
    t.advance(3000);
    const v = t.audit();
    expect(v.violations.map((x) => [x.code, x.player, violationKind(x)])).toEqual([['withheld', 'p2', 'absence']]);
    expect(v.valid).toBe(true);
  });

  it('a claim against the moved deadline, by a seat that saw the agreement, is false_deadline_claim; the slow player is not penalised', () => {
    const t = table();
    const [p0, p1, p2] = t.seats;
    t.clock.now = 500;
    p0!.proposeExtension(6000);
    t.flush();
    p1!.acceptExtension();
    p2!.acceptExtension();
    t.flush();
    t.clock.now = 2000;
    p1!.sendUnasked({ type: 'deadline', phase: 'commit', round: 0, missing: ['p2'] });
    t.flush();
    const claim = t.log.findIndex((l) => l.includes('"type":"deadline"'));
    expect(claim).toBeGreaterThan(0);
    t.arrive();
    t.advance(20_000);
    const v = t.audit();
    expect(v.violations.map((x) => [x.code, x.player, x.seq])).toEqual([['false_deadline_claim', 'p1', claim]]);
    expect(v.valid).toBe(false);
    expect(v.outcome?.forfeits ?? []).toEqual([]);
    // Every seat's referee says the same.
    for (const s of t.seats) expect(s.referee.violations.map((x) => [x.code, x.player])).toEqual([['false_deadline_claim', 'p1']]);
  });

  it('an acceptance forged for another seat is refused at the door; the deadline does not move', () => {
    const t = table();
    const [p0, p1] = t.seats;
    t.clock.now = 500;
    p0!.proposeExtension(6000);
    t.flush();
    p1!.acceptExtension();
    t.flush();
    // p1 signs an acceptance that names p2 as its author, with p1's own key.
    const position = p0!.referee.checker.authorPosition('p2')!;
    const forged = signEnvelope(
      {
        v: 1,
        game: p0!.gameId,
        from: 'p2',
        seq: position.count,
        prev: position.lastHash,
        at: t.log.length,
        head: p0!.referee.checker.hashOfLine(t.log.length - 1)!,
        time: 600,
        body: { type: 'extend-accept', phase: 'commit', until: 6000 },
      },
      t.keys[1]!.secretKey,
    );
    // Over p1's own connection it is not p1's to send; over p2's (a relay that passes it on) its signature fails.
    t.pending.push({ text: envelopeLine(forged), player: 'p1' }, { text: envelopeLine(forged), player: 'p2' });
    t.flush();
    expect(t.refused).toHaveLength(2);
    expect(t.refused[0]).toMatch(/^not_your_seat/);
    expect(t.refused[1]).toMatch(/^bad_signature/);
    expect(p0!.referee.extension.agreed).toBeNull();
    // The old deadline stands: the honest seats claim p2 as usual.
    t.advance(3000);
    const v = t.audit();
    expect(v.violations.map((x) => [x.code, x.player, violationKind(x)])).toEqual([['withheld', 'p2', 'absence']]);
  });

  it('an acceptance of another deadline, or after the deadline, moves nothing', () => {
    const t = table();
    const [p0, p1, p2] = t.seats;
    t.clock.now = 500;
    p0!.proposeExtension(6000);
    t.flush();
    p1!.sendUnasked({ type: 'extend-accept', phase: 'commit', until: 9000 });
    t.flush();
    t.clock.now = 1200;
    p1!.acceptExtension();
    p2!.acceptExtension();
    t.flush();
    expect(p0!.referee.extension.agreed).toBeNull();
    t.advance(3000);
    expect(t.audit().violations.map((x) => [x.code, x.player])).toEqual([['withheld', 'p2']]);
  });

  it('a proposal that shortens the deadline, or is not {type, phase, until}, is named unexpected_message', () => {
    const t = table();
    t.clock.now = 500;
    t.seats[0]!.proposeExtension(800);
    t.flush();
    t.seats[1]!.sendUnasked({ type: 'extend', phase: 'commit', until: 'soon' });
    t.flush();
    expect(t.audit().violations.map((x) => [x.code, x.player])).toEqual([
      ['unexpected_message', 'p0'],
      ['unexpected_message', 'p1'],
    ]);
    expect(t.seats[2]!.referee.extension).toEqual({ open: null, agreed: null });
  });
});
