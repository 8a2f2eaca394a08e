/**
 * Hostile transcripts for the audit's bounds (issue 8 §2 and §5, docs/SPEC.md
 * §4.5 and §9): each is an honest transcript with one kind of damage, and the
 * verdict the line rule gives it. Shared by the CLI test (exit codes) and the
 * memory benchmark (peak RSS of `fairtable audit` on each).
 */
import { writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';

export interface Hostile {
  readonly name: string;
  readonly file: string;
  /** Expected exit status of `fairtable audit`: 0 valid, 1 violations. */
  readonly exit: 0 | 1;
  /** The first violation's code, when exit is 1. */
  readonly first?: string;
}

/** Writes the hostile variants of `honest` (its lines, line 0 the setup) into `dir`. `big` adds the large ones. */
export function writeHostile(dir: string, honest: readonly string[], big = true): Hostile[] {
  const out: Hostile[] = [];
  const put = (name: string, lines: readonly string[], exit: 0 | 1, first?: string, prefix = ''): void => {
    const file = join(dir, `${name}.jsonl`);
    writeFileSync(file, prefix + lines.join('\n') + '\n');
    out.push({ name, file, exit, ...(first !== undefined ? { first } : {}) });
  };
  const at = 3;
  const withLine = (line: string): string[] => [...honest.slice(0, at), line, ...honest.slice(at)];
  const sample = honest[at]!;
  const withBody = (body: string): string => sample.replace(/"body":\{[^}]*\}/, `"body":${body}`);
  put('big-number', withLine(withBody('{"n":1e400,"type":"x"}')), 1, 'malformed');
  put('lone-surrogate', withLine(withBody('{"s":"\\ud800","type":"x"}')), 1, 'malformed');
  put('deep-nesting', withLine(withBody(`{"d":${'['.repeat(20_000)}${']'.repeat(20_000)},"type":"x"}`)), 1, 'malformed');
  put('duplicate-from', withLine(sample.replace('{"at"', '{"from":"p2","at"')), 1, 'malformed');
  // The same envelope with its seq spelled -0: out of canonical form, though JSON.parse reads it as 0.
  const seq0 = honest.findIndex((l, i) => i > 0 && l.includes('"seq":0,'));
  put(
    'minus-zero-seq',
    honest.map((l, i) => (i === seq0 ? l.replace('"seq":0,', '"seq":-0,') : l)),
    1,
    'malformed',
  );
  put('bom', honest, 0, undefined, '\uFEFF');
  put('whitespace-lines', [...honest.slice(0, at), '   \t', '', '\r', ...honest.slice(at)], 0);
  put(
    'crlf',
    honest.map((l) => l + '\r'),
    0,
  );
  if (big) {
    // 20 MB in one line, the string inside an otherwise well-formed envelope.
    put('one-20mb-line', withLine(withBody(`{"s":"${'a'.repeat(20_000_000)}","type":"x"}`)), 1, 'malformed');
    // 20 MB with no LF at all after the setup.
    const nolf = join(dir, 'no-newline-20mb.jsonl');
    writeFileSync(nolf, `${honest[0]}\n${'x'.repeat(20_000_000)}`);
    out.push({ name: 'no-newline-20mb', file: nolf, exit: 1, first: 'malformed' });
    // 400,000 short malformed lines, written without building them in memory.
    const many = join(dir, 'many-malformed.jsonl');
    const fd = openSync(many, 'w');
    writeSync(fd, honest.join('\n') + '\n');
    const block = 'x\n'.repeat(10_000);
    for (let i = 0; i < 40; i++) writeSync(fd, block);
    closeSync(fd);
    out.push({ name: 'many-malformed', file: many, exit: 1, first: 'malformed' });
    // 600 lines of 150 KB each: envelopes in shape, their bodies too large to be anyone's signed word.
    const wide = join(dir, 'wide-lines.jsonl');
    const wfd = openSync(wide, 'w');
    writeSync(wfd, honest.join('\n') + '\n');
    const wideLine = withBody(`{"s":"${'b'.repeat(150_000)}","type":"x"}`);
    for (let i = 0; i < 600; i++) writeSync(wfd, wideLine + '\n');
    closeSync(wfd);
    out.push({ name: 'wide-lines', file: wide, exit: 1 });
  }
  return out;
}
