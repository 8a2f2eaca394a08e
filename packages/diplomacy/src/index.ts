/**
 * @fairtable/diplomacy: the Diplomacy engine (docs/spec/diplomacy.md). A
 * typed map, an order parser with one canonical text per order, an
 * adjudicator for every phase checked against DATC, and a canonical position
 * encoding and hash.
 */
export * from './map.js';
export * from './standard.js';
export * from './orders.js';
export * from './position.js';
export * from './assign.js';
export { randomOrders, seededBelow, type Below } from './random-orders.js';
export * from './orders-file.js';
export {
  adjudicate,
  checkOrders,
  retreatOptions,
  type RuleOptions,
  type Adjudication,
  type CheckedOrder,
  type OrderInput,
  type OrderResult,
  type OrderStatus,
} from './adjudicate.js';
export * from './protocol/index.js';
