/** fairtable on Node: native verification, streaming file audit. */
export { nativeVerify, opensslVerify } from './native-verify.js';
export { auditFile, type AuditFileOptions } from './audit-file.js';
