/**
 * Diplomacy without a GameMaster (seed 003; docs/spec/diplomacy.md §10): the `diplomacy` protocol machine.
 *
 * A game is a sequence of rounds, each four steps: every player commits (salted) to a value; once every
 * commitment is in, every player publicly claims its own commitment on the agreed commit set; once every
 * claim is in, every player reveals; every value is checked against its commitment. Round 0 (and any rerun
 * of it) assigns the powers: the value is a preference list in the seed's notation and 32 random bytes, and
 * the lotteries draw from the joint random number of those bytes (the beacon's construction). Every later
 * round is one phase of the game: the value is the power's orders file; once it is checked, every seat
 * adjudicates with the engine and signs the hash of the resulting position, and the next round starts from
 * that position. Orders that do not open their commitment (the seed's "Bad signature") leave all of that
 * power's units to the rules' defaults (hold, disband, waive) and name the player; a player who sends
 * nothing is named by the deadline mechanism and its power gets the same defaults; a seat that signs
 * another position is named (`position_mismatch`). The machine never sees how the commitments were
 * collected: sealed or not, it waits for all of them.
 *
 * Escrow of the commitments is a game parameter: `threshold` (k of the others open a withheld reveal
 * from shares) or `layers` (seed 003's onion, docs/spec/escrow.md §3.4: each commit carries it, each reveal
 * its seeds for the background check, and a withheld reveal is peeled one layer per step by proven exchanges).
 * It covers the assignment round's values as it does orders (§10.5.1: `assign-escrow.ts`; the helpers both
 * use are in `escrow.ts`).
 */
import { toHex } from '@fairtable/core/bytes.js';
import { commit, opens, type Opening } from '@fairtable/core/commitment.js';
import { FairtableError, type ViolationCode } from '@fairtable/core/errors.js';
import { fromHex } from '@fairtable/core/bytes.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import {
  decideBy,
  awaitingOf,
  deadlineTick,
  intParam,
  isDeadlineBody,
  settleClaim,
  Stepper,
  type Ctx,
  type Machine,
  type Outcome,
  type StepResult,
} from '@fairtable/core/protocols/machine.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import { canonicalize } from '@fairtable/core/jcs.js';
import { utf8 } from '@fairtable/core/bytes.js';
import { verifyShare } from '@fairtable/core/escrow/vss.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { openOwnAnswer, sealOwnAnswer } from '@fairtable/core/seat/own-answer.js';
import type { Body } from '@fairtable/core/envelope.js';
import { formatPreferences, parsePreferences, type Preferences } from '../assign.js';
import { positionHash, startingPosition } from '../position.js';
import { orderChoices } from './options.js';
import { DEFAULT_PGP_SKEW_MS, readGpgPlayers } from './gpg.js';
import { startPeel, wrap, type OnionHead } from '@fairtable/core/escrow/layers.js';
import {
  backgroundCheck,
  escrowed,
  escrowOf,
  escrowParam,
  isEscrowBody,
  layerContext,
  onionAtCommit,
  othersOf,
  purpose,
  sendShares,
  type EscrowBody,
} from './escrow.js';
import { assignEscrow, readAssignValue } from './assign-escrow.js';
import { voteAnswer, voteFromAnswer, voteLine } from './endings.js';
import {
  isPeel,
  MAX_VALUE_CHARS,
  type DiplomacyState,
  map,
  copy,
  phaseLabel,
  ordersFile,
  ordersIn,
  alive,
  required,
  missing,
  commitMs,
  enter,
} from './state.js';
import * as revise from './revise.js';
import { handoverStep } from './handover.js';
import { carried } from './carried.js';
import { decision } from './decision.js';
import { forfeit, phaseDeadlines, handOnAbsent, advance, ownContext, rerunAssignment, stepPeel, settlePeel } from './rounds.js';

export * from './state.js';

