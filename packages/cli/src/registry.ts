/**
 * The command line's registry: the core's built-in machines, Diplomacy's (docs/spec/diplomacy.md §10) and
 * Hold'em's (docs/spec/holdem.md §11) and Crazy Eights' (docs/spec/crazy-eights.md), so that `play`, `simulate` and `audit` know every protocol fairtable has.
 */
import { createRegistry, type Registry } from '@fairtable/core/registry.js';
import { holdemMachine } from '@fairtable/core/protocols/holdem/machine.js';
import { crazyEightsMachine } from '@fairtable/core/protocols/crazy-eights/machine.js';
import { diplomacy } from '@fairtable/diplomacy/protocol/index.js';

export const cliRegistry: Registry = createRegistry({ machines: [diplomacy, holdemMachine, crazyEightsMachine] });
