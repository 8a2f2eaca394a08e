/**
 * The auditor (docs/SPEC.md §9): replays a whole transcript with the same
 * referee every player runs, and gives a verdict: valid, or the violations
 * (the first MAX_VIOLATIONS with their evidence, a count of the rest) with
 * their stable codes, the players responsible and the evidence. Lines are cut
 * by the one rule of lines.ts (§4.5), the same the file auditor uses.
 */
import { violationKind, type Violation } from './errors.js';
import type { Outcome } from './protocols/machine.js';
import { OBSERVER_CTX as OBSERVER, Referee, type RefereeOptions } from './referee.js';
import { TranscriptError, unreadableLine, type PreparedLine } from './transcript.js';
import { LineSplitter, splitText, type TranscriptLine } from './lines.js';

/** Violations kept with their evidence; beyond this only their number is (docs/SPEC.md §9), so memory stays bounded. */
export const MAX_VIOLATIONS = 1000;
/**
 * Characters of evidence envelopes from the lines being audited that a verdict keeps (16 Mi); beyond it the
 * evidence names the line and hash only. A thousand violations on 1 MiB lines would otherwise hold a gigabyte.
 */
export const MAX_EVIDENCE_CHARS = 16 << 20;

export interface Verdict {
  /**
   * No rule was broken on the lines read (docs/SPEC.md §9): a player who merely timed out (kind `absence`)
   * leaves a game valid, and so does a game still in progress.
   */
  readonly valid: boolean;
  /** Every finding, each with its kind: `rule` (a rule broken) or `absence` (a deadline missed, "timed out"). */
  readonly violations: readonly Violation[];
  /** True when the game has ended on these lines; false for a game in progress (or one whose log was altered). */
  readonly finished: boolean;
  /** True when the transcript stops before the game does and nothing showed it was altered: "in progress, N lines so far check". */
  readonly inProgress: boolean;
  /** Violations found beyond the first MAX_VIOLATIONS, counted but not kept. */
  readonly omitted: number;
  readonly lines: number;
  readonly gameId: string;
  readonly protocol: string;
  readonly outcome: Outcome | null;
  /** The first line that showed the log was altered (docs/SPEC.md §4.4), or null. */
  readonly alteredAt: number | null;
}

/** What stands in an altered log: what names nobody, and what a player's own signatures alone prove. */
const SIGNER_PROOFS = new Set(['equivocation', 'broken_chain']);

/** A finding with its kind written out (docs/SPEC.md §12), as a verdict carries it. */
export function withKind(v: Violation): Violation {
  return v.kind === undefined ? { ...v, kind: violationKind(v) } : v;
}

/**
 * True when no rule was broken among `violations` (absences do not count) and none were left uncounted by kind
 * (`omitted` beyond the kept ones are assumed rule-breaking: the verdict cannot say otherwise).
 */
export function rulesKept(violations: readonly Violation[], omitted: number): boolean {
  return omitted === 0 && violations.every((v) => violationKind(v) === 'absence');
}

export interface AuditorOptions extends RefereeOptions {
  /**
   * Whether an orderer's checked receipt vouches for lines 0…`line` as this copy holds them (its running log
   * hash recomputed from them, docs/spec/relay.md §2): a deadline claim on such a line is vouched without a
   * later envelope (docs/SPEC.md §4.4, "The unvouched tail").
   */
  readonly vouched?: (line: number) => boolean;
}

