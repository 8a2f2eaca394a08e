/**
 * The package is pure and isomorphic (docs/spec/diplomacy.md, introduction):
 * its modules import nothing but each other, @fairtable/core and `zod/mini`
 * (message schemas, as in core's browser code), and use no clock, timer or
 * ambient randomness.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const dir = fileURLToPath(new URL('.', import.meta.url));
const modules = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));

describe('purity', () => {
  it('finds the modules', () => {
    expect(modules).toEqual(expect.arrayContaining(['adjudicate.ts', 'map.ts', 'movement.ts', 'orders.ts', 'position.ts', 'protocol/machine.ts']));
  });
  it.each(modules)('%s imports only the package, @fairtable/core and zod/mini, and no clock or randomness', (file) => {
    const source = readFileSync(`${dir}/${file}`, 'utf8');
    for (const [, from] of source.matchAll(/from '([^']+)'/g)) {
      expect(from, `${file} imports ${from}`).toMatch(/^(\.\.?\/|@fairtable\/core\/|zod\/mini$)/);
    }
    expect(source).not.toMatch(/Date\.now|Math\.random|performance\.now|setTimeout|setInterval|process\./);
  });
});
