/**
 * Signidice: player-vs-house randomness from unique signatures (seed 002;
 * docs/spec/signidice.md). The seed's smart contract is this pure machine,
 * the arbiter, with an escrow ledger; every player and the auditor run it, so
 * every payout is recomputed from the transcript.
 *
 * A round: each player bets `{bet, R, hr}` (an open 20-byte R and a commitment
 * to a hidden 20-byte HR, in an envelope the player signs: the seed's steps
 * 3–6). V = A ‖ R with A the player's public key (step 7); the house signs
 * alpha = "fairtable/signidice/v1" ‖ 0x00 ‖ game ‖ u32be(round) ‖ V with its
 * unique-signature key, S = beta of the proof (step 8–9); the players open
 * their HR (steps 10–11); each player's lucky number is drawn from
 *   HS_p = H("signidice-seed", JCS({game, round, player, S: S_p, hr: [HR in arrival order]}))
 * (step 12) and bets are settled (step 13). Deadlines: a house that does not
 * sign in time forfeits the bounty and refunds the bets; a player who does not
 * open HR in time loses its bet to the house.
 */
import { concatBytes, fromHex, isHex, toHex, u32be, utf8 } from '../bytes.js';
import { commit, opens, type Opening } from '../commitment.js';
import { hashJson } from '../hash.js';
import { RandomStream } from '../stream.js';
import { FairtableError, type ViolationCode } from '../errors.js';
import type { GameSetup } from '../setup.js';
import type { Accepted } from '../transcript.js';
import type { JsonValue } from '../jcs.js';
import { SIGNIDICE_MESSAGES } from '../protocols/messages.js';
import {
  decideBy,
  awaitingOf,
  deadlineTick,
  intParam,
  type Choices,
  type Decision,
  isDeadlineBody,
  settleClaim,
  Stepper,
  type Ctx,
  type Machine,
  type Outcome,
  type StepResult,
} from '../protocols/machine.js';
import { checkHouseKey, verifyHouseProof, type HouseKey } from './house-key.js';
import { betError, payout, wheelSize, type Bet, type Wheel } from './roulette.js';

export const HOUSE = 'house';
const R_BYTES = 20;

interface PlacedBet {
  bet: Bet;
  r: string;
  hr: string;
}

export interface SignidiceState {
  readonly gameId: string;
  readonly key: HouseKey;
  readonly wheel: Wheel;
  readonly timeoutMs: number;
  readonly rounds: number;
  readonly maxPlayers: number;
  readonly stake: number;
  readonly playerKeys: Record<string, string>;
  active: string[];
  balances: Record<string, number>;
  escrow: number;
  bounty: number;
  round: number;
  phase: 'bet' | 'sign' | 'hr' | 'done';
  phaseStart: number;
  bets: Record<string, PlacedBet>;
  /** Players who sat this round out. */
  passed: string[];
  sigs: Record<string, string>;
  hrs: Record<string, string>;
  hrOrder: string[];
  usedR: Record<string, string[]>;
  lucky: number[];
  forfeits: { player: string; code: ViolationCode }[];
  houseOut: boolean;
  me: string | null;
  mine: { round: number; opening: Opening } | null;
  /** The round in which the local player already chose to pass. */
  sentPass: number;
  /** The line of the deadline claim that closed this round's betting (-1: closed by the last bet). */
  betsClosedAt: number;
  claimed: string | null;
}

export function signidiceAlpha(gameId: string, round: number, playerKey: string, r: string): Uint8Array {
  return concatBytes(utf8('fairtable/signidice/v1'), new Uint8Array([0]), fromHex(gameId), u32be(round), fromHex(playerKey), fromHex(r));
}

export function luckyNumber(gameId: string, round: number, player: string, s: string, hrs: readonly string[], wheel: Wheel): number {
  const seed = hashJson('signidice-seed', { game: gameId, round, player, S: s, hr: [...hrs] });
  const n = new RandomStream(seed, 'signidice/lucky').below(wheelSize(wheel));
  return wheel === 'dice' ? n + 1 : n;
}

const hrPurpose = (round: number): string => `signidice/hr/${round}`;

function copy(s: SignidiceState): SignidiceState {
  return {
    ...s,
    active: [...s.active],
    balances: { ...s.balances },
    bets: { ...s.bets },
    passed: [...s.passed],
    lucky: [...s.lucky],
    sigs: { ...s.sigs },
    hrs: { ...s.hrs },
    hrOrder: [...s.hrOrder],
    usedR: { ...s.usedR },
    forfeits: [...s.forfeits],
  };
}

