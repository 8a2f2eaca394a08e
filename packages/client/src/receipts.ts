/**
 * The client's check of a relay's receipts (docs/spec/relay.md §2 and "The client"). Lines reach it in log order,
 * each with the receipt the relay signed for it; it keeps the running log hash L_n recomputed from the
 * lines themselves, so a receipt that does not fit what came before is caught at once. Receipts the relay
 * gave earlier for the same line (an `accepted` answer, an earlier copy) must agree with the one that
 * comes with the line: two that differ are the relay's own signatures showing two histories.
 *
 * What it finds is a `RelayLie`: not a player's violation (no player signed it) but a finding against the
 * orderer, with the relay's signed receipts as evidence. Pure and isomorphic: no clock, no I/O.
 */
import { envelopeHash, type Envelope } from '@fairtable/core/envelope.js';
import { parseCanonical } from '@fairtable/core/jcs.js';
import { envelopeShapeError } from '@fairtable/core/envelope.js';
import { firstLogHash, forkProof, nextLogHash, receiptError, type Receipt } from '@fairtable/core/order/receipt.js';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { verify as nobleVerify } from '@fairtable/core/identity.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import type { HoldingReceipt } from '@fairtable/core/order/holding.js';

/** What a relay did that its own receipts (or its own answers) show. */
export type RelayLieKind =
  /** A receipt that is not one: bad shape or a signature that does not verify under the relay's key. */
  | 'bad_receipt'
  /** A receipt about another game or another line than the entry it came with. */
  | 'wrong_receipt'
  /** The line served does not hash to what the relay's receipt for it says. */
  | 'altered_line'
  /** The receipt's running log hash does not follow from the lines before it (a dropped, inserted or reordered line). */
  | 'broken_log'
  /** Two receipts for one line that differ: the relay showed two histories. */
  | 'fork'
  /** The relay says its log is shorter than a line it already receipted. */
  | 'dropped'
  /** The relay receipted a line that no door admits (the referee found the log altered at it). */
  | 'admitted_bad_line'
  /** The relay's key changed between connections. */
  | 'key_changed'
  /** A sealed envelope the relay gave a holding receipt for is not in the log it receipted after the promised time (sealed.md §3). */
  | 'lost_sealed'
  /** A receipt time further ahead of the seat's clock than the tolerance (docs/spec/time.md §2). */
  | 'clock_ahead'
  /** A receipt time earlier than the receipt of an earlier line (time.md §2): the two receipts are the evidence. */
  | 'clock_backwards'
  /** The seat's own envelope receipted before the time the seat signed it, less the tolerance (time.md §2). */
  | 'clock_before_signed';

export interface RelayLie {
  readonly code: 'relay_lied';
  readonly kind: RelayLieKind;
  /** The log line the lie shows at. */
  readonly line: number;
  readonly message: string;
  /** The relay's signed receipts that show it (each verifies under `relay`). */
  readonly receipts: readonly Receipt[];
  /** The lines as the relay served them, where they matter. */
  readonly lines: readonly { readonly line: number; readonly text: string }[];
  /** The relay's public key, hex. */
  readonly relay: string;
  /** For `lost_sealed`: the relay's holding receipt for the envelope it lost. */
  readonly holding?: readonly HoldingReceipt[];
}

/** The envelope hash of a line, or null when the line is not an envelope (an honest relay never serves one). */
export function lineHash(text: string): string | null {
  try {
    const value = parseCanonical(text, 'line');
    if (envelopeShapeError(value) !== null) return null;
    return envelopeHash(value as unknown as Envelope);
  } catch {
    return null;
  }
}

export class ReceiptChain {
  /** One verified receipt per line held, in order. */
  readonly receipts: Receipt[] = [];
  /** L_n of the last line held. */
  private log: string | null = null;
  /** Receipts for lines not yet held (from `accepted` answers), by line. */
  private readonly promised = new Map<number, Receipt>();
  private readonly relayKey: Uint8Array;
  /**
   * Signatures of the relay's already found good, by signature and signed bytes. The relay signs a batch of
   * receipts once (relay.md §2), and a seat checks the receipt of its own line twice (the `accepted` answer, then
   * the line): every receipt of a batch carries the same signature over the same bytes, and a signature that
   * verified once over the same bytes under the same key verifies again, so it is checked once. Bounded: emptied
   * at 4,096 entries.
   */
  private readonly good = new Set<string>();
  private readonly verifyOnce: VerifyFn;

  /** `verifyFn`: the seat's Ed25519 verification (a native fast path gives noble's answers, docs/SPEC.md §3.2). */
  constructor(
    readonly gameId: string,
    readonly relay: string,
    verifyFn: VerifyFn = nobleVerify,
  ) {
    this.relayKey = fromHex(relay, 'relay', 32);
    this.verifyOnce = (sig, msg, key) => {
      const id = `${toHex(sig)}:${toHex(msg)}`;
      if (this.good.has(id)) return true;
      if (!verifyFn(sig, msg, key)) return false;
      if (this.good.size >= 4096) this.good.clear();
      this.good.add(id);
      return true;
    };
  }

