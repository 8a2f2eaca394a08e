/**
 * Parts of the app loaded when first shown rather than with the first load (docs/spec/web.md §1, "First load"):
 * the auditor's views (audit.tsx with @fairtable/client/explain) and the provenance panel (explain.tsx).
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { AuditRun } from './audit.js';

/** `load`'s component once its module has come, nothing until then. */
function lazy<P extends object>(load: () => Promise<FunctionComponent<P>>): FunctionComponent<P> {
  return function Lazy(props: P) {
    const [C, setC] = useState<FunctionComponent<P> | null>(null);
    useEffect(() => {
      let live = true;
      void load().then((c) => live && setC(() => c));
      return () => void (live = false);
    }, []);
    return C === null ? null : <C {...props} />;
  };
}

export const LazyAuditRunView = lazy<{ run: AuditRun }>(() => import('./audit.js').then((m) => m.AuditRunView));
export const LazyDropAudit = lazy<Record<string, never>>(() => import('./audit.js').then((m) => m.DropAudit));
export const LazyProvenancePanel = lazy<{ lines: readonly string[] }>(() => import('./explain.js').then((m) => m.ProvenancePanel));