function startRound(s: SignidiceState, time: number): void {
  s.phase = 'bet';
  s.betsClosedAt = -1;
  s.phaseStart = time;
  s.bets = {};
  s.passed = [];
  s.sigs = {};
  s.hrs = {};
  s.hrOrder = [];
  s.claimed = null;
  s.mine = null;
  // The local player's bet (or pass) waits for its decision (betDecision).
}

/** The bets a player with `balance` may place on `wheel`, or sitting the round out (null). */
export function betChoices(wheel: Wheel, balance: number): Choices {
  const amount: Choices = { type: 'integer', min: '1', max: String(balance) };
  const pass: Choices = { type: 'one-of', values: [null] };
  if (balance < 1) return pass;
  const bet = (kinds: readonly string[], pick: Choices): Choices => ({
    type: 'record',
    fields: { kind: { type: 'one-of', values: [...kinds] }, pick, amount },
  });
  if (wheel === 'dice') return { type: 'any-of', options: [bet(['face'], { type: 'integer', min: '1', max: '6' }), pass] };
  return {
    type: 'any-of',
    options: [
      bet(['red', 'black', 'odd', 'even'], { type: 'one-of', values: [null] }),
      bet(['dozen'], { type: 'integer', min: '1', max: '3' }),
      bet(['straight'], { type: 'integer', min: '0', max: '36' }),
      pass,
    ],
  };
}

function betDecision(s: SignidiceState): Decision | null {
  if (s.phase !== 'bet' || s.me === null || s.me === HOUSE || !s.active.includes(s.me)) return null;
  if (s.bets[s.me] !== undefined || s.passed.includes(s.me) || (s.mine !== null && s.mine.round === s.round) || s.sentPass === s.round) return null;
  const balance = s.balances[s.me] ?? 0;
  return {
    kind: 'bet',
    prompt: `Round ${s.round} of ${s.rounds}: bet 1 to ${balance} on the wheel, or pass this round`,
    choices: betChoices(s.wheel, balance),
    deadline: s.phaseStart + s.timeoutMs,
  };
}

function bettors(s: SignidiceState): string[] {
  return s.active.filter((p) => s.bets[p] !== undefined);
}

function toSignPhase(s: SignidiceState, st: Stepper, ctx: Ctx, time: number): void {
  if (bettors(s).length === 0) {
    // Nobody bet this round: nothing to sign or settle, the next round starts (or the contract closes).
    s.round++;
    if (s.round > s.rounds || s.active.length === 0) finish(s, st);
    else startRound(s, time);
    return;
  }
  s.phase = 'sign';
  s.phaseStart = time;
  s.claimed = null;
  if (s.me === HOUSE && ctx.prover !== undefined) {
    for (const p of bettors(s)) {
      const alpha = signidiceAlpha(s.gameId, s.round, s.playerKeys[p]!, s.bets[p]!.r);
      st.send({ type: 'sign', round: s.round, player: p, key: s.key as unknown as JsonValue, pi: toHex(ctx.prover(alpha)) });
    }
  }
}

function toHrPhase(s: SignidiceState, st: Stepper, time: number): void {
  s.phase = 'hr';
  s.phaseStart = time;
  s.claimed = null;
  if (s.me !== null && s.mine !== null && s.mine.round === s.round && s.bets[s.me] !== undefined && s.active.includes(s.me)) {
    st.send({ type: 'hr', round: s.round, opening: s.mine.opening });
  }
}

function settle(s: SignidiceState, st: Stepper, ctx: Ctx, time: number): void {
  const hrs = s.hrOrder.map((p) => s.hrs[p]!);
  for (const p of Object.keys(s.bets)) {
    const placed = s.bets[p]!;
    if (s.hrs[p] === undefined) continue; // withheld: already paid to the house
    const lucky = luckyNumber(s.gameId, s.round, p, s.sigs[p]!, hrs, s.wheel);
    s.lucky.push(lucky);
    const multiple = payout(placed.bet, lucky);
    const won = placed.bet.amount * multiple;
    s.escrow -= placed.bet.amount;
    if (multiple > 0) {
      s.balances[p]! += placed.bet.amount + won;
      s.balances[HOUSE]! -= won;
    } else {
      s.balances[HOUSE]! += placed.bet.amount;
    }
    st.emit({ type: 'spin', round: s.round, player: p, lucky, bet: placed.bet as unknown as JsonValue, won: multiple > 0 ? won : -placed.bet.amount });
  }
  s.round++;
  if (s.round > s.rounds || s.active.length === 0) finish(s, st);
  else startRound(s, time);
}

