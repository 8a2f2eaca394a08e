/**
 * Lint rules for fairtable (docs/ARCHITECTURE.md, "Guardrails"). A modest set:
 * ESLint's and typescript-eslint's recommended rules without type information
 * (fast on a small machine; the compiler already checks types), plus the purity
 * rule of packages/core, which is enforced here rather than only stated.
 */
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

const clock = 'packages/core is pure: time comes in through ctx.now';
const chance = 'packages/core is pure: randomness comes in through ctx.random or an injected source';
const timers = 'packages/core is pure: deadlines are claims in the transcript, never timers';
const platform = 'packages/core is isomorphic: Node-only code lives in packages/node';

/**
 * Reaching into another package's src or dist instead of importing it by name. JSON vectors are data and
 * exempt; so is the CLI, which is a command with no library entry points.
 */
const byPackageName = {
  regex: '^(\\.\\./)+(packages/)?(?!cli/)[a-z][a-z-]*/(src|dist)/.+\\.(js|ts)$',
  message: 'import another package by its name (@fairtable/core/…), as users do',
};

/** Globals and member reads that would give core a clock, a random source or a timer. */
const impure = {
  'no-restricted-globals': [
    'error',
    { name: 'performance', message: clock },
    { name: 'setTimeout', message: timers },
    { name: 'setInterval', message: timers },
    { name: 'setImmediate', message: timers },
    { name: 'process', message: platform },
    { name: 'require', message: platform },
  ],
  'no-restricted-properties': [
    'error',
    { object: 'Date', property: 'now', message: clock },
    { object: 'Math', property: 'random', message: chance },
    ...['performance', 'setTimeout', 'setInterval', 'setImmediate', 'process'].map((property) => ({ object: 'globalThis', property, message: platform })),
  ],
  'no-restricted-syntax': [
    'error',
    { selector: 'NewExpression[callee.name="Date"][arguments.length=0]', message: clock },
    { selector: 'CallExpression[callee.name="Date"]', message: clock },
    { selector: 'ImportExpression[source.value=/^node:/]', message: platform },
  ],
  'no-restricted-imports': [
    'error',
    {
      patterns: [{ regex: '^node:', message: platform }, byPackageName],
      paths: builtinModules.filter((name) => !name.startsWith('_')).map((name) => ({ name, message: platform })),
    },
  ],
};

export default defineConfig(
  { ignores: ['**/dist/**', 'packages/cli/bundle/**', '**/node_modules/**', 'coverage/**', '.bench-tmp/**', 'tmp/**'] },
  js.configs.recommended,
  tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module' },
    rules: {
      // A machine's step() keeps the full (state, msg, ctx) signature even when it needs no ctx;
      // `_`-prefixed names are deliberate discards (`const { sig: _sig, ...unsigned } = env`).
      '@typescript-eslint/no-unused-vars': ['error', { args: 'none', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', caughtErrors: 'none' }],
      // Flags `let x = null` before a try that assigns it, a pattern the code uses on purpose.
      'no-useless-assignment': 'off',
    },
  },
  {
    // Tests read JSON from child processes and oracles; typing every shape there buys little.
    files: ['**/*.test.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['test/**/*.ts', 'bench/**/*.ts', 'examples/**/*.ts', 'packages/*/src/**/*.ts'],
    rules: { 'no-restricted-imports': ['error', { patterns: [byPackageName] }] },
  },
  {
    files: ['packages/core/src/**/*.ts'],
    ignores: ['packages/core/src/**/*.test.ts'],
    rules: impure,
  },
);
