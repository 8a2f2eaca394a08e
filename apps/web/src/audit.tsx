/**
 * Auditing in the browser (docs/spec/web.md §5): the whole transcript re-checked by the CLI's auditor, in slices with
 * progress (`auditTranscript` of @fairtable/client/explain), signatures through WebCrypto where the page has it and
 * noble otherwise; the verdict shown as valid or as the violations found, each naming the player and the lines that
 * prove it, with the outcome chart; and a drop zone that audits a transcript file played anywhere.
 *
 * A game played through this relay is audited with the relay's receipts (`auditWithRelay`, the audit of
 * `fairtable audit --relay-key`): deadlines judged on the times the relay signed, and a relay whose own receipts
 * convict it named as the relay. The verdict says where its times came from. Loaded when first needed (the
 * Audit button, a dropped file): the page's first load does without it (`lazy.tsx`).
 */
import { useState } from 'preact/hooks';
import { registryFor } from './session.js';
import {
  auditTranscript,
  auditWithRelay,
  nobleVerifier,
  webCryptoVerifier,
  type AuditResult,
  type AuditVerdict,
  type AuditViolation,
  type RelayAuditVerdict,
  type RelayAuditViolation,
  type Verifier,
} from '@fairtable/client/explain';
import { DistributionCharts } from './explain.js';
import { Progress } from './findings.js';
import { absenceConsequence, violationMeaning } from '@fairtable/core/violation-words.js';
import { dearmor } from '@fairtable/core/armor.js';

let verifier: Promise<Verifier> | null = null;

/** WebCrypto's Ed25519 when this page has it (a secure context in a browser that offers it), noble otherwise. */
function pageVerifier(): Promise<Verifier> {
  verifier ??= webCryptoVerifier()
    .then((v) => v ?? nobleVerifier)
    .catch(() => nobleVerifier);
  return verifier;
}

export interface AuditRun {
  readonly result: AuditResult | RelayAuditVerdict;
  readonly verifier: string;
  readonly ms: number;
  readonly text: string;
  /** Why the relay's receipts were not used, when they were not (the players' own times judged the deadlines). */
  readonly noReceipts?: string;
}

/** What the relay gave for the audit with its receipts. */
export interface RelayEvidence {
  /** The relay's public key, hex. */
  readonly key: string;
  readonly receipts: readonly unknown[];
  /** Evidence records: the seat's own `accepted` receipts. */
  readonly records: readonly unknown[];
}

/** The protocol a transcript's setup line names ('' when it names none that can be read: the auditor says why). */
function protocolOf(text: string): string {
  try {
    const first = JSON.parse(text.slice(0, text.indexOf('\n') < 0 ? text.length : text.indexOf('\n'))) as { body?: { setup?: { protocol?: unknown } } };
    return typeof first.body?.setup?.protocol === 'string' ? first.body.setup.protocol : '';
  } catch {
    return '';
  }
}

/**
 * Audits a transcript's text, reporting progress as a fraction: with the relay's receipts when `relay` is given
 * (a string: why there are none, shown with the verdict), on the players' own times otherwise.
 */
export async function runAudit(text: string, onProgress: (fraction: number) => void, relay?: RelayEvidence | string): Promise<AuditRun> {
  const v = await pageVerifier();
  const start = performance.now();
  const registry = await registryFor(protocolOf(text));
  if (relay !== undefined && typeof relay !== 'string') {
    const result = await auditWithRelay(
      text.split('\n').filter((l) => l.trim() !== ''),
      {
        relayKey: relay.key,
        receipts: relay.receipts,
        records: relay.records,
        verifier: v,
        ...(registry === undefined ? {} : { registry }),
        onProgress: (done, total) => onProgress(total === 0 ? 1 : done / total),
      },
    );
    return { result, verifier: v.name, ms: performance.now() - start, text };
  }
  const result = await auditTranscript(text, {
    verifier: v,
    ...(registry === undefined ? {} : { registry }),
    onProgress: (done, total) => onProgress(total === 0 ? 1 : done / total),
  });
  return { result, verifier: v.name, ms: performance.now() - start, text, ...(relay === undefined ? {} : { noReceipts: relay }) };
}