function finish(s: SignidiceState, st: Stepper): void {
  if (!s.houseOut) s.balances[HOUSE]! += s.bounty;
  s.bounty = 0;
  s.phase = 'done';
  st.emit({ type: 'closed', balances: { ...s.balances } });
}

/** The house missed a deadline or signed wrongly: bets back, the bounty shared among the players waiting on it, the contract closed. */
function houseForfeits(s: SignidiceState, st: Stepper, code: ViolationCode): void {
  const waiting = bettors(s).filter((p) => s.sigs[p] === undefined);
  const owed = waiting.length > 0 ? waiting : bettors(s);
  for (const p of bettors(s)) {
    s.balances[p]! += s.bets[p]!.bet.amount;
    s.escrow -= s.bets[p]!.bet.amount;
  }
  const share = owed.length > 0 ? Math.floor(s.bounty / owed.length) : 0;
  for (const p of owed) s.balances[p]! += share;
  s.balances[HOUSE]! += s.bounty - share * owed.length;
  s.bounty = 0;
  s.houseOut = true;
  s.forfeits.push({ player: HOUSE, code });
  st.emit({ type: 'forfeit', player: HOUSE, code });
  s.phase = 'done';
  st.emit({ type: 'closed', balances: { ...s.balances } });
}

function playerForfeits(s: SignidiceState, st: Stepper, player: string, code: ViolationCode): void {
  if (!s.active.includes(player)) return;
  s.active = s.active.filter((p) => p !== player);
  const placed = s.bets[player];
  if (placed !== undefined && s.hrs[player] === undefined) {
    s.escrow -= placed.bet.amount;
    s.balances[HOUSE]! += placed.bet.amount;
  }
  s.forfeits.push({ player, code });
  st.emit({ type: 'forfeit', player, code });
}

function advance(s: SignidiceState, st: Stepper, ctx: Ctx, time: number): void {
  if (s.phase === 'bet' && s.active.every((p) => s.bets[p] !== undefined || s.passed.includes(p))) toSignPhase(s, st, ctx, time);
  if (s.phase === 'sign' && bettors(s).every((p) => s.sigs[p] !== undefined)) toHrPhase(s, st, time);
  if (s.phase === 'hr' && bettors(s).every((p) => s.hrs[p] !== undefined)) settle(s, st, ctx, time);
}

function missing(s: SignidiceState): string[] {
  if (s.phase === 'bet') return s.active.filter((p) => s.bets[p] === undefined && !s.passed.includes(p));
  if (s.phase === 'sign') return bettors(s).some((p) => s.sigs[p] === undefined) ? [HOUSE] : [];
  if (s.phase === 'hr') return bettors(s).filter((p) => s.hrs[p] === undefined);
  return [];
}

