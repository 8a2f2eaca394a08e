/**
 * The standard board (docs/spec/diplomacy.md §1). The facts come from the
 * `diplomacy/diplomacy` (MILA) project's `standard.map`, converted to JSON and
 * cross-checked against godip's classical map; see maps/standard.json's
 * `source` and `license` fields.
 */
import data from './maps/standard.json' with { type: 'json' };
import { GameMap, type MapData } from './map.js';

export const standardMap: GameMap = new GameMap('standard', data as unknown as MapData);