export function AuditRunView({ run }: { run: AuditRun }) {
  if ('error' in run.result)
    return (
      <p role="alert" class="error">
        This transcript cannot be audited: [{run.result.error.code}] {run.result.error.message}
      </p>
    );
  const lines = run.text.split('\n').filter((l) => l.trim() !== '');
  return (
    <>
      <VerdictView verdict={run.result} />
      <TimesView run={run} />
      <p class="hint">
        Checked in this page in {Math.round(run.ms)} ms, signatures by {run.verifier}.
      </p>
      <DistributionCharts lines={lines} />
    </>
  );
}

/** Where the deadlines' times came from: the relay's receipts, or the players' own clocks (and why). */
function TimesView({ run }: { run: AuditRun }) {
  const r = 'relay' in run.result ? run.result.relay : null;
  if (r === null)
    return (
      <p class="times" data-testid="audit-times">
        Deadlines judged on the players' own times{run.noReceipts === undefined ? '' : `: ${run.noReceipts}`}.
      </p>
    );
  return (
    <p class="times" data-testid="audit-times">
      {r.timed ? "Deadlines judged on the relay's receipt times" : "Receipts checked; deadlines judged on the players' own times"}: {r.receipted} of{' '}
      {'lines' in run.result ? run.result.lines : 0} lines carry a receipt of relay <code>{(r.orderer ?? '').slice(0, 16)}…</code> that fits the log
      {r.recordsUsed > 0 ? `; ${r.recordsUsed} evidence records used` : ''}.
      {r.faultAt === null ? '' : ` The relay's own signatures convict it from line ${r.faultAt}: the game is not decided on this log.`}
      {r.refused === null ? '' : ` ${r.refused.message}.`}
      {r.boundTo === null ? ' The setup names no ordering relay (unbound).' : ''}
      {r.witnesses.length === 0 ? " No witness relay: whether a move reached the relay rests on the relay's word only." : ''}
    </p>
  );
}

/** A finding that is an absence (a missed deadline that steered nothing: "timed out", never rule breaking). */
const isAbsence = (v: { readonly kind?: string }): boolean => v.kind === 'absence';

/** One absence in words: who timed out, where, and what the game did about it. */
function timedOutText(v: { readonly player: string | null; readonly seq: number }, protocol: string, outcome: AuditVerdict['outcome']): string {
  const forfeited = v.player !== null && (outcome?.forfeits.some((f) => f.player === v.player) ?? false);
  return `${v.player ?? 'a player'} timed out at line ${v.seq}: ${absenceConsequence(protocol, forfeited)}.`;
}

