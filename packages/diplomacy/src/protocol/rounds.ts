/**
 * How a Diplomacy round moves on (docs/spec/diplomacy.md §10.2–§10.6, §10.12, §10.13): from step to step while
 * nobody is missing, escrows opened (threshold shares, or seed 003's layers peeled), the phase adjudicated and
 * its votes counted, the assignment's lotteries drawn, forfeits and the powers they vacate.
 */
import { opens } from '@fairtable/core/commitment.js';
import { FairtableError, type ViolationCode } from '@fairtable/core/errors.js';
import { fromHex } from '@fairtable/core/bytes.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { beaconSeed } from '@fairtable/core/protocols/beacon.js';
import { Stepper, type Ctx } from '@fairtable/core/protocols/machine.js';
import { RandomStream } from '@fairtable/core/stream.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { adjudicate, type OrderResult } from '../adjudicate.js';
import { assignPowers, type Preferences } from '../assign.js';
import { positionHash } from '../position.js';
import { layerPlan, peelOn, recordExchange, startPeel } from '@fairtable/core/escrow/layers.js';
import { ableToPeel, askedToPeel, layerContext, openThreshold, othersOf, purpose, readOpening, sendPeels, sendShares } from './escrow.js';
import { takeOpened, unrevealed } from './assign-escrow.js';
import { agreedEnding, endingWords, splitVotes, voteAnswer, type Vote } from './endings.js';
import { myOpening } from './revise.js';
import { seatNewcomers } from './handover.js';
import { isPeel, type DiplomacyState, map, phaseLabel, ordersIn, alive, missing, commitSetHash, startRound, enter } from './state.js';

export function forfeit(s: DiplomacyState, st: Stepper, player: string, code: ViolationCode): void {
  if (!s.active.includes(player)) return;
  s.active = s.active.filter((p) => p !== player);
  s.forfeits.push({ player, code });
  st.emit({ type: 'forfeit', player, code });
  if (s.stage === 'play') vacate(s, st, player);
}

/** The setup's `deadlines`: the commit step's milliseconds by phase type and for `preferences` (§10.13). */
export function phaseDeadlines(params: Readonly<Record<string, JsonValue>>): Record<string, number> {
  const given = params.deadlines ?? {};
  if (given === null || typeof given !== 'object' || Array.isArray(given))
    throw new FairtableError('out_of_range', 'parameter deadlines must be an object of milliseconds by phase type', { field: 'deadlines' });
  const out: Record<string, number> = {};
  for (const [kind, ms] of Object.entries(given)) {
    if (!['movement', 'retreat', 'adjustment', 'preferences'].includes(kind))
      throw new FairtableError('bad_input', `parameter deadlines.${kind}: the kinds are movement, retreat, adjustment and preferences`, {
        field: `deadlines.${kind}`,
      });
    if (typeof ms !== 'number' || !Number.isSafeInteger(ms) || ms < 1 || ms > 2 ** 40)
      throw new FairtableError('out_of_range', `parameter deadlines.${kind} must be an integer in [1, 2^40]`, { field: `deadlines.${kind}` });
    out[kind] = ms;
  }
  return out;
}

/**
 * Players whose orders the commit deadline found missing (their units take the defaults this phase, an
 * absence): one more phase missed each; at `absentAfter` phases in a row the player is out and its power
 * handed on, to a reserve or into civil disorder (§10.13).
 */
export function handOnAbsent(s: DiplomacyState, st: Stepper, late: readonly string[]): void {
  if (s.stage !== 'play') return;
  for (const p of late) {
    if (s.powers[p] === undefined || s.commits[p] !== undefined) continue;
    const missed = (s.missed[p] ?? 0) + 1;
    s.missed[p] = missed;
    st.emit({ type: 'no-orders', player: p, power: s.powers[p]!, missed });
    if (s.absentAfter > 0 && missed >= s.absentAfter) {
      const power = s.powers[p]!;
      st.emit({ type: 'absent-too-long', player: p, power, missed });
      forfeit(s, st, p, 'withheld');
      // A reserve who takes the power orders it from the next phase on: this phase its units keep the defaults.
      const taker = Object.keys(s.powers).find((q) => s.powers[q] === power);
      if (taker !== undefined && s.commits[taker] === undefined) s.excused[taker] = true;
    }
  }
}

