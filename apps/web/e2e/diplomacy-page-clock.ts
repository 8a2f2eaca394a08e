/** Evaluated first in the Diplomacy bench page: when its script began, to time the board's modules and map. */
(globalThis as unknown as { started: number }).started = performance.now();
