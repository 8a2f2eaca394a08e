/**
 * The machines a referee can run, by protocol name (docs/SPEC.md §7, §9).
 *
 * `DEFAULT_REGISTRY` holds the built-in protocols playing the built-in games.
 * A game or protocol author extends it without editing fairtable:
 * `createRegistry({games: [myGame], machines: [myMachine]})` gives a registry
 * whose chain and keyed-stream machines also play `myGame`, and whose
 * protocols include `myMachine`; pass it to a `Referee`, `Seat` or `Auditor`.
 */
import { FairtableError } from './errors.js';
import type { ChanceGame } from './games/game.js';
import { gameBook } from './games/index.js';
import type { Machine } from './protocols/machine.js';
import { beacon } from './protocols/beacon.js';
import { chainMachine } from './protocols/chain.js';
import { keyedStreamMachine } from './protocols/keyed-stream.js';
import { rochambeauMachine } from './protocols/rochambeau.js';
import { signidice } from './signidice/arbiter.js';

// Machines are stored with their state type erased: a registry maps names to machines of different states.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyMachine = Machine<any>;

export interface Registry {
  readonly machines: ReadonlyMap<string, AnyMachine>;
  readonly games: ReadonlyMap<string, ChanceGame<unknown>>;
}

export function createRegistry(options: { readonly games?: readonly ChanceGame<unknown>[]; readonly machines?: readonly AnyMachine[] } = {}): Registry {
  const games = gameBook(...(options.games ?? []));
  const machines = new Map<string, AnyMachine>();
  for (const m of [beacon, chainMachine(games), keyedStreamMachine(games), signidice, rochambeauMachine, ...(options.machines ?? [])])
    machines.set(m.protocol, m);
  return { machines, games };
}

export const DEFAULT_REGISTRY: Registry = createRegistry();

/** The machine for a protocol name; a name the registry does not hold (even `__proto__`) is `unknown_protocol`. */
export function machineFor(protocol: string, registry: Registry = DEFAULT_REGISTRY): AnyMachine {
  const m = registry.machines.get(protocol);
  if (m === undefined)
    throw new FairtableError('unknown_protocol', `unknown protocol "${protocol}" (known: ${[...registry.machines.keys()].join(', ')})`, { field: 'protocol' });
  return m;
}
