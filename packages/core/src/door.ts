/**
 * The door: what an orderer (the in-memory table, the relay)
 * checks before it appends a line to a game's log (docs/SPEC.md §10.1). It
 * runs the transcript checker's own rules (`TranscriptChecker.judge`), so a
 * log built through a door is exactly what every reader accepts, plus the one
 * rule only a connection can check: an envelope comes from the player of the
 * authenticated connection that submits it. A refused envelope is never
 * recorded; the refusal names the submitting player, with the envelope as
 * evidence, because only that player could have sent it over its connection.
 */
import { FairtableError, type Evidence, type ViolationCode } from './errors.js';
import { prepareLine, TranscriptChecker, type CheckerSnapshot, type PreparedLine, type VerifyFn } from './transcript.js';

/** The longest line a door takes (bytes of UTF-16 text; a longer one is refused unread). */
export const MAX_LINE_LENGTH = 1 << 20;

export type Admission =
  | { readonly ok: true; readonly line: number; readonly hash: string; readonly duplicate: boolean }
  | {
      readonly ok: false;
      readonly code: ViolationCode | 'too_long' | 'not_your_seat';
      readonly player: string;
      readonly message: string;
      readonly evidence: readonly Evidence[];
    };

/** A refusal of `player`'s line `text`, with the line's start as the evidence unless other evidence is given. */
const refusal =
  (text: string, player: string) =>
  (code: ViolationCode | 'too_long' | 'not_your_seat', message: string, evidence: readonly Evidence[] = [{ note: text.slice(0, 200) }]): Admission => ({
    ok: false,
    code,
    player,
    message,
    evidence,
  });

export class Door {
  readonly checker: TranscriptChecker;
  private readonly verify: VerifyFn | undefined;

  constructor(setupLine: string, options: { readonly verify?: VerifyFn; readonly from?: CheckerSnapshot } = {}) {
    this.verify = options.verify;
    if (options.from !== undefined) {
      // A door that goes on from its checker's snapshot: line 0 and everything after it already stand.
      this.checker = TranscriptChecker.restore(setupLine, options.from, options.verify === undefined ? {} : { verify: options.verify });
      return;
    }
    this.checker = new TranscriptChecker(setupLine, options.verify === undefined ? {} : { verify: options.verify });
    // Line 0, the setup, stands in the log from the start.
    const first = this.checker.admit(prepareLine(0, setupLine, this.checker.keys, this.verify));
    if (first.kind !== 'accept') throw new FairtableError('bad_input', "the setup line does not verify under its own creator's key");
  }

  /** The number of lines in the log. */
  get length(): number {
    return this.checker.lines;
  }

  /** Checks `text`, submitted over `player`'s connection, as the log's next line; records it when accepted. */
  admit(text: string, player: string): Admission {
    return this.decide(text, player, true);
  }

  /** The same checks as `admit`, recording nothing: an orderer in sealed mode holds the line back (docs/spec/sealed.md). */
  check(text: string, player: string): Admission {
    return this.decide(text, player, false);
  }

  private decide(text: string, player: string, record: boolean): Admission {
    const line = this.checker.lines;
    const refuse = refusal(text, player);
    if (text.length > MAX_LINE_LENGTH) return refuse('too_long', `${player} submitted a line of ${text.length} characters; the limit is ${MAX_LINE_LENGTH}`);
    return this.decidePrepared(prepareLine(line, text, this.checker.keys, this.verify), player, record);
  }

  /**
   * `admit` for a line already read, hashed and verified elsewhere (an orderer's verifying threads, by
   * `prepareLine` under this game's keys): the same rule from there on, at the log's next position.
   */
  admitPrepared(read: Omit<PreparedLine, 'line'>, player: string): Admission {
    return this.decidePrepared(read, player, true);
  }

  private decidePrepared(read: Omit<PreparedLine, 'line'>, player: string, record: boolean): Admission {
    const line = this.checker.lines;
    const text = read.text;
    // Written out, not `{ ...read, line }`: V8 (Node 20) gives a spread followed by a new member a new hidden
    // class on every call, and an orderer builds this object for every line (docs/spec/relay.md, "The pipeline").
    const prepared: PreparedLine = { text, envelope: read.envelope, shapeError: read.shapeError, hash: read.hash, sigOk: read.sigOk, line };
    const refuse = refusal(text, player);
    if (prepared.envelope !== null && prepared.envelope.from !== player) {
      return refuse('not_your_seat', `${player} submitted an envelope from ${prepared.envelope.from}: a connection speaks only for its own player`);
    }
    const judgement = record ? this.checker.admit(prepared) : this.checker.judge(prepared);
    switch (judgement.kind) {
      case 'accept':
        if (judgement.brokenChain !== null) return refuse('broken_chain', judgement.brokenChain.message, judgement.brokenChain.evidence);
        return { ok: true, line, hash: prepared.hash!, duplicate: false };
      case 'duplicate':
        return { ok: true, line: judgement.line, hash: prepared.hash!, duplicate: true };
      case 'equivocation':
        return refuse('equivocation', judgement.violation.message, judgement.violation.evidence);
      case 'refuse':
        // At the door a `head` that names another line is the submitter's false reference, not an altered log.
        return refuse(judgement.headMismatch ? 'broken_chain' : judgement.violation.code, judgement.violation.message, judgement.violation.evidence);
    }
  }
}
