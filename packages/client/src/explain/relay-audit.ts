/**
 * The audit with the relay's receipts, for a page (docs/spec/relay.md §9, docs/spec/web.md §5): core's
 * `auditWithReceipts`, the audit `fairtable audit --relay-key` runs, so that deadlines are judged on the times
 * the relay signed and a relay whose own receipts convict it (`relay_forked`, `relay_censored`) is named.
 *
 * `auditWithReceipts` checks signatures through a synchronous function, and a page's fast verifier (WebCrypto)
 * answers later: so every signature the audit will ask about (the lines', the receipts', the evidence
 * records') is gathered first and checked through the page's `Verifier` in batches that give the page the
 * thread back, and the audit then runs on those answers. A signature it asks about that was not gathered is
 * checked by noble on the spot: the answers are the same either way, only slower.
 */
import { equalBytes, fromHex, isHex, toHex } from '@fairtable/core/bytes.js';
import { verify as nobleVerify } from '@fairtable/core/identity.js';
import { auditWithReceipts, type RelayReport } from '@fairtable/core/order/censorship.js';
import { receiptError } from '@fairtable/core/order/receipt.js';
import { witnessReceiptError } from '@fairtable/core/order/witness.js';
import type { Registry } from '@fairtable/core/registry.js';
import { prepareLine, readSetupLine, type VerifyFn } from '@fairtable/core/transcript.js';
import { nobleVerifier, verdictJson, type AuditUnreadable, type AuditVerdict, type AuditViolation, type Verifier } from './audit.js';

export interface RelayAuditOptions {
  /** The ordering relay's public key (hex): receipts under any other key are not evidence. */
  readonly relayKey: string;
  /** The relay's receipts for the log (`GET /games/:game/receipts`), in any order. */
  readonly receipts: readonly unknown[];
  /** Evidence records (relay.md §9): the seat's own `accepted` receipts, witnesses' records. */
  readonly records?: readonly unknown[];
  /** Judge deadlines on receipt times (default true); false checks the receipts but keeps the players' own times. */
  readonly trustTime?: boolean;
  /** Signature checks; noble when left out. */
  readonly verifier?: Verifier;
  /** The machines a protocol from outside the core needs (Diplomacy's). */
  readonly registry?: Registry;
  /** Signatures checked so far, of all gathered. */
  onProgress?(done: number, total: number): void;
}

/** A violation as the CLI prints it, with the relay it names when it names one instead of a player. */
export type RelayAuditViolation = AuditViolation & { readonly relay?: string };

/** The CLI's `audit --relay-key --json` object: the verdict and what the receipts said. */
export interface RelayAuditVerdict extends AuditVerdict {
  readonly violations: readonly RelayAuditViolation[];
  readonly relay: RelayReport;
}

export type RelayAuditResult = RelayAuditVerdict | AuditUnreadable;

interface Asked {
  readonly signature: Uint8Array;
  readonly message: Uint8Array;
  readonly publicKey: Uint8Array;
}

/** Signatures gathered, checked ahead, and answered from memory. */
class Answers {
  private readonly asked: Asked[] = [];
  private readonly held = new Map<string, { message: Uint8Array; ok: boolean }[]>();
  readonly gather: VerifyFn = (signature, message, publicKey) => {
    this.asked.push({ signature, message, publicKey });
    return true;
  };
  readonly answer: VerifyFn = (signature, message, publicKey) => {
    const hit = this.held.get(toHex(signature) + toHex(publicKey))?.find((e) => equalBytes(e.message, message));
    return hit !== undefined ? hit.ok : nobleVerify(signature, message, publicKey);
  };

  async check(verifier: Verifier, onProgress: (done: number, total: number) => void): Promise<void> {
    const total = this.asked.length;
    for (let at = 0; at < total; at += 32) {
      const batch = this.asked.slice(at, at + 32);
      const oks = await Promise.all(batch.map((a) => verifier.verify(a.signature, a.message, a.publicKey)));
      batch.forEach((a, i) => {
        const key = toHex(a.signature) + toHex(a.publicKey);
        const list = this.held.get(key) ?? [];
        list.push({ message: a.message, ok: oks[i]! });
        this.held.set(key, list);
      });
      onProgress(Math.min(total, at + 32), total);
      await new Promise<void>((resolve) => setTimeout(resolve, 0));
    }
  }
}

/**
 * Audits `lines` (line 0 the setup) with the relay's receipts and the evidence given, as `fairtable audit
 * --relay-key` does. Resolves to the verdict with the relay's report, or `{valid: false, error}` when the
 * transcript cannot be audited at all.
 */
export async function auditWithRelay(lines: readonly string[], options: RelayAuditOptions): Promise<RelayAuditResult> {
  try {
    const setupLine = lines[0];
    if (setupLine === undefined) return { valid: false, error: { code: 'bad_input', message: 'the transcript is empty: it starts with its setup envelope' } };
    if (!isHex(options.relayKey, 32)) return { valid: false, error: { code: 'bad_hex', message: "the relay's key must be 64 hex digits" } };
    const answers = new Answers();
    const { setup } = readSetupLine(setupLine, answers.gather);
    const keys = new Map(setup.players.map((p) => [p.id, fromHex(p.key, 'key', 32)]));
    lines.forEach((text, i) => prepareLine(i, text, keys, answers.gather));
    const relayKey = fromHex(options.relayKey);
    for (const r of options.receipts) receiptError(r, relayKey, answers.gather);
    for (const record of options.records ?? []) {
      const r = record as { relay?: unknown; text?: unknown; receipt?: unknown } | null;
      if (r === null || typeof r !== 'object') continue;
      if (typeof r.text === 'string') prepareLine(0, r.text, keys, answers.gather);
      if (!isHex(r.relay, 32)) continue;
      const key = fromHex(r.relay);
      const receipt = r.receipt as Record<string, unknown> | null;
      if (receipt !== null && typeof receipt === 'object' && 'log' in receipt) receiptError(receipt, key, answers.gather);
      else witnessReceiptError(receipt, key, answers.gather);
    }
    await answers.check(options.verifier ?? nobleVerifier, options.onProgress ?? (() => {}));
    const verdict = auditWithReceipts(
      lines,
      { orderer: options.relayKey, receipts: options.receipts, records: options.records ?? [], trustTime: options.trustTime ?? true },
      { verify: answers.answer, ...(options.registry === undefined ? {} : { registry: options.registry }) },
    );
    const json = verdictJson(verdict);
    return {
      ...json,
      violations: json.violations.map((v, i) => {
        const relay = verdict.violations[i]?.relay;
        return relay === undefined ? v : { ...v, relay };
      }),
      relay: verdict.relay,
    };
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    if (typeof err.code === 'string' && typeof err.message === 'string') return { valid: false, error: { code: err.code, message: err.message } };
    throw e;
  }
}
