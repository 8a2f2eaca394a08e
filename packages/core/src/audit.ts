/**
 * The auditor (docs/SPEC.md §9): replays a whole transcript with the same
 * referee every player runs, and gives a verdict: valid, or every violation
 * with its stable code, the player responsible and the evidence.
 */
import type { Violation } from './errors.js';
import type { Outcome } from './protocols/machine.js';
import { OBSERVER_CTX as OBSERVER, Referee, type RefereeOptions } from './referee.js';
import type { PreparedLine } from './transcript.js';

export interface Verdict {
  readonly valid: boolean;
  readonly violations: readonly Violation[];
  readonly lines: number;
  readonly gameId: string;
  readonly protocol: string;
  readonly outcome: Outcome | null;
  /** The first line that showed the log was altered (docs/SPEC.md §4.4), or null. */
  readonly alteredAt: number | null;
}

/** What stands in an altered log: what names nobody, and what a player's own signatures alone prove. */
const SIGNER_PROOFS = new Set(['equivocation', 'broken_chain']);

/** A streaming auditor: `start` with line 0, then `add` each later line (raw or already prepared). */
export class Auditor {
  readonly referee: Referee;
  private next = 1;
  constructor(setupLine: string, options: RefereeOptions = {}) {
    this.referee = new Referee(setupLine, null, undefined, options);
  }
  add(text: string): void {
    this.referee.feedText(this.next++, text);
  }
  addPrepared(prepared: PreparedLine): void {
    this.referee.feed(prepared, OBSERVER);
    this.next++;
  }
  get nextLine(): number {
    return this.next;
  }
  verdict(): Verdict {
    const outcome = this.referee.outcome();
    const alteredAt = this.referee.alteredAt;
    // An altered log decides nothing about the game (docs/SPEC.md §4.4): a violation found on it before the
    // alteration showed may stem from it (a deleted move makes a later claim look valid), so only what
    // names nobody and what signatures alone prove are kept.
    const violations = alteredAt === null ? [...this.referee.violations] : this.referee.violations.filter((v) => v.player === null || SIGNER_PROOFS.has(v.code));
    if (outcome === null && alteredAt === null) {
      violations.push({
        code: 'withheld',
        player: null,
        seq: this.next - 1,
        message: 'the transcript ends before the game does: whoever had to act next never did, and no deadline claim says who',
        evidence: [],
      });
    }
    return {
      valid: violations.length === 0,
      violations,
      lines: this.next,
      gameId: this.referee.checker.gameId,
      protocol: this.referee.checker.setup.protocol,
      outcome,
      alteredAt,
    };
  }
}


export function auditLines(lines: readonly string[]): Verdict {
  const first = lines[0];
  if (first === undefined) throw new Error('empty transcript');
  const auditor = new Auditor(first);
  for (let i = 1; i < lines.length; i++) auditor.add(lines[i]!);
  return auditor.verdict();
}
