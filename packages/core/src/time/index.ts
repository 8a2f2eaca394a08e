/** The time rules (docs/spec/time.md): what a seat believes, what an audit believes. */
export { AHEAD_TOLERANCE_MS, AHEAD_FAULT_MS, SIGNED_TOLERANCE_MS, CREATED_WINDOW_MS, receiptTimeFault, firstPhaseStart, createdError } from './rules.js';
export type { TimeFault, TimeFaultKind, TimedLine } from './rules.js';
export { SeatClock } from './seat-clock.js';
export { firstBackwards } from './audit-times.js';
