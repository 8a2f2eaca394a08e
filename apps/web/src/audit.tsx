/**
 * Auditing in the browser (docs/spec/web.md §5): the whole transcript re-checked by the CLI's auditor, in slices with
 * progress (`auditTranscript` of @fairtable/client/explain), signatures through WebCrypto where the page has it and
 * noble otherwise; the verdict shown as valid or as the violations found, each naming the player and the lines that
 * prove it, with the outcome chart; and a drop zone that audits a transcript file played anywhere.
 */
import { useState } from 'preact/hooks';
import { registryFor } from './session.js';
import { auditTranscript, nobleVerifier, webCryptoVerifier, type AuditResult, type AuditVerdict, type Verifier } from '@fairtable/client/explain';
import { DistributionCharts } from './explain.js';
import { violationMeaning } from '@fairtable/core/violation-words.js';
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
  readonly result: AuditResult;
  readonly verifier: string;
  readonly ms: number;
  readonly text: string;
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

/** Audits a transcript's text, reporting progress as a fraction. */
export async function runAudit(text: string, onProgress: (fraction: number) => void): Promise<AuditRun> {
  const v = await pageVerifier();
  const start = performance.now();
  const registry = await registryFor(protocolOf(text));
  const result = await auditTranscript(text, {
    verifier: v,
    ...(registry === undefined ? {} : { registry }),
    onProgress: (done, total) => onProgress(total === 0 ? 1 : done / total),
  });
  return { result, verifier: v.name, ms: performance.now() - start, text };
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
      <p class="hint">
        Checked in this page in {Math.round(run.ms)} ms, signatures by {run.verifier}.
      </p>
      <DistributionCharts lines={lines} />
    </>
  );
}

export function Progress({ fraction }: { fraction: number | null }) {
  if (fraction === null) return null;
  return (
    <label class="field">
      Auditing…
      <progress max={1} value={fraction} />
    </label>
  );
}

export function VerdictView({ verdict }: { verdict: AuditVerdict }) {
  const named = [...new Set(verdict.violations.map((v) => v.player).filter((p): p is string => p !== null))];
  return (
    <section class={`verdict ${verdict.valid ? 'valid' : 'invalid'}`} aria-label="Audit verdict" aria-live="polite">
      <h3>
        {verdict.valid
          ? 'Valid: every line checks, nobody cheated'
          : named.length > 0
            ? `Not valid: ${named.join(', ')} broke the rules`
            : 'Not valid: the transcript shows a problem that names nobody'}
      </h3>
      <p>
        {verdict.lines} lines of game <code>{verdict.game.slice(0, 16)}…</code> ({verdict.protocol}).
        {verdict.outcome === null ? ' The game is not over.' : ` Winners: ${verdict.outcome.winners.join(', ') || 'none'}.`}
        {verdict.alteredAt === null ? '' : ` The log was altered at line ${verdict.alteredAt}.`}
      </p>
      {verdict.violations.length > 0 ? (
        <ol class="violations">
          {verdict.violations.map((v, i) => (
            <li key={i}>
              <strong>{v.code}</strong> by <strong>{v.player ?? 'nobody named'}</strong> at line {v.seq}: {v.message}
              {verdict.violations.findIndex((w) => w.code === v.code) === i && violationMeaning(v.code) !== null ? (
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
