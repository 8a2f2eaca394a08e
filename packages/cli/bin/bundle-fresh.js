// Whether packages/cli/bundle/ (made by scripts/bundle.js) holds the modules as they are built now: it is
// newer than the build record (tsconfig.tsbuildinfo) of every package the command is made of. `tsc -b`
// rewrites a package's record whenever it rebuilds the package, and leaves it alone otherwise, so a bundle
// made after the last build is the same code as dist/, and one made before it is not used.
import { statSync } from 'node:fs';
import { URL } from 'node:url';

export const PACKAGES = ['cli', 'core', 'client', 'node', 'diplomacy', 'pgp', 'relay'];
/** The packages/ folder this launcher belongs to. */
const PACKAGES_DIR = new URL('../../', import.meta.url);
export const BUNDLE_MAIN = new URL('cli/bundle/main.js', PACKAGES_DIR);

/** Whether the bundle under `packagesDir` (a file: URL ending in /) is newer than every package's build record. */
export function bundleFresh(packagesDir = PACKAGES_DIR) {
  try {
    const made = statSync(new URL('cli/bundle/main.js', packagesDir)).mtimeMs;
    return PACKAGES.every((p) => statSync(new URL(`${p}/tsconfig.tsbuildinfo`, packagesDir)).mtimeMs < made);
  } catch {
    return false;
  }
}
