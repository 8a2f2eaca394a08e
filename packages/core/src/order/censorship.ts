/**
 * The audit of a game played through a relay, with the relay's receipts and the evidence its players and
 * witnesses hold (docs/spec/relay.md §9). An orderer answers for its log (SPEC §4.4); what convicts it is
 * its own signatures:
 * - `relay_forked`: two receipts it signed for one line of the game that differ (one from its log's
 *   receipts, one an author kept from its `accepted` answer), or a receipt whose running log hash does not
 *   follow from the receipt before it;
 * - `relay_censored`: a line it receipted to its author that its log does not hold, or a deadline claim it
 *   ordered against a player whose next envelope a witness of the game had receipted before the orderer
 *   receipted the claim. That claim is then false: the player is not named `withheld`.
 * From the first line a relay fault shows at, the log decides nothing (as an altered log, SPEC §4.4): the
 * verdict has no outcome and keeps, from that line on, only what names nobody and what a player's own
 * signatures prove. Deadlines are judged on receipt times when the auditor trusts the relay's clock;
 * without that trust every other check is made, and witness times (a clock too) are not used.
 */
import { fromHex, isHex } from '../bytes.js';
import { FairtableError, type Violation, type Evidence } from '../errors.js';
import { Auditor, rulesKept, type Verdict } from '../audit.js';
import type { RefereeOptions } from '../referee.js';
import { prepareLine, readSetupLine, type PreparedLine } from '../transcript.js';
import { ZERO_HASH, type Envelope } from '../envelope.js';
import { firstLogHash, forkProof, nextLogHash, receiptError, type Receipt } from './receipt.js';
import { witnessReceiptError, type WitnessReceipt } from './witness.js';
import { firstBackwards } from '../time/audit-times.js';

/**
 * One line of an evidence file (relay.md §9): an envelope as its author published it, with the receipt a
 * relay signed for it (an orderer's `accepted` receipt, or a witness receipt) and that relay's key.
 */
export interface EvidenceRecord {
  readonly relay: string;
  readonly text: string;
  readonly receipt: Receipt | WitnessReceipt;
}

export interface OrderEvidence {
  /** The ordering relay's public key (hex); without it no receipt is evidence. */
  readonly orderer: string | null;
  /** The orderer's receipts for the log (FILE.receipts.jsonl), in any order: each names its line. */
  readonly receipts: readonly unknown[];
  /** Evidence records from players and witnesses. */
  readonly records: readonly unknown[];
  /** Judge deadlines on receipt times (the auditor trusts the relays' clocks); default true. */
  readonly trustTime?: boolean;
}

export interface RelayReport {
  readonly orderer: string | null;
  /** Whether deadlines were judged on receipt times. */
  readonly timed: boolean;
  /** Lines with a receipt that verifies and fits the log. */
  readonly receipted: number;
  /** The witnesses the setup names (hex keys). */
  readonly witnesses: readonly string[];
  /** Evidence records used (their receipts verify under a key the game names, and they fit). */
  readonly recordsUsed: number;
  /** Evidence records set aside, with why. */
  readonly recordsIgnored: readonly string[];
  /** The first line a relay fault shows at, or null. */
  readonly faultAt: number | null;
  /**
   * The ordering relay's key the setup names (`params.relay`, docs/spec/time.md §5), or null for a setup that
   * names none (older setups): such a game is `unbound`, and any key's receipts are judged.
   */
  readonly boundTo: string | null;
  /**
   * Receipts refused because the setup binds the game to another relay (`foreign_relay`, naming the key):
   * no time is judged on them, and they vouch for no line.
   */
  readonly refused: { readonly code: 'foreign_relay'; readonly key: string; readonly message: string } | null;
  /** "the relay's word only" when the setup names no witness: nothing outside the orderer can show it censored (relay.md §8). */
  readonly witnessed: boolean;
}

export type RelayVerdict = Verdict & { readonly relay: RelayReport };

