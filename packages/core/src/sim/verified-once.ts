/**
 * One signature check for a simulated table (docs/SPEC.md §3.2, "A simulated table checks each signature once").
 * Every seat of a simulation, its door and often its auditor run in one process and check the same
 * (signature, key, message) triples; the check is a pure function of them, so its answer can be shared without
 * changing any verdict. The answers are kept by signature and compared byte for byte with the key and message
 * before one is reused: a signature seen on another message or under another key is checked afresh. At most
 * `limit` answers are kept, then all are let go at once; a simulation's seats check a line within moments of each
 * other, so the answers they share are recent.
 */
import { equalBytes, toHex } from '../bytes.js';
import type { VerifyFn } from '../transcript.js';

interface Answer {
  readonly key: Uint8Array;
  readonly message: Uint8Array;
  readonly valid: boolean;
}

/** A signature check that asks `verify` once for each (signature, key, message) among its last `limit` answers. */
export function verifiedOnce(verify: VerifyFn, limit = 8192): VerifyFn {
  const answers = new Map<string, Answer>();
  return (signature, message, publicKey) => {
    const id = toHex(signature);
    const kept = answers.get(id);
    if (kept !== undefined && equalBytes(kept.key, publicKey) && equalBytes(kept.message, message)) return kept.valid;
    const valid = verify(signature, message, publicKey);
    if (kept === undefined) {
      if (answers.size >= limit) answers.clear();
      // Copies: a caller may reuse its arrays (a scratch buffer for the signed bytes).
      answers.set(id, { key: publicKey.slice(), message: message.slice(), valid });
    }
    return valid;
  };
}
