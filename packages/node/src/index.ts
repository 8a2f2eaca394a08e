/** fairtable on Node: native verification, streaming file audit. */
export { nativeVerify, opensslVerify } from './native-verify.js';
export { auditFile, type AuditFileOptions } from './audit-file.js';
export { nativeSha256 } from './native-hash.js';
export { nativePublicKey, nativeSign } from './native-sign.js';
export { useNativeCrypto } from './native-crypto.js';
