/**
 * The board: provinces, coasts, adjacencies, supply centres, home centres and
 * starting units, loaded from a map's JSON description into lookups the
 * parser and the adjudicator use (docs/spec/diplomacy.md §1).
 *
 * A location is a province id (`par`) or, for a fleet on a split coast, the
 * province id and the coast (`spa/nc`). Armies stand on provinces; fleets on
 * locations. Nothing here is specific to the standard board, so a variant is
 * another JSON file of the same shape.
 */
import { FairtableError } from '@fairtable/core/errors.js';

export type UnitType = 'army' | 'fleet';
export type ProvinceKind = 'sea' | 'coastal' | 'inland' | 'impassable';

export interface ProvinceData {
  readonly id: string;
  readonly name: string;
  readonly kind: ProvinceKind;
  readonly supplyCenter: boolean;
  readonly home: string | null;
  readonly coasts: readonly string[];
  readonly aliases: readonly string[];
}

export interface UnitData {
  readonly power: string;
  readonly type: UnitType;
  readonly at: string;
}

/** The JSON layout of a map file (src/maps/standard.json). */
export interface MapData {
  readonly source?: string;
  readonly license?: string;
  readonly provinces: readonly ProvinceData[];
  readonly armyAdjacency: readonly (readonly string[])[];
  readonly fleetAdjacency: readonly (readonly string[])[];
  readonly locationAliases: Readonly<Record<string, string>>;
  readonly powers: readonly string[];
  readonly startingUnits: readonly UnitData[];
}

/** The province part of a location: `spa/nc` → `spa`. */
export function provinceOf(location: string): string {
  const slash = location.indexOf('/');
  return slash < 0 ? location : location.slice(0, slash);
}

/** The coast part of a location, or null. */
export function coastOf(location: string): string | null {
  const slash = location.indexOf('/');
  return slash < 0 ? null : location.slice(slash + 1);
}

const EMPTY: ReadonlySet<string> = new Set();

export class GameMap {
  /** A short name for the map; part of the position encoding. */
  readonly name: string;
  readonly provinces: ReadonlyMap<string, ProvinceData>;
  readonly powers: readonly string[];
  /** Supply centre province ids, sorted. */
  readonly supplyCenters: readonly string[];
  readonly startingUnits: readonly UnitData[];
  private readonly army = new Map<string, Set<string>>();
  private readonly fleet = new Map<string, Set<string>>();
  private readonly names = new Map<string, string>();
  private readonly homes = new Map<string, string[]>();
  private readonly distances = new Map<string, Map<string, number>>();

  constructor(name: string, data: MapData) {
    this.name = name;
    const provinces = new Map<string, ProvinceData>();
    for (const p of data.provinces) {
      if (provinces.has(p.id)) throw new FairtableError('bad_input', `map ${name}: province ${p.id} listed twice`, { field: 'provinces' });
      provinces.set(p.id, p);
    }
    this.provinces = provinces;
    this.powers = [...data.powers];
    this.startingUnits = data.startingUnits;
    this.supplyCenters = data.provinces
      .filter((p) => p.supplyCenter)
      .map((p) => p.id)
      .sort();
    const link = (table: Map<string, Set<string>>, a: string, b: string): void => {
      let set = table.get(a);
      if (set === undefined) table.set(a, (set = new Set()));
      set.add(b);
    };
    for (const pair of data.armyAdjacency) {
      const [a, b] = pair;
      if (a === undefined || b === undefined || !provinces.has(a) || !provinces.has(b))
        throw new FairtableError('bad_input', `map ${name}: bad army adjacency ${JSON.stringify(pair)}`, { field: 'armyAdjacency' });
      link(this.army, a, b);
      link(this.army, b, a);
    }
    for (const pair of data.fleetAdjacency) {
      const [a, b] = pair;
      if (a === undefined || b === undefined || !provinces.has(provinceOf(a)) || !provinces.has(provinceOf(b)))
        throw new FairtableError('bad_input', `map ${name}: bad fleet adjacency ${JSON.stringify(pair)}`, { field: 'fleetAdjacency' });
      link(this.fleet, a, b);
      link(this.fleet, b, a);
    }
    for (const p of data.provinces) {
      this.names.set(p.id, p.id);
      for (const alias of p.aliases) this.names.set(alias.toLowerCase(), p.id);
      for (const coast of p.coasts) this.names.set(`${p.id}/${coast}`, `${p.id}/${coast}`);
      if (p.home !== null) {
        const list = this.homes.get(p.home) ?? [];
        list.push(p.id);
        this.homes.set(p.home, list);
      }
    }
    for (const [alias, location] of Object.entries(data.locationAliases)) this.names.set(alias.toLowerCase(), location);
  }