/** The ordering relay a setup binds the game to (`params.relay`, a hex key; docs/spec/time.md §5), or null. */
export function boundRelayOf(params: { readonly [key: string]: unknown }): string | null {
  return isHex(params.relay, 32) ? (params.relay as string) : null;
}

/** The witness relays a setup names: `params.witnesses = [{key, url}]` (relay.md §8). */
export function witnessesOf(params: { readonly [key: string]: unknown }): { key: string; url: string }[] {
  const list = params.witnesses;
  if (!Array.isArray(list)) return [];
  const out: { key: string; url: string }[] = [];
  for (const w of list as unknown[]) {
    const o = w as Record<string, unknown> | null;
    if (o !== null && typeof o === 'object' && isHex(o.key, 32) && typeof o.url === 'string') out.push({ key: o.key as string, url: o.url });
  }
  return out;
}

const SIGNER_PROOFS = new Set(['equivocation', 'broken_chain']);

function isOrdererReceipt(r: unknown): boolean {
  return r !== null && typeof r === 'object' && 'line' in r && 'log' in r;
}

/**
 * Audits `lines` (line 0 the setup, cut by SPEC §4.5) with the orderer's receipts and the evidence records,
 * and names the relay where its signatures show it forked or censored (relay.md §9).
 */
export function auditWithReceipts(lines: readonly string[], evidence: OrderEvidence, options: RefereeOptions = {}): RelayVerdict {
  const setupLine = lines[0];
  if (setupLine === undefined) throw new FairtableError('bad_input', 'the transcript is empty: it starts with its setup envelope', { field: 'lines' });
  const { setup, gameId } = readSetupLine(setupLine, options.verify);
  const keys = new Map(setup.players.map((p) => [p.id, fromHex(p.key, 'key', 32)]));
  const verifyFn = options.verify;
  const prepared: PreparedLine[] = lines.map((t, i) => prepareLine(i, t, keys, verifyFn));
  const trustTime = evidence.trustTime ?? true;
  // A game bound to its orderer (time.md §5): receipts under another key are refused, never judged.
  const boundTo = boundRelayOf(setup.params);
  const refused =
    boundTo !== null && evidence.orderer !== null && evidence.orderer !== boundTo
      ? {
          code: 'foreign_relay' as const,
          key: evidence.orderer,
          message: `the receipts are signed by ${evidence.orderer}, but the setup binds game ${gameId} to relay ${boundTo}: they are not its orderer's, and no time is judged on them`,
        }
      : null;
  const orderer = refused === null ? evidence.orderer : null;
  const ordererKey = orderer === null ? null : fromHex(orderer, 'relay', 32);
  const witnesses = witnessesOf(setup.params).map((w) => w.key);
  const relayViolations: Violation[] = [];
  const nobody: Violation[] = [];
  const ignored: string[] = [];
  let faultAt: number | null = null;
  const fault = (at: number): void => {
    faultAt = faultAt === null ? at : Math.min(faultAt, at);
  };
  const named = (code: 'relay_forked' | 'relay_censored' | 'relay_clock', seq: number, message: string, ev: Evidence[]): void => {
    relayViolations.push({ code, player: null, relay: orderer!, seq, message, evidence: ev });
    fault(seq);
  };

  // The log's receipts, by the line each names: a copy whose receipts were reordered reads the same.
  const byLine = new Map<number, Receipt>();
  if (ordererKey !== null) {
    for (const r of evidence.receipts) {
      const why = receiptError(r, ordererKey, verifyFn);
      if (why !== null || (r as Receipt).game !== gameId) {
        ignored.push(`a receipt in the receipts file is not the orderer's for this game (${why ?? 'another game'})`);
        continue;
      }
      const receipt = r as Receipt;
      const held = byLine.get(receipt.line);
      if (held === undefined) byLine.set(receipt.line, receipt);
      else if (forkProof(held, receipt) !== null)
        named('relay_forked', receipt.line, forkProof(held, receipt)!, [{ line: receipt.line, note: JSON.stringify([held, receipt]) }]);
    }
  }

  // Which lines the receipts vouch for: hash and running log hash recomputed from the lines themselves.
  const times: (number | undefined)[] = [];
  let log: string | null = null;
  for (let i = 0; i < prepared.length; i++) {
    const p = prepared[i]!;
    const r = byLine.get(i);
    log = p.hash === null || (i > 0 && log === null) ? null : i === 0 ? firstLogHash(gameId, p.hash) : nextLogHash(log!, p.hash);
    if (r === undefined || ordererKey === null) continue;
    if (p.hash !== r.hash) {
      // Either the relay served another line than it receipted, or this copy was altered after it was
      // fetched: the receipt alone cannot say which, so it names nobody (SPEC §4.4), and the line has no time.
      nobody.push({
        code: 'receipt_mismatch',
        player: null,
        seq: i,
        message: `line ${i} is not the line the relay's receipt for it names (receipted hash ${r.hash}, line hash ${p.hash ?? '(not an envelope)'}): the relay served another line than it receipted, or this copy was altered; audit another copy`,
        evidence: [{ line: i, ...(p.hash === null ? {} : { hash: p.hash }), note: JSON.stringify(r) }],
      });
      continue;
    }
    const before = byLine.get(i - 1);
    if (i > 0 && before !== undefined && nextLogHash(before.log, r.hash) !== r.log) {
      named(
        'relay_forked',
        i,
        `the relay's receipts for lines ${i - 1} and ${i} do not chain: L_${i} = ${r.log} does not follow from L_${i - 1} = ${before.log} and line ${i}'s hash; it signed two histories`,
        [{ line: i, note: JSON.stringify([before, r]) }],
      );
      continue;
    }
    // A receipt gives its line a time only when it vouches for the whole log up to it, as this copy holds it.
    if (log === r.log) times[i] = r.time;
  }
  const receipted = times.filter((t) => t !== undefined).length;

  // Receipt times never go backwards along one log (time.md §3): where they do, the relay's two signed receipts
  // name it, and from that line on the log decides nothing (no deadline is judged on its times).
  const backwards = ordererKey === null ? null : firstBackwards(times);
  if (backwards !== null) {
    const earlier = byLine.get(backwards.earlier!);
    const later = byLine.get(backwards.line);
    named('relay_clock', backwards.line, backwards.message, [{ line: backwards.line, note: JSON.stringify([earlier, later]) }]);
  }

  // Evidence records: the author's own orderer receipts, and witness receipts.
  const witnessed = new Map<string, Map<number, { text: string; envelope: Envelope; receipt: WitnessReceipt; relay: string }>>();
  let recordsUsed = 0;
  for (const raw of evidence.records) {
    const rec = raw as Partial<EvidenceRecord> | null;
    if (rec === null || typeof rec !== 'object' || typeof rec.text !== 'string' || !isHex(rec.relay, 32)) {
      ignored.push('an evidence record that is not {relay, text, receipt}');
      continue;
    }
    const p = prepareLine(0, rec.text, keys, verifyFn);
    if (p.envelope === null || !p.sigOk || p.envelope.game !== gameId) {
      ignored.push(`an evidence record whose text is not an envelope of this game signed by its author`);
      continue;
    }
    const e = p.envelope;
    if (isOrdererReceipt(rec.receipt)) {
      if (rec.relay !== orderer || ordererKey === null) {
        ignored.push(`an orderer receipt from relay ${rec.relay}, which is not the orderer audited`);
        continue;
      }
      const why = receiptError(rec.receipt, ordererKey, verifyFn);
      const r = rec.receipt as Receipt;
      if (why !== null || r.game !== gameId || r.hash !== p.hash) {
        ignored.push(`an orderer receipt that does not verify or is not for its envelope (${why ?? 'another game or envelope'})`);
        continue;
      }
      recordsUsed++;
      const inLog = byLine.get(r.line);
      const proof = inLog === undefined ? null : forkProof(inLog, r);
      if (proof !== null) {
        named('relay_forked', r.line, `${proof}; ${e.from} kept the receipt it was given for its envelope (seq ${e.seq}), which the log does not hold there`, [
          { line: r.line, hash: r.hash, envelope: e, note: JSON.stringify([inLog, r]) },
        ]);
      } else if (r.line >= prepared.length) {
        named(
          'relay_censored',
          prepared.length,
          `the relay receipted ${e.from}'s envelope (seq ${e.seq}) as line ${r.line}, and its log ends at line ${prepared.length - 1} (unless this copy was cut short: fetch it again)`,
          [{ line: r.line, hash: r.hash, envelope: e, note: JSON.stringify(r) }],
        );
      }
      continue;
    }
    if (!witnesses.includes(rec.relay)) {
      ignored.push(`a witness receipt from relay ${rec.relay}, which the setup does not name as a witness`);
      continue;
    }
    const why = witnessReceiptError(rec.receipt, fromHex(rec.relay), verifyFn);
    const w = rec.receipt as WitnessReceipt;
    if (why !== null || w.game !== gameId || w.hash !== p.hash || w.from !== e.from || w.seq !== e.seq) {
      ignored.push(`a witness receipt that does not verify or is not for its envelope (${why ?? 'another envelope'})`);
      continue;
    }
    recordsUsed++;
    let mine = witnessed.get(e.from);
    if (mine === undefined) witnessed.set(e.from, (mine = new Map()));
    const had = mine.get(e.seq);
    // Of two witnesses' receipts for one position, the earlier is the better evidence.
    if (had === undefined || had.receipt.time > w.time) mine.set(e.seq, { text: rec.text, envelope: e, receipt: w, relay: rec.relay });
  }

  // Without trust in the relay's clock, line 0's receipt still only delays the first phase (time.md §4): a
  // backdated `created` cannot shorten it, and a later receipt only makes deadlines later.
  const line0 = times[0];
  const timeOf = trustTime ? (line: number) => times[line] : (line: number) => (line === 0 ? line0 : undefined);
  // A trusted orderer's receipt that covers a claim's line vouches for it (SPEC §4.4, "The unvouched tail").
  const auditor = new Auditor(setupLine, {
    ...options,
    timeOf,
    ...(trustTime ? { vouched: (line: number) => times[line] !== undefined } : {}),
  });
  // Each line was prepared (parsed, hashed, its signature checked) once, above, against the setup's keys; a line
  // by a newcomer the game introduced since is prepared again against the keys the referee has grown to.
  for (let i = 1; i < lines.length; i++) {
    const p = prepared[i]!;
    if (p.envelope === null || keys.has(p.envelope.from)) auditor.addPrepared(p);
    else auditor.add(lines[i]!);
  }
  const signed = auditor.verdict();
  // Without trust in the relay's clock, a deadline names a player only where the receipt times name it too
  // (time.md §3): neither the relay's clock nor one signer's can name anyone alone.
  const base = trustTime || ordererKey === null ? signed : agreeOnTime(signed, setupLine, lines, times, options);

  // A `withheld` claim against a player whose next envelope a witness held before the claim was receipted.
  const spared = new Set<Violation>();
  if (trustTime) {
    for (const v of base.violations) {
      if (v.code !== 'withheld' || v.player === null) continue;
      const claimTime = times[v.seq];
      const mine = witnessed.get(v.player);
      if (claimTime === undefined || mine === undefined) continue;
      const next = authoredBefore(prepared, gameId, v.player, v.seq);
      const held = mine.get(next.count);
      if (held === undefined || held.receipt.time > claimTime) continue;
      const e = held.envelope;
      // Signed on a view this log holds, after the author's last envelope in it: it belongs to this history.
      const view = e.at === 0 ? ZERO_HASH : prepared[e.at - 1]?.hash;
      if (e.at > v.seq || e.at <= next.lastLine || e.head !== view || e.prev !== next.lastHash) continue;
      spared.add(v);
      named(
        'relay_censored',
        e.at,
        `witness ${held.relay} receipted ${v.player}'s envelope (seq ${e.seq}, a "${e.body.type}") at ${held.receipt.time}, before the orderer receipted the deadline claim of line ${v.seq} at ${claimTime}; the orderer's log never took it, so the claim naming ${v.player} is false and the orderer answers for the missing envelope`,
        [
          { line: v.seq, note: `the claim's receipt: ${JSON.stringify(byLine.get(v.seq))}` },
          { hash: held.receipt.hash, envelope: e, note: `witness receipt: ${JSON.stringify(held.receipt)}` },
        ],
      );
    }
  }

  const undecided = base !== signed && base.violations.some((v) => v.code === 'clock_disagreement');
  const at = faultAt as number | null;
  const kept = base.violations.filter((v) => !spared.has(v) && (at === null || v.seq < at || v.player === null || SIGNER_PROOFS.has(v.code)));
  // The game did not end on this log because the orderer stopped it: that is the relay's, not "nobody's".
  const violations = [...kept.filter((v) => !(at !== null && v.code === 'withheld' && v.player === null)), ...nobody, ...relayViolations];
  const outcome = at === null && !undecided ? base.outcome : null;
  return {
    ...base,
    valid: rulesKept(violations, base.omitted) && base.alteredAt === null,
    violations,
    outcome,
    finished: outcome !== null,
    inProgress: base.inProgress && at === null,
    relay: {
      orderer,
      timed: trustTime && ordererKey !== null,
      receipted,
      witnesses,
      recordsUsed,
      recordsIgnored: ignored,
      faultAt: at,
      boundTo,
      refused,
      witnessed: witnesses.length > 0,
    },
  };
}

