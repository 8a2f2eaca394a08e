import { describe, expect, it } from 'vitest';
import { decideCommand, describeChoices } from './choice-text.js';

describe('a decision in words (mail status)', () => {
  it('says each kind of choice plainly', () => {
    expect(describeChoices({ type: 'one-of', values: [null] })).toBe('null');
    expect(describeChoices({ type: 'one-of', values: ['red', 'black'] })).toBe('one of: "red", "black"');
    expect(describeChoices({ type: 'integer', min: '1', max: '2' })).toBe('a whole number from 1 to 2');
    expect(
      describeChoices({
        type: 'any-of',
        options: [
          { type: 'record', fields: { kind: { type: 'one-of', values: ['dozen'] }, pick: { type: 'integer', min: '1', max: '3' } } },
          { type: 'one-of', values: [null] },
        ],
      }),
    ).toBe('{"kind": "dozen", "pick": a whole number from 1 to 3}; or null');
    expect(describeChoices({ type: 'list', of: { type: 'integer', min: '0', max: '39' }, max: 3 })).toBe('a list of up to 3, each a whole number from 0 to 39');
    // Nothing to put in it: one answer, said as such, never "a list of up to 0, each one of: ".
    expect(describeChoices({ type: 'list', of: { type: 'one-of', values: [] }, max: 0 })).toBe('the empty list []');
    expect(describeChoices({ type: 'list', of: { type: 'one-of', values: [] }, max: 3 })).toBe('the empty list []');
    expect(describeChoices({ type: 'one-of', values: [] })).toBe('nothing (no value is legal now)');
    expect(describeChoices({ type: 'text', pattern: '[a-z ]+', maxLength: 10, examples: ['france'] })).toBe('text matching [a-z ]+, e.g. "france"');
  });

  it('gives the command that answers, quoted for the shell, with the answer when it is plain', () => {
    expect(decideCommand('game-a', { type: 'one-of', values: [null] })).toBe('fairtable mail decide --dir game-a null');
    expect(decideCommand('my game', { type: 'integer', min: '1', max: '2' })).toBe("fairtable mail decide --dir 'my game' 1");
    expect(decideCommand("bob's", { type: 'one-of', values: ['a', 'b'] })).toBe(`fairtable mail decide --dir 'bob'\\''s' CHOICE_JSON`);
    expect(decideCommand('d', { type: 'one-of', values: [{ kind: 'red' }] })).toBe(`fairtable mail decide --dir d '{"kind":"red"}'`);
  });
});