/** A power whose player is out of the game: a reserve takes it, or it falls into civil disorder. */
export function vacate(s: DiplomacyState, st: Stepper, player: string): void {
  const power = s.powers[player];
  if (power === undefined) return;
  delete s.powers[player];
  // Seed 003's reserve players take a vacant power in the order of their lists; the lowest number first.
  const taker = s.players.find((p) => s.active.includes(p) && s.reserves[p]?.includes(power) === true && s.powers[p] === undefined);
  if (taker !== undefined) {
    s.powers[taker] = power;
    delete s.reserves[taker];
    st.emit({ type: 'reserve', player: taker, power });
  } else {
    // Remembered so that a newcomer's hand-over (§10.15) knows whose key no longer acts for the power.
    s.vacated[power] = player;
    st.emit({ type: 'civil-disorder', power });
  }
}

/** Moves the round on while nobody is missing; sends the local player's part of each step it enters. */
export function advance(s: DiplomacyState, st: Stepper, time: number, ctx?: Ctx, msg?: Accepted): void {
  for (;;) {
    if (s.phase === 'done' || missing(s).length > 0) return;
    if (s.phase === 'commit') {
      s.commitSet = commitSetHash(s.gameId, s.round, s.commits);
      enter(s, 'claim', time);
      // A gpg-only player's carried signature is its claim: nobody else could have made it (§11.4).
      for (const p of Object.keys(s.pgpCommits)) if (!s.excused[p]) s.claims[p] = true;
      if (s.me !== null && s.active.includes(s.me) && s.commits[s.me] !== undefined && !s.excused[s.me])
        st.send({ type: 'claim', round: s.round, commitment: s.commits[s.me]!, commitSet: s.commitSet });
    } else if (s.phase === 'claim') {
      enter(s, 'reveal', time);
      const mine = myOpening(s);
      if (s.me !== null && s.claims[s.me] !== undefined && mine !== null)
        st.send({
          type: 'reveal',
          round: s.round,
          opening: mine.opening as unknown as JsonValue,
          ...(mine.seed === undefined ? {} : { seed: mine.seed }),
        });
    } else if (isPeel(s)) {
      settlePeel(s, st, ctx, msg ?? { line: -1 }, time);
      if (isPeel(s)) return;
    } else if (s.phase === 'reveal' || s.phase === 'open') {
      if (s.stage === 'assign') {
        const withheld = s.phase === 'reveal' ? unrevealed(s) : [];
        if (withheld.length > 0) {
          // Escrowed values withheld (or broken, or of a player forfeited since its claim): opened, not rerun (§10.5.1).
          openAssignEscrows(s, st, ctx, msg ?? { line: -1 }, time, withheld);
          continue;
        }
        if (s.phase === 'reveal' || openEscrows(s, st, msg ?? { line: -1 })) finishAssignment(s, st, time);
        else rerunAssignment(s, time);
      } else {
        if (s.phase === 'open') openEscrows(s, st, msg ?? { line: -1 });
        resolvePhase(s, st, time);
      }
    } else if (s.phase === 'sign') {
      const next = s.next!;
      s.position = next.position;
      st.emit({ type: 'agreed', round: s.round, phase: phaseLabel(next.position), hash: next.hash });
      if (
        next.position.winner !== null ||
        s.ending !== null ||
        (s.years !== null && next.position.phase.type === 'movement' && next.position.phase.season === 'spring' && next.position.phase.year >= 1901 + s.years)
      ) {
        s.stage = 'done';
        enter(s, 'done', time);
        // A solo on the board ends the game whatever was voted beside it.
        const ending = next.position.winner === null ? s.ending : null;
        st.emit({
          type: 'game-over',
          phase: phaseLabel(next.position),
          winner: next.position.winner,
          ...(ending === null ? {} : { ending: voteAnswer(ending), why: endingWords(ending) }),
        });
        return;
      }
      s.round++;
      startRound(s, time);
      seatNewcomers(s, st, msg?.line ?? -1);
      if (s.paused) st.emit({ type: 'paused', round: s.round, phase: phaseLabel(s.position) });
    }
  }
}

