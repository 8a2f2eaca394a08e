/**
 * A position: the phase, the units, the dislodged units waiting to retreat,
 * the provinces a standoff left empty, who owns each supply centre, and the
 * winner once there is one; read from JSON with every field checked, and
 * encoded canonically for the hash every player signs
 * (docs/spec/diplomacy.md §4).
 */
import { FairtableError } from '@fairtable/core/errors.js';
import { hashJsonHex } from '@fairtable/core/hash.js';
import { provinceOf, type GameMap, type UnitType } from './map.js';
import type { PhaseType } from './orders.js';

export type Season = 'spring' | 'fall';

export interface Phase {
  readonly season: Season;
  readonly year: number;
  readonly type: PhaseType;
}

export interface Unit {
  readonly power: string;
  readonly type: UnitType;
  readonly at: string;
}

export interface DislodgedUnit extends Unit {
  /** The province the dislodging unit came from; the unit may not retreat there unless that unit came by convoy. */
  readonly attackerFrom: string | null;
  readonly attackerViaConvoy: boolean;
}

export interface CenterOwner {
  readonly power: string;
  readonly at: string;
}

export interface Position {
  readonly phase: Phase;
  readonly units: readonly Unit[];
  /** Only in a retreat phase: units that must retreat or disband. */
  readonly dislodged: readonly DislodgedUnit[];
  /** Only in a retreat phase: provinces left empty by a standoff, where no unit may retreat. */
  readonly contested: readonly string[];
  /** Every owned supply centre; a centre not listed is unowned. */
  readonly supplyCenterOwners: readonly CenterOwner[];
  /** The power that reached a majority of supply centres, or null. */
  readonly winner: string | null;
}

const bad = (message: string, field: string): never => {
  throw new FairtableError('bad_position', message, { field });
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readPhase(value: unknown): Phase {
  if (!isRecord(value)) return bad('phase must be an object {season, year, type}', 'phase');
  const { year, type } = value;
  // Adjustments are written in the fall, as the DATC does; "winter" is read as the same phase.
  const season = value['season'] === 'winter' && type === 'adjustment' ? 'fall' : value['season'];
  if (season !== 'spring' && season !== 'fall') return bad('phase.season must be "spring" or "fall" ("winter" only for adjustments)', 'phase.season');
  if (typeof year !== 'number' || !Number.isSafeInteger(year) || year < 1) return bad('phase.year must be a positive integer', 'phase.year');
  if (type !== 'movement' && type !== 'retreat' && type !== 'adjustment') return bad('phase.type must be "movement", "retreat" or "adjustment"', 'phase.type');
  if (type === 'adjustment' && season !== 'fall') return bad('adjustments come after the fall', 'phase.type');
  return { season, year, type };
}

function readUnit(map: GameMap, value: unknown, field: string): Unit {
  if (!isRecord(value)) return bad(`${field} must be an object {power, type, at}`, field);
  const { power, type, at } = value;
  if (typeof power !== 'string' || !map.powers.includes(power)) return bad(`${field}.power: unknown power ${JSON.stringify(power)}`, `${field}.power`);
  if (type !== 'army' && type !== 'fleet') return bad(`${field}.type must be "army" or "fleet"`, `${field}.type`);
  if (typeof at !== 'string' || !map.canStand(type, at))
    return bad(`${field}.at: ${type === 'army' ? 'an army' : 'a fleet'} cannot stand at ${JSON.stringify(at)}`, `${field}.at`);
  return { power, type, at };
}

const byPlace = <T extends { readonly at: string }>(a: T, b: T): number => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0);

/** The owners at the start of a game: each home centre to its power. */
export function initialOwners(map: GameMap): CenterOwner[] {
  const owners: CenterOwner[] = [];
  for (const at of map.supplyCenters) {
    const home = map.province(at)?.home;
    if (home !== null && home !== undefined) owners.push({ power: home, at });
  }
  return owners;
}

/**
 * Reads a position from its JSON layout (the DATC `pre` plus `phase`).
 * `supplyCenterOwners: null` stands for the starting ownership. Throws
 * FairtableError('bad_position') naming the field.
 */
