/**
 * Publishing to a game's witnesses (docs/spec/relay.md §8): every envelope the seat sends to the ordering
 * relay also goes to each witness relay the setup names (`params.witnesses`), in the seat's own order, and
 * each witness's signed receipt is kept as evidence (`EvidenceRecord`) that the envelope existed then. A
 * witness that cannot be reached, or that says the client is over its rate (429), is asked again, in order,
 * with a back-off; a witness that refuses an envelope (or is full, 507) is reported and skipped (it holds nothing after it, so it stops being useful, not the game).
 *
 * A sealed envelope (docs/spec/sealed.md) is published only once it stands in the log (`logged`): a witness
 * serves what it holds to anyone, and who has committed must not show before the set is released. The
 * seat's envelopes after it wait behind it, so each witness still sees the seat's own order.
 *
 * Isomorphic: `fetch` and the timers are the platform's; no clock is read.
 */
import { fromHex } from '@fairtable/core/bytes.js';
import { witnessReceiptError, type WitnessReceipt } from '@fairtable/core/order/witness.js';
import { sealedRule, setOf, type SealedRule } from '@fairtable/core/order/sealer.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import type { EvidenceRecord } from '@fairtable/core/order/censorship.js';
import { lineHash } from './receipts.js';

export interface WitnessRelay {
  readonly url: string;
  readonly key: string;
}

type Poster = (url: string, init: { method: string; body: string }) => Promise<{ readonly status: number; text(): Promise<string> }>;

/** An envelope on its way to a witness; `sealed`: its hash, when it waits to stand in the log first. */
interface Item {
  readonly text: string;
  readonly setup: boolean;
  readonly sealed: string | null;
}

interface Queue {
  readonly witness: WitnessRelay;
  readonly waiting: Item[];
  busy: boolean;
  failedAt: number;
  stopped: boolean;
}

export class WitnessPublisher {
  private readonly queues: Queue[];
  private closed = false;
  /** The game's sealed rule, read from the setup line; null when nothing is sealed. */
  private rule: SealedRule | null = null;
  /** Hashes of sealed envelopes published and not yet seen in the log. */
  private readonly unlogged = new Set<string>();

  constructor(
    readonly gameId: string,
    witnesses: readonly WitnessRelay[],
    private readonly post: Poster,
    private readonly onEvidence: (record: EvidenceRecord) => void,
    private readonly onProblem: (witness: WitnessRelay, message: string) => void,
  ) {
    this.queues = witnesses.map((witness) => ({ witness, waiting: [], busy: false, failedAt: 0, stopped: false }));
  }

  /** The setup line first (it opens the game at the witness), then each envelope as it first goes out. */
  publish(text: string, isSetup = false): void {
    if (isSetup) this.rule = ruleOf(text);
    const sealed = isSetup ? null : this.sealedHash(text);
    if (sealed !== null) this.unlogged.add(sealed);
    for (const q of this.queues) {
      if (q.stopped) continue;
      q.waiting.push({ text, setup: isSetup, sealed });
      this.pump(q);
    }
  }

  /** A line now stands in the game's log (its envelope hash): a sealed envelope waiting for it goes out. */
  logged(hash: string): void {
    if (!this.unlogged.delete(hash)) return;
    for (const q of this.queues) this.pump(q);
  }

  /** The hash of `text` when its envelope is of a sealed type of the game, else null. */
  private sealedHash(text: string): string | null {
    if (this.rule === null) return null;
    try {
      const body = (JSON.parse(text) as { body?: { type?: unknown } }).body;
      if (body === undefined || typeof body.type !== 'string' || setOf(this.rule, body as { type: string }) === null) return null;
    } catch {
      return null;
    }
    return lineHash(text);
  }

  close(): void {
    this.closed = true;
  }

  /** How many envelopes still wait to reach a witness that has not been given up. */
  get waiting(): number {
    return this.queues.reduce((n, q) => n + (q.stopped ? 0 : q.waiting.length), 0);
  }

  private pump(q: Queue): void {
    if (q.busy || this.closed || q.stopped) return;
    const next = q.waiting[0];
    if (next === undefined) return;
    // Sealed and not in the log yet: it (and what follows it) waits.
    if (next.sealed !== null && this.unlogged.has(next.sealed)) return;
    q.busy = true;
    const { text, setup: isSetup } = next;
    const base = q.witness.url.replace(/\/+$/, '');
    const url = isSetup ? `${base}/witness/games` : `${base}/witness/games/${this.gameId}`;
    this.post(url, { method: 'POST', body: text })
      .then(async (res) => {
        const body = JSON.parse(await res.text()) as { receipt?: unknown; error?: { code?: string; message?: string } };
        if (res.status === 200 || res.status === 201) {
          const why = witnessReceiptError(body.receipt, fromHex(q.witness.key, 'witness', 32));
          const r = body.receipt as WitnessReceipt;
          if (why !== null || r.hash !== lineHash(text) || r.game !== this.gameId) {
            q.stopped = true;
            this.onProblem(q.witness, `witness ${q.witness.url} answered with a receipt that is not its own for this envelope (${why ?? 'another envelope'})`);
          } else this.onEvidence({ relay: q.witness.key, text, receipt: r });
        } else if (res.status === 429 || (res.status >= 500 && res.status !== 507)) throw new Error(`status ${res.status}`);
        else {
          // A refusal is final for this witness: what follows would be refused as a gap.
          q.stopped = true;
          this.onProblem(q.witness, `witness ${q.witness.url} refused an envelope: [${body.error?.code ?? res.status}] ${body.error?.message ?? ''}`);
        }
        q.waiting.shift();
        q.failedAt = 0;
        q.busy = false;
        this.pump(q);
      })
      .catch(() => {
        // Unreachable (or an answer that is not JSON): asked again, in order, after a doubling wait.
        q.failedAt = Math.min(Math.max(q.failedAt * 2, 250), 10_000);
        setTimeout(() => {
          q.busy = false;
          this.pump(q);
        }, q.failedAt);
      });
  }
}

/** The sealed rule of the game whose setup line is `text`; null when it has none (or the line cannot be read). */
function ruleOf(text: string): SealedRule | null {
  try {
    const setup = (JSON.parse(text) as { body?: { setup?: GameSetup } }).body?.setup;
    return setup === undefined ? null : sealedRule(setup);
  } catch {
    return null;
  }
}
