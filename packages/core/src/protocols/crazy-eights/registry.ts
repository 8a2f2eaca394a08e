/**
 * Crazy Eights' registry (docs/spec/crazy-eights.md §2): the built-in machines and `crazy-eights`, which is not
 * a built-in of `DEFAULT_REGISTRY`, as Hold'em is not: its deck would otherwise ride in every program that
 * checks a game. Programs that play or audit it (the command line, tests) name this registry.
 */
import { createRegistry, type Registry } from '../../registry.js';
import { crazyEightsMachine } from './machine.js';

export const crazyEightsRegistry: Registry = createRegistry({ machines: [crazyEightsMachine] });
