/**
 * Memos for tests that read the same transcripts many times: an audit and a signature check are pure functions
 * of their inputs, so their answers can be shared without changing any verdict.
 */
import { auditLines, type Verdict } from '../audit.js';
import type { Registry } from '../registry.js';

/** An `audit(lines, registry?)` that audits each transcript (the same array) once per registry. */
export function sharedAudit(defaultRegistry: Registry): (lines: readonly string[], registry?: Registry) => Verdict {
  const verdicts = new WeakMap<readonly string[], Map<Registry, Verdict>>();
  return (lines, registry = defaultRegistry) => {
    const known = verdicts.get(lines) ?? new Map<Registry, Verdict>();
    verdicts.set(lines, known);
    const verdict = known.get(registry) ?? auditLines(lines, { registry });
    known.set(registry, verdict);
    return verdict;
  };
}

export { verifiedOnce } from './verified-once.js';
