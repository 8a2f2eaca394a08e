#!/usr/bin/env node
/** The `fairtable` command: the process's own command line, run by `runFairtable` (program.ts). */
import { useNativeCrypto } from '@fairtable/node/native-crypto.js';
import { reportFailure, runFairtable } from './program.js';

// A reader that stops early (`fairtable dearmor m.txt | head`) is no error: stop quietly, as other tools do.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code !== 'EPIPE') throw e;
  process.exit(process.exitCode ?? 0);
});

// OpenSSL's hashes and Ed25519 signing give noble's bytes and its checks the rule's verdicts, faster (packages/node/src/native-crypto.ts).
useNativeCrypto();

// Not awaited: a command whose work ends with the event loop (a relay stopping) must not end in an unsettled await.
void runFairtable(process.argv).catch(reportFailure);
