/**
 * The guardrails of docs/ARCHITECTURE.md hold: lint names every way core could
 * read a clock, draw randomness, start a timer or reach Node, and the typecheck
 * configuration covers tests, benchmarks and examples with the strict options.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('lint keeps packages/core pure', () => {
  const eslint = new ESLint({ cwd: root });
  const planted: [string, string][] = [
    ['Date.now', 'export const t = Date.now();'],
    ['new Date()', 'export const t = new Date().getTime();'],
    ['Date()', 'export const t = Date();'],
    ['a destructured Math.random', 'const { random } = Math;\nexport const r = random();'],
    ['performance', 'export const t = performance.now();'],
    ['globalThis.performance', 'export const t = globalThis.performance.now();'],
    ['Math.random', 'export const r = Math.random();'],
    ['setTimeout', 'setTimeout(() => {}, 1);'],
    ['setInterval', 'setInterval(() => {}, 1);'],
    ['a node: import', "import { readFileSync } from 'node:fs';\nexport const f = readFileSync;"],
    ['a bare builtin import', "import { randomBytes } from 'crypto';\nexport const f = randomBytes;"],
    ['a dynamic node: import', "export const f = () => import('node:os');"],
  ];

  async function problems(code: string, file: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${code}\n`, { filePath: join(root, file) });
    return result!.messages.map((m) => `${m.ruleId ?? 'fatal'}: ${m.message}`);
  }

  it.each(planted)('reports %s in a core source file', async (_name, code) => {
    const found = await problems(code, 'packages/core/src/planted.ts');
    expect(found.length).toBeGreaterThan(0);
    expect(found.join('\n')).toMatch(/packages\/core is (pure|isomorphic)/);
  });

  it('allows the same code where it belongs: packages/node, and core tests', async () => {
    for (const [, code] of planted) {
      expect(await problems(code, 'packages/node/src/planted.ts')).toEqual([]);
      expect(await problems(code, 'packages/core/src/planted.test.ts')).toEqual([]);
    }
  });

  it('accepts pure core code', async () => {
    expect(
      await problems(
        "import { sha256 } from '@noble/hashes/sha2.js';\nexport const h = (ctx: { now: number }) => [sha256(new Uint8Array(1)), ctx.now];",
        'packages/core/src/planted.ts',
      ),
    ).toEqual([]);
  });
});

describe('lint keeps imports going through the package names', () => {
  const eslint = new ESLint({ cwd: root });
  const rules = async (code: string, file: string): Promise<(string | null)[]> =>
    (await eslint.lintText(`${code}\n`, { filePath: join(root, file) }))[0]!.messages.map((m) => m.ruleId);

  it.each([
    ['test/planted.test.ts', "import { toHex } from '../packages/core/src/bytes.js';\nexport const f = toHex;"],
    ['bench/planted.ts', "import { auditFile } from '../packages/node/dist/audit-file.js';\nexport const f = auditFile;"],
    ['examples/x/planted.ts', "import { toHex } from '../../packages/core/src/bytes.ts';\nexport const f = toHex;"],
    ['packages/node/src/planted.test.ts', "import { toHex } from '../../core/src/bytes.js';\nexport const f = toHex;"],
    ['packages/core/src/planted.ts', "import { nativeSha256 } from '../../node/src/native-hash.js';\nexport const f = nativeSha256;"],
    ['bench/planted-new-package.ts', "import { x } from '../packages/newgame/src/index.ts';\nexport const f = x;"],
  ])('reports a path into another package from %s', async (file, code) => {
    expect(await rules(code, file)).toContain('no-restricted-imports');
  });

  it('allows package names, own-package relative imports and JSON vectors', async () => {
    expect(await rules("import { toHex } from '@fairtable/core/bytes.js';\nexport const f = toHex;", 'test/planted.test.ts')).toEqual([]);
    expect(await rules("import { toHex } from './bytes.js';\nexport const f = toHex;", 'packages/core/src/planted.ts')).toEqual([]);
    // The CLI is a command, not a library: its tests drive its source by path.
    expect(await rules("import { register } from '../packages/cli/src/commands/rochambeau.js';\nexport const f = register;", 'test/planted.ts')).toEqual([]);
    expect(await rules("import v from '../packages/core/src/vectors/jcs.json' with { type: 'json' };\nexport const f = v;", 'test/planted.test.ts')).toEqual(
      [],
    );
  });
});

describe('typecheck covers everything, strictly', () => {
  const config = ts.getParsedCommandLineOfConfigFile(
    join(root, 'tsconfig.json'),
    {},
    {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    },
  )!;

  it('includes colocated tests, test/, bench/ and examples/', () => {
    const files = config.fileNames.map((f) => f.slice(root.length));
    for (const expected of [
      'packages/core/src/jcs.test.ts',
      'packages/node/src/native-hash.test.ts',
      'packages/cli/src/cli.test.ts',
      'test/guardrails.test.ts',
      'bench/run.ts',
      'examples/rochambeau-routers/main.ts',
    ]) {
      expect(files).toContain(expected);
    }
    // Every package is a referenced project, so its build (tests excluded) is checked too.
    const packages = readdirSync(join(root, 'packages')).filter((name) => existsSync(join(root, 'packages', name, 'tsconfig.json')));
    expect(packages).toContain('core');
    expect(config.projectReferences?.map((r) => r.path.slice(root.length)).sort()).toEqual(packages.map((name) => `packages/${name}`).sort());
  });

  it('rejects a planted type error with the project compiler options', () => {
    const file = join(root, 'test/planted.ts');
    const source = [
      'const xs: number[] = [];',
      'export const first: number = xs[0];', // noUncheckedIndexedAccess
      'export const o: { x?: number } = { x: undefined };', // exactOptionalPropertyTypes
      'export const n: number = "one";',
    ].join('\n');
    const host = ts.createCompilerHost(config.options);
    const readFile = host.readFile.bind(host);
    const getSourceFile = host.getSourceFile.bind(host);
    host.readFile = (name) => (name === file ? source : readFile(name));
    host.getSourceFile = (name, version, ...rest) => (name === file ? ts.createSourceFile(name, source, version) : getSourceFile(name, version, ...rest));
    const program = ts.createProgram({ rootNames: [file], options: { ...config.options, types: [] }, host });
    const lines = ts.getPreEmitDiagnostics(program).map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line + 1);
    expect(lines.sort()).toEqual([2, 3, 4]);
  });
});
