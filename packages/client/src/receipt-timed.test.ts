/**
 * Receipt-timed machines (receipt-timed.ts) are the machines a seat playing through a relay runs: every
 * member of the machine must be there, the optional ones included. Without `readBack`, a Diplomacy seat that
 * follows its key (a second device, a resumed copy) could not read its own sealed orders back, and stopped
 * at its first commit.
 */
import { describe, expect, it } from 'vitest';
import { createRegistry, DEFAULT_REGISTRY, type AnyMachine } from '@fairtable/core/registry.js';
import { holdemMachine } from '@fairtable/core/protocols/holdem/machine.js';
import { crazyEightsMachine } from '@fairtable/core/protocols/crazy-eights/machine.js';
import { diplomacy } from '@fairtable/diplomacy/protocol/index.js';
import { receiptTimedRegistry } from './receipt-timed.js';

/** Every member of the Machine interface (core/protocols/machine.ts). */
const MEMBERS = [
  'protocol',
  'messages',
  'carried',
  'readBack',
  'awaiting',
  'saveState',
  'loadState',
  'decision',
  'decide',
  'init',
  'step',
  'tick',
  'outcome',
  'penalize',
] as const;

describe('receipt-timed machines', () => {
  const registry = createRegistry({ machines: [diplomacy, holdemMachine, crazyEightsMachine, ...DEFAULT_REGISTRY.machines.values()] });
  const timed = receiptTimedRegistry(registry, () => undefined);

  it('keep every member each machine has, and add none', () => {
    expect([...timed.machines.keys()]).toEqual([...registry.machines.keys()]);
    for (const [name, m] of registry.machines) {
      const t = timed.machines.get(name)! as unknown as Record<string, unknown>;
      const o = m as unknown as Record<string, unknown>;
      for (const member of MEMBERS) expect(`${name}.${member}: ${t[member] === undefined}`).toBe(`${name}.${member}: ${o[member] === undefined}`);
    }
    // Diplomacy reads a seat's sealed answer back: the member that was missing.
    expect(typeof (timed.machines.get('diplomacy') as AnyMachine).readBack).toBe('function');
    expect((timed.machines.get('diplomacy') as AnyMachine).carried).toEqual(diplomacy.carried);
  });
});