  province(id: string): ProvinceData | undefined {
    return this.provinces.get(id);
  }

  /** A spelling (id, name, alias, coast alias; lower case) to a location. */
  lookup(spelling: string): string | undefined {
    return this.names.get(spelling);
  }

  /** Every spelling the map knows, for the parser's longest-match. */
  spellings(): IterableIterator<string> {
    return this.names.keys();
  }

  armyNeighbours(province: string): ReadonlySet<string> {
    return this.army.get(province) ?? EMPTY;
  }

  fleetNeighbours(location: string): ReadonlySet<string> {
    return this.fleet.get(location) ?? EMPTY;
  }

  /** Whether a unit of this type may stand at this location. */
  canStand(type: UnitType, location: string): boolean {
    const p = this.provinces.get(provinceOf(location));
    if (p === undefined) return false;
    if (type === 'army') return location === p.id && (p.kind === 'coastal' || p.kind === 'inland');
    if (p.kind === 'sea') return location === p.id;
    if (p.kind !== 'coastal') return false;
    if (p.coasts.length === 0) return location === p.id && this.fleet.has(p.id);
    return coastOf(location) !== null && p.coasts.includes(coastOf(location) as string);
  }

  /** Whether a unit at `from` can move in one step to province `to` (any coast of it). */
  reaches(type: UnitType, from: string, to: string): boolean {
    if (type === 'army') return this.army.get(from)?.has(to) ?? false;
    for (const n of this.fleetNeighbours(from)) if (provinceOf(n) === to) return true;
    return false;
  }

  /** The locations of province `to` that a fleet at `from` can reach in one step. */
  fleetTargets(from: string, to: string): string[] {
    const out: string[] = [];
    for (const n of this.fleetNeighbours(from)) if (provinceOf(n) === to) out.push(n);
    return out.sort();
  }

  homeCenters(power: string): readonly string[] {
    return this.homes.get(power) ?? [];
  }

  /**
   * Fewest moves from a unit at `location` to any home centre of `power`, for
   * the civil disorder rule as it was usually read up to DATC version 2 (see
   * docs/spec/diplomacy.md §3.7): an army may walk
   * through any province, land or sea; a fleet moves as fleets do. Infinity
   * when none can be reached.
   */
  distanceHome(power: string, type: UnitType, location: string): number {
    const key = `${power}/${type}`;
    let table = this.distances.get(key);
    if (table === undefined) {
      table = new Map();
      const queue: string[] = [];
      for (const home of this.homeCenters(power)) {
        const p = this.provinces.get(home);
        const starts = type === 'army' ? [home] : p === undefined || p.coasts.length === 0 ? [home] : p.coasts.map((c) => `${home}/${c}`);
        for (const start of starts) {
          if (type === 'fleet' && !this.fleet.has(start)) continue;
          table.set(start, 0);
          queue.push(start);
        }
      }
      for (let i = 0; i < queue.length; i++) {
        const here = queue[i] as string;
        const d = table.get(here) as number;
        let next: Iterable<string>;
        if (type === 'fleet') next = this.fleetNeighbours(here);
        else {
          const around = new Set<string>(this.armyNeighbours(here));
          const p = this.provinces.get(here);
          const locations = p === undefined || p.coasts.length === 0 ? [here] : p.coasts.map((c) => `${here}/${c}`);
          for (const location of locations) for (const n of this.fleetNeighbours(location)) around.add(provinceOf(n));
          next = around;
        }
        for (const n of next) {
          if (!table.has(n)) {
            table.set(n, d + 1);
            queue.push(n);
          }
        }
      }
      this.distances.set(key, table);
    }
    return table.get(type === 'army' ? provinceOf(location) : location) ?? Infinity;
  }
}
