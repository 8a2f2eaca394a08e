/**
 * `fairtable vrf`: ECVRF (RFC 9381 §5, docs/spec/vrf.md) from the command
 * line. keygen and prove print JSON; verify prints beta in hex.
 *
 * Exit codes: 0 a valid proof, 1 a proof that does not verify (its reason
 * code, e.g. `bad_proof`, first on stderr), 2 unusable input (bad hex, a
 * secret key of the wrong length, a missing or unknown option).
 */
import { Option, type Command } from 'commander';
import { fromHex, toHex } from '@fairtable/core/bytes.js';
import { keygen, prove, proofToHash, verify, SUITES, type EcvrfSuite } from '@fairtable/core/vrf/ecvrf.js';

interface SuiteOptions {
  readonly suite: EcvrfSuite;
}

const suiteOption = (description: string) => new Option('--suite <suite>', description).choices(SUITES);

export function register(program: Command): void {
  const vrf = program
    .command('vrf')
    .description('Verifiable random functions: ECVRF-EDWARDS25519-SHA512-ELL2 (ell2) and -TAI (tai), RFC 9381')
    // Commander's usage errors are unusable input too: exit 2, as for bad hex; help still exits 0.
    .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2));

  vrf
    .command('keygen')
    .description('make a key pair; prints {"sk": HEX, "pk": HEX} (the same key serves both suites)')
    .addOption(suiteOption('suite the key is meant for').default('ell2'))
    .action(() => {
      const { secretKey, publicKey } = keygen();
      process.stdout.write(`${JSON.stringify({ sk: toHex(secretKey), pk: toHex(publicKey) })}\n`);
    });

  vrf
    .command('prove')
    .description('prove alpha; prints {"pi": HEX, "beta": HEX}')
    .addOption(suiteOption('ECVRF suite').makeOptionMandatory())
    .requiredOption('--sk <hex>', '32-byte secret key')
    .requiredOption('--alpha <hex>', 'input (may be empty: --alpha "")')
    .action((options: SuiteOptions & { sk: string; alpha: string }) => {
      const pi = prove(fromHex(options.sk, 'sk', 32), fromHex(options.alpha, 'alpha'), { suite: options.suite });
      process.stdout.write(`${JSON.stringify({ pi: toHex(pi), beta: toHex(proofToHash(pi, { suite: options.suite })) })}\n`);
    });

  vrf
    .command('verify')
    .description('verify pi for alpha under pk; prints beta and exits 0, or prints the reason code on stderr and exits 1')
    .addOption(suiteOption('ECVRF suite').makeOptionMandatory())
    .requiredOption('--pk <hex>', '32-byte public key')
    .requiredOption('--alpha <hex>', 'input (may be empty: --alpha "")')
    .requiredOption('--pi <hex>', '80-byte proof')
    .option('--no-validate-key', 'skip ECVRF_validate_key (accept small-order public keys)')
    .action((options: SuiteOptions & { pk: string; alpha: string; pi: string; validateKey: boolean }) => {
      const verdict = verify(fromHex(options.pk, 'pk'), fromHex(options.alpha, 'alpha'), fromHex(options.pi, 'pi'), {
        suite: options.suite,
        validateKey: options.validateKey,
      });
      if (verdict.valid) {
        process.stdout.write(`${toHex(verdict.beta)}\n`);
      } else {
        process.stderr.write(`${verdict.code}: ${verdict.message}\n`);
        process.exitCode = 1;
      }
    });
}
