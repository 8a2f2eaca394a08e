/**
 * A decision's legal answers (docs/SPEC.md §7.5, core's `Choices`) in words for
 * `mail status`, and the `mail decide` command line that answers it, ready to
 * paste when the answer is plain (docs/spec/mail.md §1).
 */
import type { Choices } from '@fairtable/core/protocols/machine.js';

/** The legal answers in words: "null", "a whole number from 1 to 2", "one of: "red", "black"". */
export function describeChoices(c: Choices): string {
  switch (c.type) {
    case 'integer':
      return `a whole number from ${c.min} to ${c.max}`;
    case 'one-of':
      if (c.values.length === 0) return 'nothing (no value is legal now)';
      return c.values.length === 1 ? JSON.stringify(c.values[0]) : `one of: ${c.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'record':
      return `{${[
        ...Object.entries(c.fields).map(([name, f]) => `"${name}": ${describeChoices(f)}`),
        ...Object.entries(c.optional ?? {}).map(([name, f]) => `"${name}" (may be left out): ${describeChoices(f)}`),
      ].join(', ')}}`;
    case 'any-of':
      return c.options.map(describeChoices).join('; or ');
    case 'text':
      return `text matching ${c.pattern}${c.examples.length > 0 ? `, e.g. ${JSON.stringify(c.examples[0])}` : ''}`;
    case 'list':
      // A list nothing can go in (no house to sell, no square to trade) has one answer: the empty list.
      if (c.max === 0 || (c.of.type === 'one-of' && c.of.values.length === 0)) return 'the empty list []';
      return `a list of up to ${c.max}, each ${describeChoices(c.of)}`;
  }
}

/** A word the shell passes unchanged, else the text in single quotes. */
function shellWord(text: string): string {
  return /^[A-Za-z0-9_./:@-]+$/.test(text) ? text : `'${text.replaceAll("'", `'\\''`)}'`;
}

/**
 * The command that answers: with the answer itself when only one is legal or the answer is a number
 * (the smallest, to edit), else with CHOICE_JSON to fill in.
 */
export function decideCommand(dir: string, c: Choices): string {
  const answer = c.type === 'one-of' && c.values.length === 1 ? shellWord(JSON.stringify(c.values[0])) : c.type === 'integer' ? c.min : 'CHOICE_JSON';
  return `fairtable mail decide --dir ${shellWord(dir)} ${answer}`;
}
