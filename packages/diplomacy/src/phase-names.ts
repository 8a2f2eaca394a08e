/**
 * Phases in the words players use (docs/spec/diplomacy.md §1): the protocol keeps its codes (S1901M, F1901R,
 * W1901A); what a person reads in the web app, the CLI and mail says `Spring 1901, movement`.
 */
import type { Position } from './position.js';

const PHASE_WORDS = { movement: 'movement', retreat: 'retreats', adjustment: 'builds' } as const;

/**
 * A phase as players say it: `Spring 1901, movement`, `Fall 1901, retreats`, `Winter 1901, builds` (the builds
 * phase, where units are also removed, is the fall's adjustment; its code is W1901A).
 */
export function phaseName(position: Pick<Position, 'phase'>): string {
  const { season, year, type } = position.phase;
  return `${type === 'adjustment' ? 'Winter' : season === 'spring' ? 'Spring' : 'Fall'} ${year}, ${PHASE_WORDS[type]}`;
}

/** A phase code (`S1901M`, `F1901R`, `W1901A`) in words, as phaseName says it; anything else as it is. */
export function phaseCodeName(code: string): string {
  const m = /^([SFW])(\d{4})([MRA])$/.exec(code);
  if (m === null) return code;
  const type = ({ M: 'movement', R: 'retreat', A: 'adjustment' } as const)[m[3] as 'M' | 'R' | 'A'];
  return phaseName({ phase: { season: m[1] === 'S' ? 'spring' : 'fall', year: Number(m[2]), type } });
}
