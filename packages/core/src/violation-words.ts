/**
 * Each violation code (errors.ts, docs/SPEC.md §9) in one plain sentence, for
 * players who have not read the spec: the CLI's audit and the web app's verdict
 * print it beside the code and the message, which stay as they are.
 */
import type { ViolationCode, ViolationKind } from './errors.js';

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
    'the player held back a reveal after it could see what that reveal decides (every other value of it was out), so its silence could choose the result; it counts against the player.',
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
  bad_key_share: "the player's share of the deck's key is not a valid key, or comes without a proof that the player knows its secret.",
  reused_key: 'the player published a share of the deck key that another seat also published: shares must be fresh and its own.',
  bad_shuffle: "the player's shuffle of the deck does not come with a valid proof that it only reordered and re-encrypted the same cards.",
  bad_decryption_share: "the player's part in turning a card face up does not check against its key: it tried to show a card other than the one dealt.",
  card_not_dealt: 'the player showed a card that was not dealt to its hand.',
};

/** A missed deadline that steered nothing (a finding of kind `absence`, docs/SPEC.md §12): not rule breaking. */
export const TIMED_OUT =
  'timed out: the player did not send what was due before the deadline (a commitment, a move, a share), at a point where silence could not choose any result. This is an absence, not rule breaking: the game applied its rule for a missed deadline and went on.';

/** The plain-words sentence for a code (of kind `absence`: "timed out"), or null when there is none. */
export function violationMeaning(code: string, kind: ViolationKind = 'rule'): string | null {
  if (kind === 'absence') return TIMED_OUT;
  return MEANING[code as ViolationCode] ?? null;
}

/** What a missed deadline does in each protocol when the player is not put out (docs/SPEC.md §7.4). */
const ABSENCE_DEFAULT: Readonly<Record<string, string>> = {
  diplomacy: "its power's units took the rules' defaults for the phase (hold, disband, waive); it plays on",
  chain: 'the game took the default answer for it',
  'keyed-stream': 'the game took the default answer for it',
  beacon: 'its value was opened from escrow and counts',
};

/**
 * The game's consequence of a player's absence, in words: forfeit when the outcome says so, else the protocol's
 * default (a hold, a default answer, a skipped turn).
 */
export function absenceConsequence(protocol: string, forfeited: boolean): string {
  if (forfeited) return "it forfeited: the game's rule for a missed deadline; the others played on without it";
  return ABSENCE_DEFAULT[protocol] ?? 'the game took its default for it and went on';
}
