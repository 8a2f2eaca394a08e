/**
 * Each violation code (errors.ts, docs/SPEC.md §9) in one plain sentence, for
 * players who have not read the spec: the CLI's audit and the web app's verdict
 * print it beside the code and the message, which stay as they are.
 */
import type { ViolationCode } from './errors.js';

/**
 * One sentence per code, for a player. A code added to the core without a sentence here is printed
 * as before, with no explanation, so this table never has to change in step with the core.
 */
const MEANING: Partial<Record<ViolationCode, string>> = {
  malformed: 'a line that is not a well-formed fairtable message.',
  bad_signature: 'the signature does not check: the line was not signed by the player it names, or was changed after it was signed.',
  unknown_player: 'the line is signed by someone who is not a player of this game.',
  wrong_game: 'the line belongs to another game.',
  bad_position: 'the line claims a place in the log that is not its place.',
  broken_chain: 'the line does not name the line before it, as every line must: lines were removed or reordered.',
  equivocation: 'the player signed two different lines for the same place, so as to tell different players different things.',
  out_of_turn: 'the player acted when it was not its turn.',
  unexpected_message: 'the player sent a message the game did not expect at that point (twice, or out of order).',
  duplicate_commit: 'the player committed twice in one round.',
  commit_mismatch:
    "the player locked in a hidden value (a commitment) and later opened it to a different value. Opening to another value is how a player would pick the result after seeing the others'.",
  commit_set_mismatch: 'the player worked on a different set of commitments from the one everyone agreed.',
  withheld:
    'the player did not send what was due (a reveal, a move) before the deadline. Going silent when the game turns against you is a way to cheat, so it counts against the player.',
  false_deadline_claim: 'the player claimed that someone had missed a deadline when they had not.',
  wrong_result: 'the player announced a result that does not follow from the inputs everyone can see.',
  bad_key: 'the player published a key that is not valid or not the one it had committed to.',
  audit_mismatch: "when audited, the player's secret does not produce the values it had sent: those values were not the fair ones.",
  copied_commitment: "the player copied another player's commitment instead of making its own, to mirror that player's choice.",
  illegal_answer: 'the player made a move the rules do not allow; the game took the default move instead.',
  bad_vrf_proof: "the house's proof of its random number does not check: the number may not be the fair one.",
  key_swap: 'the house signed with a key other than the one in the contract, which would let it choose the outcome.',
  reused_r: 'the player reused a random value that must be fresh every round.',
  rejected_bet: 'the player placed a bet the rules refuse (malformed, or more than its balance).',
  bad_payload: "the player's message is not well formed for this protocol.",
  position_mismatch: 'the player signed a board position other than the one the revealed orders give.',
  bad_share: 'a published share of a secret does not match what its dealer committed to.',
  bad_carry: "a player passed on, as a gpg-only player's message, something that player did not sign for this game and round.",
  bad_layer:
    'the player sealed its escrow layers wrong (a box that does not open, or a value inside other than the one it revealed), so others could not open its value for it.',
  relay_forked: 'the relay showed different players different logs, each with its signed receipts.',
  relay_censored: 'the relay received a line (a witness holds its receipt) and left it out of the log.',
  relay_clock:
    "the relay's clock went backwards: it receipted a line at a time before its receipt of an earlier line, so no deadline is judged on its times from there.",
  clock_disagreement: "the players' own clocks and the relay's receipt times disagree about who missed a deadline, so nobody is named for it.",
  receipt_mismatch: "the relay's signed receipt does not match the line it stands for.",
};

/** The plain-words sentence for a code, or null when there is none. */
export function violationMeaning(code: string): string | null {
  return MEANING[code as ViolationCode] ?? null;
}
