/**
 * The audit's verdict in plain words for someone who has never read the spec
 * (docs/SPEC.md §9; codes in packages/core/src/errors.ts): what each violation
 * code means, what it did to the outcome, the standing at the end, and how the
 * lines are counted. The codes and messages stay as they are: this only adds
 * sentences beside them.
 */
import type { Verdict } from '@fairtable/core/audit.js';
import type { ViolationCode } from '@fairtable/core/errors.js';

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
  relay_forked: 'the relay showed different players different logs, each with its signed receipts.',
  relay_censored: 'the relay received a line (a witness holds its receipt) and left it out of the log.',
  receipt_mismatch: "the relay's signed receipt does not match the line it stands for.",
};

/** The plain-words sentence for a code, or null when there is none. */
export function meaning(code: string): string | null {
  return MEANING[code as ViolationCode] ?? null;
}

/** What a violation did to the outcome, in a sentence, or null when the verdict has no outcome to speak of. */
export function consequence(verdict: Verdict, player: string | null): string | null {
  if (player === null || verdict.outcome === null) return null;
  const forfeit = verdict.outcome.forfeits.find((f) => f.player === player);
  if (forfeit !== undefined) return `${player} forfeited for it: the outcome above already counts that.`;
  return `${player} was not put out of the game for it: the outcome above is the game as its rules settled it.`;
}

/** Each player's number at the end (scores, squares, cash, balances), when the game's summary has one. */
export function standing(summary: unknown): string | null {
  const s = summary as { state?: Record<string, unknown> } & Record<string, unknown>;
  if (s === null || typeof s !== 'object') return null;
  for (const [key, label] of [
    ['scores', 'scores'],
    ['positions', 'squares'],
    ['cash', 'cash'],
    ['balances', 'balances'],
  ] as const) {
    const table = (s.state?.[key] ?? s[key]) as Record<string, unknown> | undefined;
    if (table === undefined || table === null || typeof table !== 'object') continue;
    const entries = Object.entries(table).filter((e): e is [string, number] => typeof e[1] === 'number');
    if (entries.length > 0) return `${label}: ${entries.map(([p, n]) => `${p} ${n}`).join(', ')}`;
  }
  return null;
}

/** How the verdict counts lines, said once with the first line it names, so that a reader finds it in an editor. */
export function lineNote(line: number): string {
  return `(lines count from 0, the setup: line ${line} is line ${line + 1} of the file, e.g. sed -n ${line + 1}p FILE)`;
}