/** How many envelopes `player` has in the log before line `before`, and the line and hash of its last (the door's order). */
function authoredBefore(
  prepared: readonly PreparedLine[],
  gameId: string,
  player: string,
  before: number,
): { count: number; lastLine: number; lastHash: string } {
  let count = 0;
  let lastLine = -1;
  let lastHash = gameId;
  for (let i = 0; i < before && i < prepared.length; i++) {
    const p = prepared[i]!;
    if (p.envelope === null || !p.sigOk || p.envelope.from !== player || p.envelope.seq !== count) continue;
    count++;
    lastLine = i;
    lastHash = p.hash!;
  }
  return { count, lastLine, lastHash };
}

const TIMED = new Set(['withheld', 'false_deadline_claim']);

/**
 * The signers'-times verdict with each deadline verdict that names a player kept only where the receipt times
 * give the same one (code, player, line). Where one was dropped, the clocks disagree about who missed a
 * deadline: `clock_disagreement` names nobody, and the game has no outcome on this log.
 */
function agreeOnTime(signed: Verdict, setupLine: string, lines: readonly string[], times: readonly (number | undefined)[], options: RefereeOptions): Verdict {
  const receipted = new Auditor(setupLine, { ...options, timeOf: (line: number) => times[line] });
  for (let i = 1; i < lines.length; i++) receipted.add(lines[i]!);
  const key = (v: Violation): string => `${v.code} ${v.player} ${v.seq}`;
  const byReceipts = new Set(
    receipted
      .verdict()
      .violations.filter((v) => TIMED.has(v.code) && v.player !== null)
      .map(key),
  );
  const dropped = signed.violations.filter((v) => TIMED.has(v.code) && v.player !== null && !byReceipts.has(key(v)));
  if (dropped.length === 0) return signed;
  const disagreement: Violation = {
    code: 'clock_disagreement',
    player: null,
    seq: dropped[0]!.seq,
    message: `the players' own times and the relay's receipt times disagree about a deadline (${dropped.map((v) => `${v.code} ${v.player} at line ${v.seq}`).join('; ')}): with the relay's clock not trusted, no deadline verdict is drawn where the two clocks differ`,
    evidence: dropped.map((v) => ({ line: v.seq, note: v.message })),
  };
  return { ...signed, violations: [...signed.violations.filter((v) => !dropped.includes(v)), disagreement] };
}
