/**
 * A gpg-only player's mail, carried into the log by the other seats (docs/spec/diplomacy.md §11): the machine's
 * step for `pgp-commit` and `pgp-reveal` envelopes. Only what the player's own key vouches for counts.
 */
import type { JsonValue } from '@fairtable/core/jcs.js';
import { Stepper, type StepResult } from '@fairtable/core/protocols/machine.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { readAssignValue } from './assign-escrow.js';
import { afterSalt, carriedCommitment, checkCarriedCommit, fileMatches, fileRandom, notationValue, saltPrefix, saltProblem } from './gpg.js';
import { advance, forfeit, rerunAssignment } from './rounds.js';
import { copy, MAX_VALUE_CHARS, ordersIn, phaseLabel, required, type DiplomacyState } from './state.js';

/**
 * A gpg-only player's commitment (`pgp-commit`: its `.asc`) or orders file (`pgp-reveal`), carried by the
 * envelope's author (§11). Only what the player's key vouches for counts; a carrier can fail to forward,
 * or forward twice (the first copy counts), but what it carries that is not the player's is named
 * `bad_carry` (a signature) or left aside until the deadline (a file, which nobody signed).
 */
export function carried(state: DiplomacyState, msg: Accepted): StepResult<DiplomacyState> {
  const st = new Stepper();
  const body = msg.envelope.body;
  const from = msg.envelope.from;
  const player = typeof body.player === 'string' ? body.player : '';
  const key = state.gpgKeys[player];
  const ignore = (why: string): StepResult<DiplomacyState> => {
    st.emit({ type: 'pgp-ignored', player, carrier: from, line: msg.line, why });
    return st.result(state);
  };
  if (key === undefined) {
    st.violation('unexpected_message', from, msg, `${from} carried a ${body.type} for ${player}, who is not a gpg-only player of this game`);
    return st.result(state);
  }
  if (typeof body.round !== 'number' || body.round > state.round) {
    st.violation('out_of_turn', from, msg, `${from} carried ${player}'s ${body.type} for round ${String(body.round)}; the game is in round ${state.round}`);
    return st.result(state);
  }
  // Carrying is a service and several seats race to do it: what comes late or twice is set aside, held against nobody.
  if (body.round < state.round) return ignore('for an earlier round');
  if (!state.active.includes(player) || state.excused[player] === true) return ignore('the player takes no part in this round');
  const s = copy(state);
  const label = s.stage === 'assign' ? 'powers' : phaseLabel(s.position);
  if (body.type === 'pgp-commit') {
    if (s.pgpCommits[player] !== undefined) return ignore('the player has a commitment this round: the first one carried counts');
    if (s.phase !== 'commit') return ignore(`the commit set of round ${s.round} is fixed`);
    if (!required(s).includes(player)) return ignore(`${player} has no power to order in ${label}`);
    const binding = notationValue(s.gameId, s.round, label, player);
    const check = checkCarriedCommit(key, body.signature as JsonValue | undefined, s.phaseStart, s.pgpSkewMs, s.pgpUsed[player] ?? [], binding);
    if (!check.ok) {
      st.violation('bad_carry', from, msg, `${from} carried, as ${player}'s commitment for ${label}, a signature that is not one: ${check.problem}`);
      return st.result(state);
    }
    s.pgpCommits[player] = check.commit;
    s.pgpUsed[player] = [...(s.pgpUsed[player] ?? []), check.commit.digest];
    s.commits[player] = carriedCommitment(s.gameId, player, s.round, check.commit.digest);
    st.emit({ type: 'pgp-commit', player, carrier: from, round: s.round, created: check.commit.created });
    advance(s, st, msg.time);
    return st.result(s);
  }
  if (s.phase !== 'reveal' || s.claims[player] === undefined) return ignore(`round ${s.round} is not revealing ${player}'s orders now`);
  if (s.reveals[player] !== undefined) return ignore("the player's file is in: the first one carried counts");
  const file = body.file;
  const commit = s.pgpCommits[player]!;
  const prefix = saltPrefix(s.gameId, s.round, label, player);
  if (typeof file !== 'string' || file.length > MAX_VALUE_CHARS || !fileMatches(commit, file)) {
    // A file that does not even say it is this round's orders of this player is no attempt at this reveal.
    if (typeof file !== 'string' || saltProblem(file, prefix) !== null) return ignore(`not ${player}'s file for round ${s.round}`);
    // Nobody signed this file, so it names nobody now; the deadline decides (§11.5).
    if (s.pgpRefused[player] === undefined) s.pgpRefused[player] = msg.line;
    st.emit({ type: 'pgp-reveal-refused', player, carrier: from, line: msg.line });
    return st.result(s);
  }
  const problem = saltProblem(file, prefix);
  if (s.stage === 'assign') {
    const read = problem === null ? readAssignValue(s, player, { prefs: ordersIn(afterSalt(file))[0] ?? '', random: fileRandom(file) }) : null;
    if (read === null) {
      const code = problem !== null ? 'commit_mismatch' : 'unexpected_message';
      st.violation(code, player, msg, `${player}'s signed preference file ${problem ?? "holds no list in the seed's notation"}: it takes no power`);
      forfeit(s, st, player, code);
      rerunAssignment(s, msg.time);
    } else {
      s.reveals[player] = read as unknown as JsonValue;
      advance(s, st, msg.time);
    }
    return st.result(s);
  }
  const power = s.powers[player]!;
  if (problem !== null) {
    // The player signed this file: a salt line that is not this round's is the player's own fault.
    st.violation(
      'commit_mismatch',
      player,
      msg,
      `${player}'s signed orders for ${power} in ${label}: ${problem}; all of ${power}'s units take the rules' defaults`,
    );
    s.reveals[player] = [];
  } else s.reveals[player] = ordersIn(afterSalt(file));
  s.orders[power] = s.reveals[player] as string[];
  st.emit({ type: 'pgp-reveal', player, carrier: from, round: s.round });
  advance(s, st, msg.time);
  return st.result(s);
}