export const diplomacy: Machine<DiplomacyState> = {
  protocol: 'diplomacy',
  // A seat carries a gpg-only player's mail when it arrives, not because its journal says so (§11).
  carried: ['pgp-commit', 'pgp-reveal'],

  // The state is data through and through (strings, finite numbers, booleans, plain records and lists): saved as
  // it is, loaded as a deep copy of the saved JSON (docs/spec/mail.md §2.1), so a mail folder keeps a snapshot
  // instead of replaying its game on every command.
  saveState(s: DiplomacyState): JsonValue {
    return s as unknown as JsonValue;
  },

  loadState(saved: JsonValue): DiplomacyState {
    return JSON.parse(JSON.stringify(saved)) as DiplomacyState;
  },

  init(setup: GameSetup, gameId: string, me: string | null): StepResult<DiplomacyState> {
    const gpgPlayers = readGpgPlayers(
      setup.params.gpgPlayers,
      setup.players.map((p) => p.id),
    );
    const players = [...setup.players.map((p) => p.id), ...gpgPlayers.map((p) => p.id)];
    if (gpgPlayers.length > 0 && (setup.params.escrow ?? 'none') !== 'none')
      throw new FairtableError('bad_input', 'a gpg-only player can neither deal nor hold escrow shares: escrow needs every player to run fairtable', {
        field: 'escrow',
      });
    if (players.length < 1 || players.length > 16)
      throw new FairtableError('out_of_range', 'a Diplomacy game has 1 to 16 players (7 powers, the rest reserves)', { field: 'players' });
    const method = setup.params.assign ?? 'weighted';
    if (method !== 'fixed' && method !== 'weighted' && method !== 'serial')
      throw new FairtableError('bad_input', 'parameter assign must be "fixed", "weighted" or "serial"', { field: 'assign' });
    const typos = setup.params.typos ?? 'ignore-unit-letter';
    if (typos !== 'ignore-unit-letter' && typos !== 'strict')
      throw new FairtableError('bad_input', 'parameter typos must be "ignore-unit-letter" or "strict"', { field: 'typos' });
    if (method === 'fixed' && players.length > map.powers.length)
      throw new FairtableError('out_of_range', `assign "fixed" seats at most ${map.powers.length} players`, { field: 'players' });
    const s: DiplomacyState = {
      gameId,
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      stepMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      deadlines: phaseDeadlines(setup.params),
      absentAfter: intParam(setup.params, 'absentAfter', 0, 0, 1000),
      missed: {},
      method,
      typos,
      years: setup.params.years === undefined ? null : intParam(setup.params, 'years', 2, 1, 200),
      ending: null,
      pauseNext: false,
      paused: false,
      escrow: escrowParam(setup.params, players.length),
      layered: setup.params.escrow === 'layers',
      keys: Object.fromEntries(setup.players.map((p) => [p.id, p.key])),
      players,
      introduced: {},
      handovers: {},
      closed: [],
      vacated: {},
      replaced: {},
      seatedAt: {},
      gpgKeys: Object.fromEntries(gpgPlayers.map((p) => [p.id, p.publicKey])),
      pgpSkewMs: intParam(setup.params, 'pgpSkewMs', DEFAULT_PGP_SKEW_MS, 0, 2 ** 40),
      pgpCommits: {},
      pgpRefused: {},
      pgpUsed: Object.fromEntries(gpgPlayers.map((p) => [p.id, []])),
      active: [...players],
      stage: 'assign',
      phase: 'commit',
      round: 0,
      phaseStart: setup.created,
      claimed: null,
      powers: {},
      reserves: {},
      position: startingPosition(map),
      next: null,
      commits: {},
      commitSet: null,
      claims: {},
      reveals: {},
      signs: {},
      escrows: {},
      opening: {},
      onions: {},
      peeling: {},
      unwilling: [],
      contests: [],
      orders: {},
      excused: {},
      revisable: revise.revisableParam(setup.params),
      drafts: {},
      forfeits: [],
      me,
      mine: null,
    };
    if (method === 'fixed') {
      players.forEach((p, i) => (s.powers[p] = map.powers[i]!));
      s.stage = 'play';
      s.round = 1;
    }
    s.timeoutMs = commitMs(s);
    return new Stepper().result(s);
  },

  decision,

  decide(state: DiplomacyState, choice: JsonValue, ctx: Ctx): StepResult<DiplomacyState> {
    return decideBy(state, decision, choice, copy, (s, st, answer) => {
      let value: JsonValue;
      if (s.stage === 'assign') {
        const number = s.players.indexOf(s.me!) + 1;
        let prefs: Preferences[];
        try {
          prefs = parsePreferences(`${number} ${answer as string}`);
        } catch (e) {
          if (e instanceof FairtableError) throw new FairtableError('illegal_choice', `preferences: ${e.message}`, { field: 'preferences' });
          throw e;
        }
        value = { prefs: formatPreferences(prefs).replace(/^\d+ ?/, ''), random: toHex(ctx.random(32)) };
      } else {
        const fields = Object.keys(orderChoices(map, s.position, s.powers[s.me!]!).fields);
        const chosen = answer as Record<string, JsonValue>;
        const vote = typeof chosen.vote === 'string' ? voteFromAnswer(chosen.vote, map.powers) : null;
        value = ordersFile([...fields.map((f) => chosen[f] as string), ...(vote === null ? [] : [voteLine(vote)])]);
      }
      const draft = s.revisable && (answer as Record<string, JsonValue>).ready === false;
      if (revise.confirmDraft(s, st, value, draft)) return;
      const c = commit({ game: s.gameId, player: s.me!, purpose: purpose(s.round) }, value, ctx.random);
      s.mine = revise.mineAfter(s, c, answer, draft);
      // Escrow covers the assignment round's values as it does orders (§10.5.1).
      const escrow = s.escrow !== null ? escrowOf(s, c.opening, ctx) : null;
      let onion: OnionHead | null = null;
      if (s.layered) {
        const o = wrap(utf8(canonicalize(c.opening as unknown as JsonValue)), othersOf(s, s.me!), {
          context: layerContext(s, s.round, s.me!),
          keys: s.keys,
          random: ctx.random,
        });
        s.mine = { ...s.mine, seed: o.seed };
        onion = o.head;
      }
      // The answer sealed to the player's own key: another device with the key reads it back from the log.
      const own = sealOwnAnswer(answer, fromHex(s.keys[s.me!]!, 'key', 32), ownContext(s, s.round, s.me!), c.opening.nonce);
      st.send({
        type: 'commit',
        round: s.round,
        label: s.stage === 'assign' ? 'powers' : phaseLabel(s.position),
        commitment: c.commitment,
        ...(escrow === null ? {} : { escrow: escrow as unknown as JsonValue }),
        ...(onion === null ? {} : { onion: onion as unknown as JsonValue }),
        own: own as unknown as JsonValue,
        ...(draft ? { ready: false } : {}),
      });
    });
  },

  readBack(state: DiplomacyState, body: Body, ctx: Ctx): JsonValue | null {
    if (body.type === 'ready') return revise.readyAnswer(state);
    if (state.me === null || body.type !== 'commit' || typeof body.round !== 'number' || ctx.openShare === undefined) return null;
    return openOwnAnswer(body.own, ownContext(state, body.round, state.me), ctx.openShare);
  },

  step(state: DiplomacyState, msg: Accepted, ctx: Ctx): StepResult<DiplomacyState> {
    const st = new Stepper();
    const { envelope } = msg;
    const from = envelope.from;
    const body = envelope.body;
    // A newcomer's proposal and approvals, a newcomer not seated yet, a key whose power was handed over (§10.15).
    const handover = handoverStep(state, msg);
    if (handover !== null) return handover;
    // A gpg-only player's mail, carried by any seat of the setup (§11): judged as that player's message.
    if ((body.type === 'pgp-commit' || body.type === 'pgp-reveal') && state.keys[from] !== undefined && state.phase !== 'done') return carried(state, msg);
    if (body.type === 'setup' || !state.active.includes(from) || state.phase === 'done') return st.result(state);
    if (typeof body.round === 'number' && body.round < state.round) return st.result(state); // overtaken: stale, not a fault
    if (revise.lateRevision(state, msg)) return st.result(state);
    // A player the deadline already named for this round takes no further part in it: what it sends late changes nothing.
    if (
      body.round === state.round &&
      state.excused[from] === true &&
      body.type !== 'sign' &&
      body.type !== 'share' &&
      body.type !== 'peel' &&
      body.type !== 'deadline'
    )
      return st.result(state);
    const s = copy(state);
    const time = msg.time;
    const round = s.round;
    const wrongRound = (): boolean => {
      if (body.round === round) return false;
      st.violation('out_of_turn', from, msg, `${from}'s ${body.type} is for round ${String(body.round)}; the game is in round ${round}`);
      return true;
    };
    switch (body.type) {
      case 'commit': {
        if (wrongRound()) break;
        const label = s.stage === 'assign' ? 'powers' : phaseLabel(s.position);
        if (s.phase !== 'commit') st.violation('out_of_turn', from, msg, `${from} committed in round ${round} after the commit set was fixed`);
        else if (!required(s).includes(from)) st.violation('unexpected_message', from, msg, `${from} has no power to order in ${label}`);
        else if (s.commits[from] !== undefined && !revise.isDraft(s, from))
          st.violation('duplicate_commit', from, msg, `${from} committed twice in round ${round}`);
        else if (revise.readyProblem(s, body) !== null) st.violation('unexpected_message', from, msg, `${from}'s commit: ${revise.readyProblem(s, body)!}`);
        else if (typeof body.commitment !== 'string' || !/^[0-9a-f]{64}$/.test(body.commitment) || body.label !== label)
          st.violation('unexpected_message', from, msg, `${from}'s commitment is not 32 bytes of hex for ${label}`);
        else if (s.escrow !== null && !isEscrowBody(body.escrow, s.escrow.k, s.players.length - 1))
          st.violation(
            'unexpected_message',
            from,
            msg,
            `${from}'s commitment carries no escrow of ${s.escrow.k} commitments and ${s.players.length - 1} sealed shares`,
          );
        else if (s.layered && onionAtCommit(s, from, body.onion) !== null) st.violation('bad_layer', from, msg, onionAtCommit(s, from, body.onion)!);
        else if (Object.values(s.commits).includes(body.commitment)) {
          st.violation('copied_commitment', from, msg, `${from} copied another player's commitment in round ${round}`);
        } else {
          revise.recordCommit(s, st, from, body);
          s.commits[from] = body.commitment;
          if (s.stage === 'play') s.missed[from] = 0;
          if (s.paused) {
            // The first orders after an agreed pause resume the game: the commit deadline runs from them (§10.12).
            s.paused = false;
            s.phaseStart = time;
            s.timeoutMs = commitMs(s);
            st.emit({ type: 'resumed', round, player: from });
          }
          if (s.escrow !== null) s.escrows[from] = body.escrow as unknown as EscrowBody;
          if (s.layered) s.onions[from] = { head: body.onion as unknown as OnionHead, line: msg.line };
          advance(s, st, time, ctx, msg);
        }
        break;
      }
      case 'ready': {
        if (!wrongRound() && revise.stepReady(s, st, msg)) advance(s, st, time, ctx, msg);
        break;
      }
      case 'share': {
        if (wrongRound()) break;
        const dealer = typeof body.dealer === 'string' ? body.dealer : '';
        const o = s.opening[dealer];
        // Shares still on their way when k good ones had opened the orders: a race, held against nobody.
        if (o !== undefined && s.phase !== 'open' && from !== dealer && !o.answered.includes(from)) break;
        if (s.phase !== 'open' || o === undefined || from === dealer)
          st.violation('out_of_turn', from, msg, `${from} sent an escrow share of ${dealer}'s orders, which nobody is opening now`);
        else if (o.answered.includes(from)) st.violation('unexpected_message', from, msg, `${from} sent its share of ${dealer}'s escrow twice`);
        else {
          o.answered.push(from);
          const seat = s.players.filter((p) => p !== dealer).indexOf(from) + 1;
          if (body.share !== null) {
            if (typeof body.share === 'string' && verifyShare(seat, body.share, s.escrows[dealer]!.commitments)) o.shares[from] = body.share;
            else st.violation('bad_share', from, msg, `${from}'s share of ${dealer}'s escrow does not match ${dealer}'s published commitments (seat ${seat})`);
          }
          advance(s, st, time, ctx, msg);
        }
        break;
      }
      case 'peel': {
        if (wrongRound()) break;
        stepPeel(s, st, msg, body, ctx);
        break;
      }
      case 'claim': {
        if (wrongRound()) break;
        if (s.phase !== 'claim') st.violation('out_of_turn', from, msg, `${from} claimed its commitment in the ${s.phase} step of round ${round}`);
        else if (s.commits[from] === undefined) st.violation('unexpected_message', from, msg, `${from} claimed a commitment it never made in round ${round}`);
        else if (s.claims[from] !== undefined) st.violation('unexpected_message', from, msg, `${from} claimed twice in round ${round}`);
        else if (body.commitment !== s.commits[from] || body.commitSet !== s.commitSet) {
          // It does not vouch for the published set: it takes no part in this round's reveal (its power's units get the defaults).
          st.violation(
            'commit_set_mismatch',
            from,
            msg,
            `${from} claimed commitment ${String(body.commitment)} on set ${String(body.commitSet)}; the log has ${s.commits[from]} on ${s.commitSet}`,
          );
          s.excused[from] = true;
          advance(s, st, time, ctx, msg);
        } else {
          s.claims[from] = true;
          advance(s, st, time, ctx, msg);
        }
        break;
      }
      case 'reveal': {
        if (wrongRound()) break;
        if (s.phase !== 'reveal')
          st.violation('out_of_turn', from, msg, `${from} revealed in the ${s.phase} step of round ${round}, before every claim was in`);
        else if (s.claims[from] === undefined || s.reveals[from] !== undefined)
          st.violation('unexpected_message', from, msg, `${from} has nothing to reveal in round ${round}`);
        else {
          const good = opens({ game: s.gameId, player: from, purpose: purpose(round) }, s.commits[from]!, body.opening);
          const value = good ? (body.opening as unknown as Opening).value : null;
          const size = good ? JSON.stringify(value).length : 0;
          if (s.stage === 'assign') {
            const read = good && size <= MAX_VALUE_CHARS ? readAssignValue(s, from, value) : null;
            if (read === null) {
              st.violation(
                good ? 'unexpected_message' : 'commit_mismatch',
                from,
                msg,
                good
                  ? `${from}'s revealed preferences are not a list in the seed's notation with 32 random bytes`
                  : `${from}'s reveal does not open its commitment ${s.commits[from]} (round ${round}): bad signature`,
              );
              forfeit(s, st, from, good ? 'unexpected_message' : 'commit_mismatch');
              // With escrow a reveal that does not open is one withheld: its committed value is opened and counts (§10.5.1).
              if (!good && assignEscrow(s) && escrowed(s, from)) advance(s, st, time, ctx, msg);
              else rerunAssignment(s, time);
            } else {
              s.reveals[from] = read as unknown as JsonValue;
              if (s.layered && s.onions[from] !== undefined) backgroundCheck(s, st, msg, from, body);
              advance(s, st, time, ctx, msg);
            }
          } else {
            const power = s.powers[from]!;
            if (!good || typeof value !== 'string' || size > MAX_VALUE_CHARS) {
              // Seed 003: "In the event of a bad signature the player's units would be deemed to have all been ordered to stand."
              st.violation(
                'commit_mismatch',
                from,
                msg,
                `${from}'s orders for ${power} in ${phaseLabel(s.position)} do not match its commitment ${s.commits[from]}: all of ${power}'s units take the rules' defaults (hold, disband, waive)`,
              );
              s.reveals[from] = [];
            } else {
              s.reveals[from] = ordersIn(value);
              if (s.layered && s.onions[from] !== undefined) backgroundCheck(s, st, msg, from, body);
            }
            s.orders[power] = s.reveals[from] as string[];
            advance(s, st, time, ctx, msg);
          }
        }
        break;
      }
      case 'sign': {
        if (wrongRound()) break;
        if (s.phase !== 'sign') st.violation('out_of_turn', from, msg, `${from} signed a position in the ${s.phase} step of round ${round}`);
        else if (s.signs[from] !== undefined) st.violation('unexpected_message', from, msg, `${from} signed twice in round ${round}`);
        else {
          if (body.position !== s.next!.hash) {
            st.violation(
              'position_mismatch',
              from,
              msg,
              `${from} signed position ${String(body.position)} after ${phaseLabel(s.position)}; the revealed orders give ${s.next!.hash}`,
              [{ note: `adjudicate the orders revealed in round ${round} from the position of hash ${positionHash(map, s.position)}` }],
            );
          }
          s.signs[from] = typeof body.position === 'string' ? body.position : '';
          advance(s, st, time, ctx, msg);
        }
        break;
      }
      default: {
        if (isDeadlineBody(body)) {
          const settled = settleClaim(st, msg, body, s, { round, late: missing(s), isOut: (p) => !s.active.includes(p) });
          if (settled === null) break;
          let late = revise.settleDrafts(s, st, s.phase, settled);
          const step = s.phase;
          // A gpg-only player for whom only files that are not its commitment were carried sent orders that do not
          // match (§11.5): commit_mismatch, the units take the defaults, and it plays on, as any player would.
          const mismatched = step === 'reveal' ? late.filter((p) => s.pgpRefused[p] !== undefined) : [];
          for (const p of mismatched) {
            st.violation(
              'commit_mismatch',
              p,
              msg,
              `${p}'s orders file carried at line ${s.pgpRefused[p]} does not match its signed commitment, and no file that does came before the deadline: ${s.stage === 'play' ? `all of ${s.powers[p]}'s units take the rules' defaults` : 'it takes no power'}`,
            );
            if (s.stage === 'play') {
              s.reveals[p] = [];
              s.orders[s.powers[p]!] = [];
            }
          }
          late = late.filter((p) => !mismatched.includes(p));
          if (s.stage === 'assign') for (const p of mismatched) forfeit(s, st, p, 'commit_mismatch');
          // Commit and leave (docs/spec/diplomacy.md §10.6.1): with escrow, a committed player's missing reveal is opened
          // by the others and counts; nobody is named. Without it, the one reveal still missing when others are in
          // was withheld by one who saw them (a rule broken); anything else is an absence (docs/SPEC.md §7.4).
          const steered = step === 'reveal' && late.length === 1 && Object.keys(s.reveals).length > 0;
          const leftAfterCommit = (p: string): boolean => (step === 'reveal' || step === 'claim') && escrowed(s, p) && s.commits[p] !== undefined;
          for (const p of late) {
            if (leftAfterCommit(p)) continue;
            st.withheld(p, steered, msg, `${p} did not ${step} in round ${round} before the deadline (${s.phaseStart + s.timeoutMs}); claimed by ${from}`);
          }
          if (s.stage === 'assign' && (step === 'commit' || step === 'claim' || step === 'reveal')) {
            // With escrow a committed player who left stands by its commitment, as in a phase: its value is opened
            // from escrow once the reveal step ends, and counts (§10.5.1). Anyone else missing forfeits.
            const kept = late.filter(leftAfterCommit);
            for (const p of late) if (!kept.includes(p)) forfeit(s, st, p, 'withheld');
            for (const p of kept) {
              if (step === 'claim') s.claims[p] = true;
              else s.excused[p] = true;
            }
            if ((step === 'reveal' && kept.length < late.length) || mismatched.length > 0) rerunAssignment(s, time);
          } else if (step === 'commit' || step === 'claim') {
            // Missing orders (or a commitment nobody vouched for): this phase the power's units take the defaults.
            // With escrow, a committed player who left stands by its signed commitment: the others' claims fix the
            // set, and its reveal will be opened from escrow.
            for (const p of late) {
              if (leftAfterCommit(p)) s.claims[p] = true;
              else s.excused[p] = true;
            }
            if (step === 'commit') handOnAbsent(s, st, late);
          } else if (step === 'reveal') {
            // A withheld reveal is the last revealer's option to choose between its orders and the defaults: it forfeits,
            // and with escrow the others open the orders it committed to, so the choice is gone.
            for (const p of late) {
              const power = s.powers[p];
              if (!escrowed(s, p)) forfeit(s, st, p, 'withheld');
              if (s.escrow !== null && power !== undefined && s.escrows[p] !== undefined) s.opening[p] = { power, shares: {}, answered: [] };
              const onion = s.onions[p];
              if (s.layered && power !== undefined && onion !== undefined) s.peeling[p] = { ...startPeel(onion.head), power };
            }
            if (Object.keys(s.opening).length > 0) {
              enter(s, 'open', time);
              sendShares(s, st, ctx);
            } else if (Object.keys(s.peeling).length > 0) {
              enter(s, 'peel/0', time);
              settlePeel(s, st, ctx, msg, time);
            }
          } else if (step === 'open') {
            for (const p of late) for (const o of Object.values(s.opening)) if (!o.answered.includes(p)) o.answered.push(p);
          } else if (isPeel(s)) {
            s.unwilling.push(...late);
            for (const o of Object.values(s.peeling)) o.waiting = o.waiting.filter((m) => !late.includes(m));
          } else if (step === 'sign') {
            for (const p of late) s.signs[p] = '';
          }
          advance(s, st, time, ctx, msg);
        } else st.violation('unexpected_message', from, msg, `${from} sent a "${body.type}", which the diplomacy rules do not know`);
      }
    }
    return st.result(s);
  },

  awaiting: (state: DiplomacyState) => awaitingOf(state, missing(state)),

  tick(state: DiplomacyState, ctx: Ctx): StepResult<DiplomacyState> {
    const drafting = revise.draftTick(state, ctx, copy);
    if (drafting !== null) return drafting;
    return deadlineTick(
      state,
      ctx,
      { me: state.me, seated: state.me !== null && state.active.includes(state.me), round: state.round, missing: () => missing(state) },
      copy,
    );
  },

  penalize(state: DiplomacyState, player: string, code: ViolationCode, _line: number, ctx: Ctx, time: number): StepResult<DiplomacyState> {
    const st = new Stepper();
    if (!state.active.includes(player) || state.phase === 'done') return st.result(state);
    const s = copy(state);
    forfeit(s, st, player, code);
    // With escrow the values of the assignment round are final once claimed: a forfeit there reruns nothing (§10.5.1).
    if (s.stage === 'assign' && s.phase === 'reveal' && Object.keys(s.reveals).length > 0 && !assignEscrow(s)) rerunAssignment(s, time);
    else advance(s, st, time, ctx);
    return st.result(s);
  },

  outcome(state: DiplomacyState): Outcome | null {
    if (state.phase !== 'done') return null;
    const position = state.position;
    const holder = (power: string): string | undefined => Object.keys(state.powers).find((p) => state.powers[p] === power);
    const ending = position.winner === null ? state.ending : null;
    const winners =
      position.winner !== null
        ? [holder(position.winner)].filter((p): p is string => p !== undefined)
        : ending?.kind === 'concede'
          ? [holder(ending.to)].filter((p): p is string => p !== undefined)
          : ending?.kind === 'cancel'
            ? []
            : state.active.filter((p) => state.powers[p] !== undefined && alive(position, state.powers[p]!));
    const centres: Record<string, number> = {};
    for (const o of position.supplyCenterOwners) centres[o.power] = (centres[o.power] ?? 0) + 1;
    return {
      winners,
      forfeits: state.forfeits,
      summary: {
        phase: phaseLabel(position),
        position: positionHash(map, position),
        winner: ending?.kind === 'concede' ? ending.to : position.winner,
        centres,
        powers: { ...state.powers },
        ...(ending === null ? {} : { ending: voteAnswer(ending) }),
      },
    };
  },
};
