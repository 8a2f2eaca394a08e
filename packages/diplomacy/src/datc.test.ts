/**
 * DATC v2.4 section 6, every case as data (testdata/datc-v2.4.json: the DATC
 * is by Lucas B. Kruijswijk; the case file is jDip's as kept in zond/godip,
 * converted to JSON, see /work/shared/data/diplomacy/README.md and
 * docs/spec/diplomacy.md §6). Each case adjudicates `pre` with `orders` and
 * compares the units and dislodged units with `post`, both ways.
 */
import { describe, expect, it } from 'vitest';
import cases from './testdata/datc-v2.4.json' with { type: 'json' };
import { adjudicate } from './adjudicate.js';
import { readPosition } from './position.js';
import { standardMap } from './standard.js';

interface DatcUnit {
  power: string;
  type: string;
  at: string;
}
interface DatcCase {
  id: string;
  title: string;
  phase: { season: string; year: number; type: string };
  pre: {
    units: DatcUnit[];
    dislodged: (DatcUnit & { attackerFrom?: string | null; attackerViaConvoy?: boolean })[];
    supplyCenterOwners: { power: string; at: string }[] | null;
    contested?: string[];
  };
  orders: { power: string; text: string }[];
  post: { units: DatcUnit[]; dislodged: DatcUnit[] };
}

const key = (u: DatcUnit): string => `${u.power} ${u.type} ${u.at}`;

describe('DATC v2.4 §6', () => {
  for (const c of cases as unknown as DatcCase[]) {
    it(`${c.id}${c.title === '' ? '' : ` ${c.title}`}`, () => {
      const position = readPosition(standardMap, {
        phase: c.phase,
        units: c.pre.units,
        dislodged: c.pre.dislodged.map((d) => ({
          power: d.power,
          type: d.type,
          at: d.at,
          attackerFrom: d.attackerFrom ?? null,
          attackerViaConvoy: d.attackerViaConvoy ?? false,
        })),
        contested: c.pre.contested ?? [],
        supplyCenterOwners: c.pre.supplyCenterOwners,
      });
      const { position: next, results } = adjudicate(standardMap, position, c.orders, { selfCheck: true });
      expect(results).toHaveLength(c.orders.length);
      const units = next.units.map(key).sort();
      const dislodged = next.dislodged.map(key).sort();
      expect({ units, dislodged }).toEqual({ units: c.post.units.map(key).sort(), dislodged: c.post.dislodged.map(key).sort() });
    });
  }
});