/** The context of a player's answer sealed to her own key in her commit (docs/spec/diplomacy.md §10.11). */
export const ownContext = (s: DiplomacyState, round: number, player: string): string => `diplomacy/${s.gameId}/${round}/${player}/own-answer`;

/**
 * Opens each withheld reveal from k valid shares and checks it against its commitment. In a phase, a power
 * whose escrow fails gets the defaults; in the assignment round an opened value enters the lottery, and one
 * that fails forfeits its player and the round reruns (false).
 */
export function openEscrows(s: DiplomacyState, st: Stepper, msg: Accepted | { line: number }): boolean {
  const assign = s.stage === 'assign';
  let all = true;
  for (const [dealer, o] of Object.entries(s.opening)) {
    const r = openThreshold(s, dealer);
    if ('opening' in r && assign) {
      if (takeOpened(s, st, msg, dealer, r.opening.value)) continue;
      forfeit(s, st, dealer, 'unexpected_message');
      all = false;
      continue;
    }
    if ('opening' in r && typeof r.opening.value === 'string') {
      s.orders[o.power] = ordersIn(r.opening.value);
      st.emit({ type: 'escrow-opened', player: dealer, power: o.power, orders: s.orders[o.power]! });
      continue;
    }
    const shares = 'opening' in r ? s.escrow!.k : r.shares;
    st.emit({ type: 'escrow-failed', player: dealer, ...(assign ? { round: s.round } : { power: o.power }), shares });
    if (assign) all = false;
    if ('short' in r && r.short) {
      // Too few holders answered (each named for its absence): the dealer's reveal stays missing, an absence too.
      const what = assign ? 'its preferences stay unknown, it takes no power and the powers are drawn again' : `${o.power}'s units take the defaults`;
      st.absent(dealer, msg, `${dealer} did not reveal in round ${s.round}, and too few shares came to open its escrow: ${what}`);
      if (assign) forfeit(s, st, dealer, 'withheld');
    } else {
      // Enough valid shares, and still no opening of its commitment: the dealer sealed its value wrong, so its
      // silence kept the choice the escrow was to take away. A rule broken.
      st.withheld(
        dealer,
        true,
        msg,
        `${dealer} did not reveal in round ${s.round}, and its escrow, opened from ${shares} valid shares, does not open its commitment ${s.commits[dealer]}`,
      );
      forfeit(s, st, dealer, 'withheld');
    }
  }
  return all;
}

/** The assignment round's withheld values, opened: by shares (step `open`) or by peels (steps `peel/…`). */
export function openAssignEscrows(s: DiplomacyState, st: Stepper, ctx: Ctx | undefined, msg: Accepted | { line: number }, time: number, who: string[]): void {
  for (const p of who) {
    if (s.escrow !== null) s.opening[p] = { power: '', shares: {}, answered: [] };
    else s.peeling[p] = { ...startPeel(s.onions[p]!.head), power: '' };
  }
  if (s.escrow !== null) {
    enter(s, 'open', time);
    sendShares(s, st, ctx);
  } else {
    enter(s, 'peel/0', time);
    settlePeel(s, st, ctx, msg, time);
  }
}

export function resolvePhase(s: DiplomacyState, st: Stepper, time: number): void {
  const orders: { power: string; text: string }[] = [];
  const votes = new Map<string, Vote | null>();
  // The voters: each power held by a player still in the game and still on the board (§10.12).
  for (const p of s.active) {
    const power = s.powers[p];
    if (power !== undefined && alive(s.position, power)) votes.set(power, null);
  }
  for (const power of map.powers) {
    const split = splitVotes(s.orders[power] ?? [], map.powers);
    for (const text of split.orders) orders.push({ power, text });
    if (votes.has(power)) votes.set(power, split.vote);
  }
  const agreed = agreedEnding(votes, (power) => alive(s.position, power));
  // A pause is no ending: the game goes on, the next round without a deadline until somebody orders.
  s.ending = agreed?.kind === 'pause' ? null : agreed;
  s.pauseNext = agreed?.kind === 'pause';
  if ([...votes.values()].some((v) => v !== null))
    st.emit({
      type: 'votes',
      round: s.round,
      votes: Object.fromEntries([...votes].map(([power, v]) => [power, v === null ? 'none' : voteAnswer(v)])),
      agreed: agreed === null ? null : voteAnswer(agreed),
    });
  const result = adjudicate(map, s.position, orders, { strictUnitType: s.typos === 'strict' });
  const hash = positionHash(map, result.position);
  s.next = { position: result.position, hash };
  st.emit({
    type: 'adjudicated',
    round: s.round,
    phase: phaseLabel(s.position),
    results: result.results.map((r: OrderResult) => ({ power: r.power, order: r.order ?? r.text, status: r.status, reason: r.reason })),
    next: phaseLabel(result.position),
    hash,
  });
  enter(s, 'sign', time);
  if (s.me !== null && s.active.includes(s.me)) st.send({ type: 'sign', round: s.round, position: hash });
}

