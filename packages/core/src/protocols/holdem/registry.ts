/**
 * Hold'em's registry (docs/spec/holdem.md §11): the built-in machines and `holdem`. Hold'em is not a built-in
 * of `DEFAULT_REGISTRY`, as Diplomacy is not: its deck (ristretto255 shuffles and their proofs) would otherwise
 * ride in every program that checks a game, the web app's first load included. Programs that play or audit it
 * (the command line, tests, benchmarks) name this registry.
 */
import { createRegistry, type Registry } from '../../registry.js';
import { holdemMachine } from './machine.js';

export const holdemRegistry: Registry = createRegistry({ machines: [holdemMachine] });