export const signidice: Machine<SignidiceState> = {
  protocol: 'signidice',
  messages: SIGNIDICE_MESSAGES,

  init(setup: GameSetup, gameId: string, me: string | null, ctx: Ctx): StepResult<SignidiceState> {
    const key = checkHouseKey(setup.params.houseKey);
    const ids = setup.players.map((p) => p.id);
    if (!ids.includes(HOUSE)) throw new FairtableError('bad_setup', 'a Signidice game needs a player named "house"', { field: 'players' });
    const players = ids.filter((p) => p !== HOUSE);
    const maxPlayers = intParam(setup.params, 'maxPlayers', 100, 1, 1_000_000);
    if (players.length > maxPlayers)
      throw new FairtableError('out_of_range', `the setup seats ${players.length} players, the contract allows ${maxPlayers}`, { field: 'maxPlayers' });
    const stake = intParam(setup.params, 'stake', 1000, 0, 2 ** 40);
    const bounty = intParam(setup.params, 'bounty', 1000, 0, 2 ** 40);
    const bankroll = intParam(setup.params, 'houseBankroll', 100_000, 0, 2 ** 40);
    const wheel = setup.params.wheel === 'dice' ? 'dice' : 'roulette';
    const s: SignidiceState = {
      gameId,
      key,
      wheel,
      timeoutMs: intParam(setup.params, 'timeoutMs', 30_000, 1, 2 ** 40),
      rounds: intParam(setup.params, 'rounds', 1, 1, 1_000_000),
      maxPlayers,
      stake,
      playerKeys: Object.fromEntries(setup.players.map((p) => [p.id, p.key])),
      active: players,
      balances: { [HOUSE]: bankroll - bounty, ...Object.fromEntries(players.map((p) => [p, stake])) },
      escrow: 0,
      bounty,
      round: 1,
      phase: 'bet',
      phaseStart: setup.created,
      bets: {},
      passed: [],
      sigs: {},
      hrs: {},
      hrOrder: [],
      usedR: Object.fromEntries(players.map((p) => [p, [] as string[]])),
      lucky: [],
      forfeits: [],
      houseOut: false,
      me,
      mine: null,
      sentPass: 0,
      betsClosedAt: -1,
      claimed: null,
    };
    const st = new Stepper();
    startRound(s, setup.created);
    return st.result(s);
  },

  decision: betDecision,

  // The state is data through and through (the house key included): saved as it is.
  saveState(s: SignidiceState): JsonValue {
    return s as unknown as JsonValue;
  },

  loadState(saved: JsonValue): SignidiceState {
    return copy(saved as unknown as SignidiceState);
  },

  decide(state: SignidiceState, choice: JsonValue, ctx: Ctx): StepResult<SignidiceState> {
    return decideBy(state, betDecision, choice, copy, (s, st, bet) => {
      if (bet === null) {
        s.sentPass = s.round;
        st.send({ type: 'pass', round: s.round });
        return;
      }
      const r = toHex(ctx.random(R_BYTES));
      const c = commit({ game: s.gameId, player: s.me!, purpose: hrPurpose(s.round) }, toHex(ctx.random(R_BYTES)), ctx.random);
      s.mine = { round: s.round, opening: c.opening };
      st.send({ type: 'bet', round: s.round, bet, r, hr: c.commitment });
    });
  },

  step(state: SignidiceState, msg: Accepted, ctx: Ctx): StepResult<SignidiceState> {
    const st = new Stepper();
    const { envelope } = msg;
    const from = envelope.from;
    const body = envelope.body;
    if (body.type === 'setup') return st.result(state);
    if (from !== HOUSE && !state.active.includes(from)) return st.result(state);
    if (typeof body.round === 'number' && body.round < state.round) return st.result(state);
    const s = copy(state);
    if (s.phase === 'done') {
      // Players race to the end; what arrives after it changes nothing and is held against no one.
      return st.result(s);
    } else if (
      (body.type === 'bet' || body.type === 'pass') &&
      from !== HOUSE &&
      body.round === s.round &&
      s.phase !== 'bet' &&
      envelope.at <= s.betsClosedAt
    ) {
      // Written before its author could see the claim that closed this round's betting: an honest race,
      // held against no one (docs/SPEC.md §7); the player sits the round out.
      return st.result(s);
    } else if (body.type === 'bet' && from !== HOUSE) {
      const problem = betError(s.wheel, body.bet);
      if (s.phase !== 'bet' || body.round !== s.round) st.violation('out_of_turn', from, msg, `${from} bet outside round ${s.round}'s betting`);
      else if (s.bets[from] !== undefined) st.violation('unexpected_message', from, msg, `${from} bet twice in round ${s.round}`);
      else if (problem !== null || !isHex(body.r, R_BYTES) || !isHex(body.hr, 32))
        st.violation('rejected_bet', from, msg, `${from}'s bet is rejected: ${problem ?? 'R must be 20 bytes and hr a commitment'}`);
      else if (s.usedR[from]!.includes(body.r))
        st.violation('reused_r', from, msg, `${from} reused R ${body.r} from an earlier round; the bet is rejected (seed 002 step 6)`);
      else if ((body.bet as Bet).amount > s.balances[from]!)
        st.violation('rejected_bet', from, msg, `${from} bet ${(body.bet as Bet).amount} with a balance of ${s.balances[from]}`);
      else {
        const bet = body.bet as Bet;
        s.bets[from] = { bet, r: body.r, hr: body.hr };
        s.usedR[from] = [...s.usedR[from]!, body.r];
        s.balances[from]! -= bet.amount;
        s.escrow += bet.amount;
        advance(s, st, ctx, msg.time);
      }
    } else if (body.type === 'pass' && from !== HOUSE) {
      if (s.phase !== 'bet' || body.round !== s.round) st.violation('out_of_turn', from, msg, `${from} passed outside round ${s.round}'s betting`);
      else if (s.bets[from] !== undefined || s.passed.includes(from))
        st.violation('unexpected_message', from, msg, `${from} passed after betting or passing in round ${s.round}`);
      else {
        s.passed.push(from);
        advance(s, st, ctx, msg.time);
      }
    } else if (body.type === 'sign' && from === HOUSE) {
      const p = body.player as string;
      const placed = typeof p === 'string' ? s.bets[p] : undefined;
      if (s.phase !== 'sign' || body.round !== s.round || placed === undefined) {
        st.violation('out_of_turn', from, msg, `the house signed for ${String(p)} outside round ${s.round}'s signing`);
      } else if (s.sigs[p] !== undefined) {
        st.violation('unexpected_message', from, msg, `the house signed ${p}'s V twice`);
      } else if (JSON.stringify(body.key) !== JSON.stringify(s.key)) {
        st.violation('key_swap', HOUSE, msg, `the house signed ${p}'s V with a key other than the one in the contract`);
        houseForfeits(s, st, 'key_swap');
      } else {
        const alpha = signidiceAlpha(s.gameId, s.round, s.playerKeys[p]!, placed.r);
        const verdict = verifyHouseProof(s.key, alpha, body.pi);
        if (!verdict.valid) {
          st.violation(
            'bad_vrf_proof',
            HOUSE,
            msg,
            `the house's signature for ${p} is not the unique signature of V = A ‖ R under the contract's key (${verdict.code}: ${verdict.message})`,
          );
          houseForfeits(s, st, 'bad_vrf_proof');
        } else {
          s.sigs[p] = toHex(verdict.beta);
          advance(s, st, ctx, msg.time);
        }
      }
    } else if (body.type === 'hr' && from !== HOUSE) {
      const placed = s.bets[from];
      if (s.phase !== 'hr' || body.round !== s.round || placed === undefined)
        st.violation('out_of_turn', from, msg, `${from} opened HR outside round ${s.round}'s reveal`);
      else if (s.hrs[from] !== undefined) st.violation('unexpected_message', from, msg, `${from} opened HR twice`);
      else if (
        !opens({ game: s.gameId, player: from, purpose: hrPurpose(s.round) }, placed.hr, body.opening) ||
        !isHex((body.opening as Opening).value, R_BYTES)
      ) {
        st.violation('commit_mismatch', from, msg, `${from}'s HR does not open its signed commitment ${placed.hr}`);
        playerForfeits(s, st, from, 'commit_mismatch');
        advance(s, st, ctx, msg.time);
      } else {
        s.hrs[from] = (body.opening as Opening).value as string;
        s.hrOrder.push(from);
        advance(s, st, ctx, msg.time);
      }
    } else if (isDeadlineBody(body)) {
      const late = settleClaim(st, msg, body, s, { round: s.round, late: missing(s), isOut: (p) => p !== HOUSE && !s.active.includes(p) });
      if (late === null) return st.result(s);
      if (s.phase === 'bet') {
        // Not betting is no fault: those players sit this round out.
        s.betsClosedAt = msg.line;
        toSignPhase(s, st, ctx, msg.time);
      } else if (s.phase === 'sign') {
        st.violation('withheld', HOUSE, msg, `the house did not sign every V of round ${s.round} before the deadline; claimed by ${from}`);
        houseForfeits(s, st, 'withheld');
      } else {
        for (const p of late) {
          st.violation('withheld', p, msg, `${p} did not open its HR in round ${s.round} before the deadline; its bet goes to the house; claimed by ${from}`);
          playerForfeits(s, st, p, 'withheld');
        }
        s.phaseStart = msg.time;
        const stillOpen = bettors(s).filter((p) => s.hrs[p] === undefined);
        if (stillOpen.length === 0) settle(s, st, ctx, msg.time);
      }
    } else {
      st.violation(
        'unexpected_message',
        from,
        msg,
        `${from} sent a "${body.type}", which Signidice does not take from ${from === HOUSE ? 'the house' : 'a player'}`,
      );
    }
    return st.result(s);
  },

  awaiting: (state: SignidiceState) => awaitingOf(state, missing(state)),

  tick(state: SignidiceState, ctx: Ctx): StepResult<SignidiceState> {
    return deadlineTick(
      state,
      ctx,
      { me: state.me, seated: state.me === HOUSE || (state.me !== null && state.active.includes(state.me)), round: state.round, missing: () => missing(state) },
      copy,
    );
  },

  penalize(state: SignidiceState, player: string, code: ViolationCode, _line: number, ctx: Ctx, time: number): StepResult<SignidiceState> {
    const st = new Stepper();
    if (state.phase === 'done') return st.result(state);
    const s = copy(state);
    if (player === HOUSE) houseForfeits(s, st, code);
    else if (s.active.includes(player)) {
      playerForfeits(s, st, player, code);
      advance(s, st, ctx, time);
    }
    return st.result(s);
  },

  outcome(state: SignidiceState): Outcome | null {
    if (state.phase !== 'done') return null;
    const winners = Object.keys(state.balances).filter((p) => p !== HOUSE && state.balances[p]! > state.stake);
    return {
      winners,
      forfeits: state.forfeits,
      summary: { balances: state.balances, rounds: state.round - 1, lucky: state.lucky, escrow: state.escrow },
    };
  },
};
