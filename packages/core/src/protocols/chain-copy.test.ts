/**
 * The chain machine's state copy writes each member out by name (chain.ts `copyChainState`): a member added to
 * the state and left out of the copy would be lost at the next step. These checks copy the states of real games,
 * plain rolls and a decision game, line by line.
 */
import { describe, expect, it } from 'vitest';
import { Auditor, setupText } from '../audit.js';
import { splitText } from '../lines.js';
import { simulate } from '../sim/simulate.js';
import { copyChainState, type ChainState } from './chain.js';

function statesOf(lines: readonly string[]): ChainState[] {
  const all = [...splitText(lines.join('\n') + '\n')];
  const auditor = new Auditor(setupText(all[0]!));
  const states: ChainState[] = [];
  for (const line of all.slice(1)) {
    auditor.add(line.text);
    states.push(auditor.referee.state as ChainState);
  }
  return states;
}

describe('copyChainState', () => {
  it.each([
    ['dice', undefined],
    ['monopoly', 'monopoly'],
  ] as const)('keeps every member of a %s game state, and copies its containers', (_name, game) => {
    const r = simulate({ protocol: 'chain', players: 3, seed: new Uint8Array(32).fill(5), turns: 6, ...(game === undefined ? {} : { game }) });
    const states = statesOf(r.lines);
    expect(states.length).toBeGreaterThan(6);
    for (const s of states) {
      const c = copyChainState(s);
      expect(Object.keys(c).sort()).toEqual(Object.keys(s).sort());
      expect(c).toEqual(s);
      for (const k of ['active', 'commits', 'fresh', 'forfeits', 'commitLine', 'freshLine'] as const) expect(c[k]).not.toBe(s[k]);
    }
  });
});