  get length(): number {
    return this.receipts.length;
  }

  private lie(kind: RelayLieKind, line: number, message: string, receipts: readonly Receipt[], lines: { line: number; text: string }[] = []): RelayLie {
    return { code: 'relay_lied', kind, line, message, receipts, lines, relay: this.relay };
  }

  /** Checks a receipt's signature and that it is about `line` of this game. */
  private check(value: unknown, line: number, text: string | null): RelayLie | Receipt {
    const why = receiptError(value, this.relayKey, this.verifyOnce);
    if (why !== null)
      return this.lie('bad_receipt', line, `the relay's receipt for line ${line} is not one: ${why}`, [], text === null ? [] : [{ line, text }]);
    const r = value as Receipt;
    if (r.game !== this.gameId || r.line !== line)
      return this.lie(
        'wrong_receipt',
        line,
        `the relay sent, for line ${line} of game ${this.gameId}, its receipt for line ${r.line} of game ${r.game}`,
        [r],
        text === null ? [] : [{ line, text }],
      );
    return r;
  }

  /**
   * A receipt the relay gave without the line (its `accepted` answer to a submission). Checked against the
   * receipt already held for that line, else kept until the line comes.
   */
  promise(line: number, value: unknown): RelayLie | null {
    const r = this.check(value, line, null);
    if ('code' in r) return r;
    const held = this.receipts[line] ?? this.promised.get(line);
    if (held !== undefined) {
      const fork = forkProof(held, r);
      if (fork !== null) return this.lie('fork', line, fork, [held, r]);
      return null;
    }
    this.promised.set(line, r);
    return null;
  }

  /** The relay says its log holds `count` lines: a line it receipted beyond that was dropped. */
  claimLength(count: number): RelayLie | null {
    const beyond = [...this.receipts.slice(count), ...[...this.promised.values()].filter((r) => r.line >= count)];
    if (beyond.length === 0) return null;
    return this.lie(
      'dropped',
      count,
      `the relay says the log has ${count} lines, but it signed a receipt for line ${beyond[0]!.line}: it dropped a line it had recorded`,
      beyond.slice(0, 4),
    );
  }

  /**
   * A line the relay served again (a line already held): its receipt must be the one held. A copy that
   * carries the same receipt but other text is checked by hash.
   */
  again(line: number, text: string, value: unknown): RelayLie | null {
    const held = this.receipts[line];
    if (held === undefined) return null;
    const r = this.check(value, line, text);
    if ('code' in r) return r;
    const fork = forkProof(held, r);
    if (fork !== null) return this.lie('fork', line, fork, [held, r], [{ line, text }]);
    if (lineHash(text) !== held.hash)
      return this.lie(
        'altered_line',
        line,
        `the relay served line ${line} again with other text than its receipt's hash ${held.hash}`,
        [held],
        [{ line, text }],
      );
    return null;
  }

  /** The next line of the log (line `this.length`) with its receipt: null when it fits, else the lie. */
  next(text: string, value: unknown): RelayLie | null {
    const line = this.receipts.length;
    const r = this.check(value, line, text);
    if ('code' in r) return r;
    const promised = this.promised.get(line);
    if (promised !== undefined) {
      this.promised.delete(line);
      const fork = forkProof(promised, r);
      if (fork !== null) return this.lie('fork', line, fork, [promised, r], [{ line, text }]);
    }
    const hash = lineHash(text);
    if (hash !== r.hash)
      return this.lie(
        'altered_line',
        line,
        `line ${line} as the relay served it ${hash === null ? 'is not an envelope' : `hashes to ${hash}`}, but the relay's receipt for it says ${r.hash}`,
        [r],
        [{ line, text }],
      );
    const expected = this.log === null ? firstLogHash(this.gameId, hash) : nextLogHash(this.log, hash);
    if (r.log !== expected) {
      const previous = this.receipts[line - 1];
      return this.lie(
        'broken_log',
        line,
        `the relay's receipt for line ${line} commits to log ${r.log}, but the lines it served up to there give ${expected}: a line before it was dropped, inserted, reordered or altered`,
        previous === undefined ? [r] : [previous, r],
        [{ line, text }],
      );
    }
    this.log = r.log;
    this.receipts.push(r);
    return null;
  }

  /** Rebuilds the chain from a copy kept on disk; the first lie found, if any. */
  static replay(
    gameId: string,
    relay: string,
    lines: readonly string[],
    receipts: readonly unknown[],
    verifyFn?: VerifyFn,
  ): { chain: ReceiptChain; lie: RelayLie | null } {
    const chain = new ReceiptChain(gameId, relay, verifyFn);
    for (let i = 0; i < lines.length && i < receipts.length; i++) {
      const lie = chain.next(lines[i]!, receipts[i]);
      if (lie !== null) return { chain, lie };
    }
    return { chain, lie: null };
  }
}