/** A streaming auditor: `start` with line 0, then `add` each later line (raw or already prepared). */
export class Auditor {
  readonly referee: Referee;
  private next = 1;
  private readonly tail = new UnvouchedClaims();
  private omitted = 0;
  private evidenceChars = 0;
  private readonly vouched: ((line: number) => boolean) | undefined;
  constructor(setupLine: string, options: AuditorOptions = {}) {
    this.referee = new Referee(setupLine, null, undefined, options);
    this.vouched = options.vouched;
  }
  add(text: string): void {
    this.addPrepared(this.referee.prepare(this.next, text));
  }
  addPrepared(prepared: PreparedLine): void {
    const before = this.referee.violations.length;
    const fed = this.referee.feed(prepared, OBSERVER);
    this.next++;
    this.tail.take(prepared, fed.violations);
    this.bound(before, prepared.line, prepared.text.length);
  }
  /** Adds the next line as cut by lines.ts: its text, or a line that could not be read at all. */
  addLine(line: TranscriptLine): void {
    if (line.problem === null) this.add(line.text);
    else this.addPrepared(unreadableLine(this.next, line.text, line.problem));
  }
  /** Keeps the verdict's memory bounded (docs/SPEC.md §9) after line `line` (`chars` long) added violations from `before` on. */
  private bound(before: number, line: number, chars: number): void {
    const kept = this.referee.violations;
    for (let i = before; i < kept.length; i++) {
      const v = kept[i]!;
      if (!v.evidence.some((e) => e.line === line && e.envelope !== undefined)) continue;
      if (this.evidenceChars + chars <= MAX_EVIDENCE_CHARS) this.evidenceChars += chars;
      else {
        const note = "envelope left out: the verdict's evidence budget is spent; the line and hash identify it";
        kept[i] = {
          ...v,
          evidence: v.evidence.map((e) =>
            e.line === line && e.envelope !== undefined ? { line, ...(e.hash !== undefined ? { hash: e.hash } : {}), note } : e,
          ),
        };
      }
    }
    if (kept.length > MAX_VIOLATIONS) {
      this.omitted += kept.length - MAX_VIOLATIONS;
      kept.length = MAX_VIOLATIONS;
    }
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
    const violations = (
      alteredAt === null ? this.referee.violations : this.referee.violations.filter((v) => v.player === null || SIGNER_PROOFS.has(v.code))
    ).map(withKind);
    // A deadline claim in the unvouched tail names nobody (docs/SPEC.md §4.4, §7.4): the line that would have
    // made it stale could have been dropped or moved after it by whoever held this copy.
    const unvouched = alteredAt === null ? this.tail.unvouched() : new Map<number, string>();
    for (const line of [...unvouched.keys()]) if (this.vouched?.(line) === true) unvouched.delete(line);
    let suspended = false;
    for (let i = 0; i < violations.length; i++) {
      const v = violations[i]!;
      const claimant = unvouched.get(v.seq);
      if (v.code !== 'withheld' || v.player === null || claimant === undefined) continue;
      suspended = true;
      violations[i] = {
        ...v,
        player: null,
        message:
          `line ${v.seq}: ${claimant}'s deadline claim names ${v.player} ${v.code}, but no later envelope of another player ` +
          `saw that line (none has an \`at\` beyond it): whoever held this copy could have dropped ${v.player}'s late message ` +
          `from the end of the log, or moved it after the claim, so ${v.player} is not named; a copy whose later lines ` +
          `vouch for the claim, or the orderer's receipts, settles it`,
      };
    }
    // A transcript that stops before the game does is a game in progress (docs/SPEC.md §9): it says nothing
    // against anyone, and its verdict says so instead of naming a finding.
    return {
      valid: rulesKept(violations, this.omitted) && alteredAt === null,
      violations,
      finished: outcome !== null,
      inProgress: outcome === null && alteredAt === null,
      omitted: this.omitted,
      lines: this.next,
      gameId: this.referee.checker.gameId,
      protocol: this.referee.checker.setup.protocol,
      // The outcome was reached on the claim's forfeit, which the log cannot support: the game is not judged.
      outcome: suspended ? null : outcome,
      alteredAt,
    };
  }
}

/**
 * The deadline claims that named someone and that no later line vouches for yet (docs/SPEC.md §4.4's unvouched
 * tail): a claim at line c is vouched once an envelope of a player other than its claimant stands later with
 * `at` > c, i.e. its author had seen the claim's line when it signed, and its `head` fixes the log there. The
 * claimant's own later envelopes do not count: a holder who is the claimant could sign them over the edited
 * log. Claims are forgotten as soon as they are vouched, so only the tail's are held.
 */
class UnvouchedClaims {
  private readonly pending = new Map<number, string>();
  take(prepared: PreparedLine, violations: readonly Violation[]): void {
    const env = prepared.envelope;
    if (env === null || !prepared.sigOk) return;
    for (const [line, claimant] of this.pending) if (line < env.at && env.from !== claimant) this.pending.delete(line);
    if (env.body.type === 'deadline' && violations.some((v) => v.code === 'withheld' && v.player !== null && v.seq === prepared.line)) {
      this.pending.set(prepared.line, env.from);
    }
  }
  /** Claim line → claimant, for the claims still unvouched. */
  unvouched(): Map<number, string> {
    return new Map(this.pending);
  }
}

export const emptyTranscript = (): TranscriptError => new TranscriptError('bad_input', 'the transcript is empty: it starts with its setup envelope');

/** Line 0, which must be readable: a transcript without its setup cannot be audited (exit 2). */
export function setupText(line: TranscriptLine): string {
  if (line.problem !== null)
    throw new TranscriptError('bad_json', `line 0 is ${line.problem}: a transcript starts with its setup envelope`, { field: 'line 0' });
  return line.text;
}

/** Takes the lines of a whole transcript as lines.ts cuts them: the first is the setup. */
class WholeAudit {
  private auditor: Auditor | null = null;
  constructor(private readonly options: RefereeOptions = {}) {}
  readonly take = (line: TranscriptLine): void => {
    if (this.auditor === null) this.auditor = new Auditor(setupText(line), this.options);
    else this.auditor.addLine(line);
  };
  verdict(): Verdict {
    if (this.auditor === null) throw emptyTranscript();
    return this.auditor.verdict();
  }
}

/**
 * Audits a transcript given as its lines: the same as auditing `lines.join("\n")`
 * (an element holding LFs is several lines, blank ones are skipped: §4.5). `options.registry` holds
 * machines from outside the core (a Diplomacy game).
 */
export function auditLines(lines: readonly string[], options: RefereeOptions = {}): Verdict {
  const audit = new WholeAudit(options);
  for (let i = 0; i < lines.length; i++) for (const line of splitText(lines[i]!, i === 0)) audit.take(line);
  return audit.verdict();
}

/** Audits a whole transcript, as text or as the bytes of its file (by the same line rule as the file auditor). */
export function auditText(input: string | Uint8Array, options: RefereeOptions = {}): Verdict {
  if (typeof input === 'string') return auditLines([input], options);
  const audit = new WholeAudit(options);
  const splitter = new LineSplitter();
  splitter.push(input, audit.take);
  splitter.end(audit.take);
  return audit.verdict();
}
