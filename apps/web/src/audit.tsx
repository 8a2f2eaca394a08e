/**
 * Auditing in the browser (docs/spec/web.md §5): the verdict of the core's transcript checker, shown as valid or
 * as the violations it found, each naming the player and the lines that prove it; and a drop zone that audits a
 * transcript file played anywhere.
 */
import { useState } from 'preact/hooks';
import { auditText, type Verdict } from '@fairtable/core/audit.js';

export function VerdictView({ verdict }: { verdict: Verdict }) {
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
        {verdict.lines} lines of game <code>{verdict.gameId.slice(0, 16)}…</code> ({verdict.protocol}).
        {verdict.outcome === null ? ' The game is not over.' : ` Winners: ${verdict.outcome.winners.join(', ') || 'none'}.`}
        {verdict.alteredAt === null ? '' : ` The log was altered at line ${verdict.alteredAt}.`}
      </p>
      {verdict.violations.length > 0 ? (
        <ol class="violations">
          {verdict.violations.map((v, i) => (
            <li key={i}>
              <strong>{v.code}</strong> by <strong>{v.player ?? 'nobody named'}</strong> at line {v.seq}: {v.message}
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

/** Audits a transcript's text; a transcript that cannot be read at all is an error with its message. */
export function auditTranscriptText(text: string): { verdict: Verdict } | { error: string } {
  try {
    return { verdict: auditText(text) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

export function DropAudit() {
  const [result, setResult] = useState<{ name: string; verdict?: Verdict; error?: string } | null>(null);
  const [over, setOver] = useState(false);
  const take = async (file: File | undefined) => {
    if (file === undefined) return;
    const r = auditTranscriptText(await file.text());
    setResult('verdict' in r ? { name: file.name, verdict: r.verdict } : { name: file.name, error: r.error });
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
        <p>Drop a transcript file (JSON Lines, from any fairtable game) here, or</p>
        <label class="field">
          choose a file
          <input type="file" accept=".jsonl,.json,.txt,application/json" onChange={(e) => void take((e.target as HTMLInputElement).files?.[0])} />
        </label>
      </div>
      {result === null ? null : result.verdict !== undefined ? (
        <div>
          <p>{result.name}:</p>
          <VerdictView verdict={result.verdict} />
        </div>
      ) : (
        <p role="alert" class="error">
          {result.name} cannot be audited: {result.error}
        </p>
      )}
    </section>
  );
}