export function readPosition(map: GameMap, value: unknown): Position {
  if (!isRecord(value)) return bad('a position must be an object', 'position');
  if (value['map'] !== undefined && value['map'] !== map.name)
    return bad(`the position is for the map ${JSON.stringify(value['map'])}, not ${map.name}`, 'map');
  const phase = readPhase(value['phase']);
  const unitsIn = value['units'];
  if (!Array.isArray(unitsIn)) return bad('units must be an array', 'units');
  const units = unitsIn.map((u, i) => readUnit(map, u, `units[${i}]`));
  const seen = new Set<string>();
  for (const [i, u] of units.entries()) {
    if (seen.has(provinceOf(u.at))) bad(`two units in ${provinceOf(u.at)}`, `units[${i}].at`);
    seen.add(provinceOf(u.at));
  }
  const dislodgedIn = value['dislodged'] ?? [];
  if (!Array.isArray(dislodgedIn)) return bad('dislodged must be an array', 'dislodged');
  if (dislodgedIn.length > 0 && phase.type !== 'retreat') bad('dislodged units exist only in a retreat phase', 'dislodged');
  const dislodgedSeen = new Set<string>();
  const dislodged = dislodgedIn.map((d, i): DislodgedUnit => {
    const unit = readUnit(map, d, `dislodged[${i}]`);
    const rec = d as Record<string, unknown>;
    const from = rec['attackerFrom'] ?? null;
    if (from !== null && (typeof from !== 'string' || map.province(from) === undefined))
      bad(`dislodged[${i}].attackerFrom: unknown province`, `dislodged[${i}].attackerFrom`);
    const via = rec['attackerViaConvoy'] ?? false;
    if (typeof via !== 'boolean') bad(`dislodged[${i}].attackerViaConvoy must be a boolean`, `dislodged[${i}].attackerViaConvoy`);
    if (dislodgedSeen.has(provinceOf(unit.at))) bad(`two dislodged units in ${provinceOf(unit.at)}`, `dislodged[${i}].at`);
    dislodgedSeen.add(provinceOf(unit.at));
    return { ...unit, attackerFrom: from as string | null, attackerViaConvoy: via as boolean };
  });
  const contestedIn = value['contested'] ?? [];
  if (!Array.isArray(contestedIn) || contestedIn.some((c) => typeof c !== 'string' || map.province(c) === undefined))
    return bad('contested must be an array of province ids', 'contested');
  const ownersIn = value['supplyCenterOwners'] ?? null;
  let supplyCenterOwners: CenterOwner[];
  if (ownersIn === null) supplyCenterOwners = initialOwners(map);
  else {
    if (!Array.isArray(ownersIn)) return bad('supplyCenterOwners must be an array or null', 'supplyCenterOwners');
    const owned = new Set<string>();
    supplyCenterOwners = ownersIn.map((o, i): CenterOwner => {
      const field = `supplyCenterOwners[${i}]`;
      if (!isRecord(o) || typeof o['power'] !== 'string' || !map.powers.includes(o['power'])) return bad(`${field}.power: unknown power`, field);
      const at = o['at'];
      if (typeof at !== 'string' || !map.supplyCenters.includes(at)) return bad(`${field}.at: not a supply centre`, field);
      if (owned.has(at)) bad(`${field}: ${at} owned twice`, field);
      owned.add(at);
      return { power: o['power'], at };
    });
  }
  const winner = value['winner'] ?? null;
  if (winner !== null && (typeof winner !== 'string' || !map.powers.includes(winner))) bad('winner must be a power or null', 'winner');
  return {
    phase,
    units: [...units].sort(byPlace),
    dislodged: [...dislodged].sort(byPlace),
    contested: [...new Set(contestedIn as string[])].sort(),
    supplyCenterOwners: [...supplyCenterOwners].sort(byPlace),
    winner: winner as string | null,
  };
}

/** The position at the start of a game on `map`: Spring 1901 movement. */
export function startingPosition(map: GameMap, year = 1901): Position {
  return readPosition(map, { phase: { season: 'spring', year, type: 'movement' }, units: map.startingUnits, supplyCenterOwners: null });
}

/**
 * The canonical JSON value of a position: fixed members, lists sorted by
 * location, nothing optional. JCS of this value is what is hashed.
 */
export function encodePosition(map: GameMap, position: Position): unknown {
  return {
    map: map.name,
    phase: { season: position.phase.season, year: position.phase.year, type: position.phase.type },
    units: [...position.units].sort(byPlace).map((u) => ({ power: u.power, type: u.type, at: u.at })),
    dislodged: [...position.dislodged]
      .sort(byPlace)
      .map((d) => ({ power: d.power, type: d.type, at: d.at, attackerFrom: d.attackerFrom, attackerViaConvoy: d.attackerViaConvoy })),
    contested: [...position.contested].sort(),
    supplyCenterOwners: [...position.supplyCenterOwners].sort(byPlace).map((o) => ({ power: o.power, at: o.at })),
    winner: position.winner,
  };
}

/** H("diplomacy-position", JCS(encodePosition(...))) in hex: the value every player signs. */
export function positionHash(map: GameMap, position: Position): string {
  return hashJsonHex('diplomacy-position', encodePosition(map, position));
}
