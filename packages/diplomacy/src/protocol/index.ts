/**
 * Diplomacy as a fairtable protocol (docs/spec/diplomacy.md §10): the machine, the choices it offers, and
 * the registry that holds it beside the core's machines, for seats, the auditor, the CLI and the simulator.
 */
import { createRegistry, type Registry } from '@fairtable/core/registry.js';
import { diplomacy } from './machine.js';

export {
  diplomacy,
  phaseLabel,
  ordersFile,
  ordersIn,
  commitSetHash,
  committers,
  MAX_VALUE_CHARS,
  type DiplomacyState,
  type AssignMethod,
  type TypoRule,
  type Step,
} from './machine.js';
export { orderChoices } from './options.js';
export {
  approveBody,
  consentBytes,
  HANDOVER_MESSAGES,
  newcomerBody,
  newcomerConsent,
  openHandovers,
  proposalHash,
  type Handover,
  type Newcomer,
} from './handover.js';

/** The built-in machines and Diplomacy's. */
export const diplomacyRegistry: Registry = createRegistry({ machines: [diplomacy] });