export function finishAssignment(s: DiplomacyState, st: Stepper, time: number): void {
  // Every checked value counts, a player's forfeited after its claim too (§10.5.1): its power is then vacated.
  const revealers = s.players.filter((p) => s.reveals[p] !== undefined);
  const values: Record<string, string> = {};
  const prefs: Preferences[] = [];
  for (const p of revealers) {
    const v = s.reveals[p] as unknown as { prefs: Preferences; random: string };
    values[p] = v.random;
    prefs.push(v.prefs);
  }
  const seed = beaconSeed(s.gameId, s.round, revealers, values);
  const stream = new RandomStream(fromHex(seed, 'seed', 32), 'diplomacy-lottery');
  const result = assignPowers(prefs, s.method === 'serial' ? 'serial' : 'weighted', (k) => stream.below(k));
  for (const [number, power] of Object.entries(result.assignment)) s.powers[s.players[Number(number) - 1]!] = power;
  for (const p of prefs) if (p.reserve) s.reserves[s.players[p.player - 1]!] = p.groups.flat();
  s.contests = [...result.contests];
  st.emit({
    type: 'assignment',
    method: s.method,
    seed,
    contests: result.contests as unknown as JsonValue,
    ...(result.order === undefined ? {} : { order: result.order.map((n) => s.players[n - 1]!) }),
    powers: { ...s.powers },
  });
  for (const p of s.players) if (!s.active.includes(p)) vacate(s, st, p);
  startPlay(s, time);
}

export function startPlay(s: DiplomacyState, time: number): void {
  s.stage = 'play';
  s.round++;
  startRound(s, time);
}

/** The rerun after an assignment reveal that failed: the values already revealed are public now (as in the beacon). */
export function rerunAssignment(s: DiplomacyState, time: number): void {
  s.round++;
  startRound(s, time);
}

// Seed 003's layers (docs/spec/escrow.md §3.4).

export function stepPeel(s: DiplomacyState, st: Stepper, msg: Accepted, body: { readonly [key: string]: unknown }, ctx: Ctx): void {
  const from = msg.envelope.from;
  const owner = String(body.owner);
  const p = s.peeling[owner];
  // A resend, a member already named, or an onion already opened or shut: changes nothing.
  if (p !== undefined && (p.shared[from] !== undefined || s.unwilling.includes(from) || p.value !== null || p.shut)) return;
  if (!isPeel(s) || p === undefined || !askedToPeel(s, owner).includes(from)) {
    st.violation('out_of_turn', from, msg, `${from} peeled ${owner}'s onion, which nobody asked of it in round ${s.round}`);
    return;
  }
  const context = layerContext(s, s.round, owner);
  if (!recordExchange(p, s.onions[owner]!.head, from, s.keys[from]!, { shared: String(body.shared), proof: String(body.proof) }, context, msg.line)) {
    st.violation('bad_share', from, msg, `${from}'s exchange for ${owner}'s onion is not a·E for its key (the proof fails)`);
    s.unwilling.push(from);
  }
  advance(s, st, msg.time, ctx, msg);
}

/**
 * Every member asked has answered (or been named): each onion is opened as far as the exchanges allow and
 * the members of the layer it stops at are asked; when nobody is left to ask, the opened orders go to the
 * adjudication and a shut onion's power takes the defaults.
 */
