/**
 * `@fairtable/client/explain`: the pure, browser-safe pieces a page shows about
 * a game (docs/spec/explain.md): where each random outcome came from, the
 * outcomes against their expected distribution, the audit of a whole
 * transcript in slices (and with the relay's receipts), and WebCrypto as a fast path for signatures.
 */
export { explainOutcomes, describeTurn } from './provenance.js';
export { outcomeDistributions, diceSumProbabilities } from './distributions.js';
export { auditTranscript, nobleVerifier, verdictJson } from './audit.js';
export type { AuditOptions, AuditResult, AuditUnreadable, AuditVerdict, AuditViolation, Verifier } from './audit.js';
export { webCryptoVerifier } from './webcrypto.js';
export { auditWithRelay } from './relay-audit.js';
export type { RelayAuditOptions, RelayAuditResult, RelayAuditVerdict, RelayAuditViolation } from './relay-audit.js';
export type { Distribution, DistributionCategory, Provenance, ProvenanceInput } from './types.js';