export function VerdictView({ verdict }: { verdict: AuditVerdict | RelayAuditVerdict }) {
  const all: readonly (AuditViolation | RelayAuditViolation)[] = verdict.violations;
  const rules = all.filter((v) => !isAbsence(v));
  const absences = all.filter(isAbsence);
  const relays = [...new Set(rules.map((v) => ('relay' in v ? v.relay : undefined)).filter((r): r is string => r !== undefined))];
  const named = [...new Set(rules.map((v) => v.player).filter((p): p is string => p !== null)), ...relays.map((r) => `the relay ${r.slice(0, 16)}…`)];
  return (
    <section class={`verdict ${verdict.valid ? 'valid' : 'invalid'}`} aria-label="Audit verdict" aria-live="polite">
      <h3>
        {!verdict.valid
          ? named.length > 0
            ? `Not valid: ${named.join(', ')} broke the rules`
            : 'Not valid: the transcript shows a problem that names nobody'
          : verdict.inProgress
            ? `In progress: ${verdict.lines} lines so far check, and nobody has broken a rule`
            : 'Valid: every line checks, nobody cheated'}
      </h3>
      <p>
        {verdict.lines} lines of game <code>{verdict.game.slice(0, 16)}…</code> ({verdict.protocol}).
        {verdict.outcome === null ? ' The game is not over.' : ` Winners: ${verdict.outcome.winners.join(', ') || 'none'}.`}
        {verdict.alteredAt === null ? '' : ` The log was altered at line ${verdict.alteredAt}.`}
      </p>
      {absences.length > 0 ? (
        <div class="absences" aria-label="Timed out">
          <h4>Timed out (an absence, not rule breaking)</h4>
          <ul>
            {absences.map((v, i) => (
              <li key={i}>
                {timedOutText(v, verdict.protocol, verdict.outcome)} <span class="hint">{v.message}</span>
              </li>
            ))}
          </ul>
          <p class="hint">What it means: {violationMeaning('withheld', 'absence')}</p>
        </div>
      ) : null}
      {rules.length > 0 ? (
        <ol class="violations">
          {rules.map((v, i) => (
            <li key={i}>
              <strong>{v.code}</strong> by{' '}
              <strong>{v.player ?? ('relay' in v && v.relay !== undefined ? `the relay ${v.relay.slice(0, 16)}…` : 'nobody named')}</strong> at line {v.seq}:{' '}
              {v.message}
              {rules.findIndex((w) => w.code === v.code) === i && violationMeaning(v.code) !== null ? (
                <p class="hint">What it means: {violationMeaning(v.code)}</p>
              ) : null}
              {v.evidence.length > 0 ? (
                <details>
                  <summary>Evidence ({v.evidence.length})</summary>
                  <ul>
                    {v.evidence.map((e, j) => (
                      <li key={j}>
                        {e.line === undefined ? '' : `line ${e.line} `}
                        {e.hash === undefined ? '' : <code>{e.hash.slice(0, 16)}…</code>} {e.note ?? ''}
                        {e.envelope === undefined ? null : <pre>{JSON.stringify(e.envelope, null, 1).slice(0, 2000)}</pre>}
                      </li>
                    ))}
                  </ul>
                </details>
              ) : null}
            </li>
          ))}
        </ol>
      ) : null}
      {verdict.omitted > 0 ? <p>{verdict.omitted} more violations were counted but not kept.</p> : null}
    </section>
  );
}

/**
 * A transcript as it came by mail (`fairtable armor`'s blocks in a saved e-mail, quoting and all) is its blocks'
 * payloads in order; anything else is taken as it is.
 */
function unwrapped(text: string): string {
  if (!text.includes('-----BEGIN FAIRTABLE MESSAGE-----')) return text;
  const decoder = new TextDecoder();
  return dearmor(text)
    .map((b) => decoder.decode(b))
    .join('');
}

export function DropAudit() {
  const [result, setResult] = useState<{ name: string; run: AuditRun } | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [over, setOver] = useState(false);
  const take = async (file: File | undefined) => {
    if (file === undefined) return;
    setResult(null);
    setProgress(0);
    const raw = await file.text();
    let text: string;
    try {
      text = unwrapped(raw);
    } catch (e) {
      const err = e as { code?: string; message?: string };
      setProgress(null);
      setResult({
        name: file.name,
        run: { result: { valid: false, error: { code: err.code ?? 'bad_armor', message: err.message ?? String(e) } }, verifier: '', ms: 0, text: raw },
      });
      return;
    }
    const run = await runAudit(text, setProgress);
    setProgress(null);
    setResult({ name: file.name, run });
  };
  return (
    <section aria-labelledby="drop-title">
      <h2 id="drop-title">Audit a transcript</h2>
      <div
        class={`dropzone${over ? ' over' : ''}`}
        data-testid="dropzone"
        onDragOver={(e) => {
          e.preventDefault();
          setOver(true);
        }}
        onDragLeave={() => setOver(false)}
        onDrop={(e) => {
          e.preventDefault();
          setOver(false);
          void take(e.dataTransfer?.files[0]);
        }}
      >
        <p>Drop a transcript file (JSON Lines, from any fairtable game, or the saved e-mail it came armored in) here, or</p>
        <label class="field">
          choose a file
          <input type="file" accept=".jsonl,.json,.txt,.eml,application/json" onChange={(e) => void take((e.target as HTMLInputElement).files?.[0])} />
        </label>
      </div>
      <Progress fraction={progress} />
      {result === null ? null : (
        <div>
          <p>{result.name}:</p>
          <AuditRunView run={result.run} />
        </div>
      )}
    </section>
  );
}