export function settlePeel(s: DiplomacyState, st: Stepper, ctx: Ctx | undefined, msg: Accepted | { line: number }, time: number): void {
  if (Object.keys(s.peeling).some((o) => askedToPeel(s, o).length > 0)) return;
  let asking = false;
  for (const [owner, p] of Object.entries(s.peeling)) {
    if (p.shut || p.value !== null) continue;
    p.waiting = p.waiting.filter((m) => ableToPeel(s, m));
    const known = p.faults.length;
    const ask = peelOn(p, layerPlan(othersOf(s, owner)), layerContext(s, s.round, owner), (m) => ableToPeel(s, m));
    const commitLine = { line: s.onions[owner]!.line, note: `${owner}'s commit, with the onion` };
    for (const f of p.faults.slice(known))
      st.violation('bad_layer', owner, msg, `${owner} sealed garbage in its onion of round ${s.round}: ${f.why}`, [
        { line: f.line, note: 'the proven exchange that shows it' },
        commitLine,
      ]);
    // An owner who withheld its reveal behind layers sealed wrong kept the choice the escrow was to take away: it forfeits.
    if (p.faults.length > known) forfeit(s, st, owner, 'bad_layer');
    if (p.value !== null) {
      const opening = readOpening(fromHex(p.value, 'core'));
      const value = (opening as { value?: unknown } | null)?.value;
      if (
        !opens({ game: s.gameId, player: owner, purpose: purpose(s.round) }, s.commits[owner]!, opening) ||
        (s.stage === 'play' && typeof value !== 'string')
      ) {
        st.violation('bad_layer', owner, msg, `the core of ${owner}'s onion of round ${s.round} does not open its commitment ${s.commits[owner]}`, [
          commitLine,
        ]);
        p.shut = true;
        forfeit(s, st, owner, 'bad_layer');
      }
    }
    if (ask.length > 0) asking = true;
  }
  if (asking) {
    enter(s, `peel/${Number(s.phase.slice(5)) + 1}`, time);
    sendPeels(s, st, ctx);
    return;
  }
  if (s.stage === 'assign') {
    settleAssignPeel(s, st, msg, time);
    return;
  }
  for (const [owner, p] of Object.entries(s.peeling)) {
    if (p.value !== null && !p.shut) {
      s.orders[p.power] = ordersIn((readOpening(fromHex(p.value, 'core')) as { value: string }).value);
      st.emit({ type: 'escrow-opened', player: owner, power: p.power, orders: s.orders[p.power]! });
    } else {
      st.emit({ type: 'escrow-failed', player: owner, power: p.power, depth: p.depth });
      // A core that does not open was named bad_layer above; an onion shut by members who did not peel is an absence.
      if (p.value === null && p.faults.length === 0)
        st.absent(owner, msg, `${owner} did not reveal in round ${s.round}, and its layers could not all be peeled: ${p.power}'s units take the defaults`);
    }
  }
  resolvePhase(s, st, time);
}

/** The assignment round's onions, peeled as far as they go: opened values enter the lottery; any other reruns it (§10.5.1). */
export function settleAssignPeel(s: DiplomacyState, st: Stepper, msg: Accepted | { line: number }, time: number): void {
  let all = true;
  for (const [owner, p] of Object.entries(s.peeling)) {
    if (p.value !== null && !p.shut) {
      if (takeOpened(s, st, msg, owner, (readOpening(fromHex(p.value, 'core')) as { value: unknown }).value)) continue;
      forfeit(s, st, owner, 'unexpected_message');
    } else {
      st.emit({ type: 'escrow-failed', player: owner, round: s.round, depth: p.depth });
      // Garbage was named bad_layer (and forfeited) above; an onion shut by members who did not peel is an absence.
      if (p.value === null && p.faults.length === 0)
        st.absent(
          owner,
          msg,
          `${owner} did not reveal in round ${s.round}, and its layers could not all be peeled: it takes no power and the powers are drawn again`,
        );
      forfeit(s, st, owner, 'withheld');
    }
    all = false;
  }
  if (all) finishAssignment(s, st, time);
  else rerunAssignment(s, time);
}
