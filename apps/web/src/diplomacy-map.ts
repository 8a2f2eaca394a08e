/**
 * The standard Diplomacy map as drawn by the web app (docs/spec/web.md §4, "Diplomacy"): each province is the union
 * of the Voronoi cells of a few seed points placed at the longitude and latitude of places inside it, clipped to the
 * board's frame. Seeds of land outside the game (Ireland, Africa, Asia) fill the rest, so that seas end at coasts.
 * Everything is computed once, when the board's chunk loads, from the table below: no drawing is copied from
 * elsewhere. The map test checks that provinces the rules make neighbours share a border on the drawing.
 */

/** Seed points of each province, as `longitude latitude` pairs; the first is where its units go. */
const SEEDS: Readonly<Record<string, string>> = {
  // Seas and oceans
  nao: '-19 56, -22 64, -23 50, -14 60, -10.5 56.5, -8.2 57.5, -7 56.3',
  nwg: '2 68, -8 70, 12 72.3, 17 72.9, -4 64, 4 64, -3 60.5',
  bar: '36 72.5, 44 72.5, 29 73.2, 23.5 73.1',
  iri: '-7.5 50.6, -5.2 53.6, -11 51',
  nth: '3 56, 4.5 58.6, 1.8 54, 0 58.5, 2.6 52.6, 6.5 56.8',
  eng: '-3.6 49.7, 0 50.3, -6.5 49.2, 1.5 51',
  mao: '-16 44, -10 46.5, -12 40, -11 36, -7 35.8, -20 38, -6 45, -3.5 45.3',
  ska: '9 57.9, 11 58',
  hel: '6.8 54.5',
  bal: '18 55.7, 15 55, 19.5 58, 21 56.8, 12.8 54.7',
  bot: '20.2 62.5, 22.5 64.8, 19.5 60.4, 25.5 60',
  lyo: '5.5 42.4, 7.5 43, 3.8 42',
  wes: '2 38.5, -1.5 36.8, 5 39.5, 7.5 38.5, -4 36.2',
  tys: '11.5 39.6, 12.3 40.8, 9.5 39.5, 9.5 41.5, 10.6 37.9',
  ion: '18.5 36, 15 36.5, 21 37.2, 19 39.6, 14 34, 22 34.5, 12 36.6',
  adr: '15.8 43, 13.4 44.5, 17.5 41.8',
  aeg: '25 38.5, 24.5 40.1, 25 36.5',
  eas: '30 34.2, 34 34.5, 26.5 34.8',
  bla: '34 43.3, 30.6 43, 37.5 43.3, 31 45.3',
  // Britain
  cly: '-5 56.8, -5.2 58.3',
  edi: '-2.8 56.4, -3.2 57.6',
  lvp: '-3 54.1, -2.8 53.3, -4.3 55',
  yor: '-1 54.1, -1 53.3',
  wal: '-3.8 52, -4.3 51.6',
  lon: '0 51.7, 0.8 51.4',
  // Scandinavia and Russia
  nwy: '9 61, 6 59, 13.5 65.5, 19.5 69.5, 24 70.2, 28.5 70.3',
  swe: '15.5 60.5, 14 57, 17.5 64.5, 20.5 67, 21.2 65.6',
  fin: '26.5 63, 27 67.5, 24 61.6, 24.3 66.4',
  stp: '34 64, 31 60.5, 40 67.5, 33 69',
  mos: '38 56, 34 53.5, 43 58.5, 44 53, 28 53.8',
  lvn: '25 57, 24 55.3, 28 56.5',
  ukr: '30 50, 33.5 48.5, 27.2 48.8',
  sev: '38 48, 34 46, 41.5 45.8, 44 49.5, 30.5 46.6',
  war: '21 52, 22.8 51, 19 52.7, 24.5 52.6',
  // Germany and the Low Countries
  kie: '9 53, 10.4 54.1, 9.8 51.6',
  ber: '13.5 53, 12.5 52',
  pru: '20 54.2, 22.5 54.7, 17.3 54.2',
  sil: '16.5 51, 15.3 50.8',
  ruh: '7.3 50.9, 6.8 50.1',
  mun: '11 48.6, 9 48.5, 12.3 49.6, 12.6 51',
  hol: '5.6 52.3, 6.6 52.8',
  bel: '4.5 50.6, 3.3 51, 5.5 50',
  den: '9.3 56.2, 11.8 55.4, 9.2 55.2',
  // France and Iberia
  pic: '2 50, 1.4 49.4, 3.3 49.7',
  bre: '-3 48.1, -1 48.4, -4.3 48.3',
  par: '2.2 48, 2.6 47.3',
  bur: '5 47, 4.2 46, 5.7 48.7, 4.6 49.1',
  gas: '0 44.5, -0.6 43.4, 1 45.8, -1.3 44.8',
  mar: '5 44.2, 6.6 44, 3 43.6',
  spa: '-3.5 40, -4.5 42.6, -2 38, 0 40.5, -4.5 37.4, 0.8 41.6',
  por: '-8.2 39.6, -8 41.5, -8 37.6',
  // The Alps, Italy, the Balkans
  swi: '8 46.8, 6.8 46.5',
  pie: '7.8 45, 7.5 44.3, 9.3 45.8',
  ven: '11.8 45.4, 10.5 45.6, 12.4 44.1, 13.8 42.7',
  tus: '10.9 43.6, 11.5 43',
  rom: '12.8 42, 13.5 41.5',
  apu: '16.3 41.1, 15.4 41.8',
  nap: '15.8 39.6, 16.3 38.6, 14.7 40.5, 14 37.5',
  tyr: '12 46.9, 10.8 47.2, 13.6 47, 10 46.4',
  boh: '14.5 49.8, 13.5 49.3',
  vie: '16 47.8, 15 47',
  gal: '23 49.6, 25.5 48.3, 19.6 49.6, 18 49.7',
  bud: '20 47, 22.5 47.5, 18 46',
  tri: '15 45.2, 17 44, 14 45.8',
  ser: '21 43.6, 20.5 44.5',
  rum: '25 45.5, 28 45, 23 46.2',
  bul: '25.3 42.7, 27.2 42.5',
  alb: '19.8 41, 20 42',
  gre: '22 39.4, 22 37.7, 23 40.5',
  con: '28.8 41, 27.5 41.4',
  ank: '33 40.6, 36.5 41',
  arm: '41 40, 41 42, 44.5 39.5, 44.5 42.5, 41.5 38.6',
  smy: '30 38.5, 28 38, 33 37.5, 37 38.7',
  syr: '37.5 36.5, 41 37, 36 35',
  // Africa
  naf: '-1 34.2, -6 33.6, 4.5 34.8',
  tun: '9.5 35, 9 33.6, 10.2 36.6',
};

/** Where a label goes, from the province's first seed: below its units, or beside them where a neighbour's label or units sit below. */
const LABEL_BELOW: Point = [0, 26];
const LABEL_ELSEWHERE: Readonly<Record<string, Point>> = { tyr: [30, 22], apu: [22, 24] };

/** Land outside the game, drawn and never a region: Ireland, Africa south of the coast, Asia beyond Syria. */
const OFF_BOARD = '-8.3 53.3, -8.8 52.3, -7.6 54.6, -8 55.1, -8 30.5, 0 30.6, 9 31, 15 31.4, 20 31.4, 26 31, 31 30.6, 40 33.5, 45 35';

export const WIDTH = 1000;
export const HEIGHT = 840;
/** Longitudes and latitudes to x and y, piecewise linear: the open ocean, the far north and Asia are drawn narrower. */
const X_AT: readonly (readonly [number, number])[] = [
  [-24, 0],
  [-11, 100],
  [33, 880],
  [45, WIDTH],
];
const Y_AT: readonly (readonly [number, number])[] = [
  [75, 0],
  [66, 125],
  [36, 760],
  [30.5, HEIGHT],
];
function scale(table: readonly (readonly [number, number])[], v: number): number {
  for (let i = 1; i < table.length; i++) {
    const [a, x] = table[i - 1]!;
    const [b, y] = table[i]!;
    if ((v - a) * (v - b) <= 0 || i === table.length - 1) return x + ((v - a) / (b - a)) * (y - x);
  }
  return 0;
}

export type Point = readonly [number, number];

const project = ([lon, lat]: readonly [number, number]): Point => [scale(X_AT, lon), scale(Y_AT, lat)];

/** `'-19 56, -22 64'` as points on the drawing. */
const points = (list: string): Point[] =>
  list.split(',').map((pair) => {
    const [lon, lat] = pair.trim().split(' ').map(Number);
    return project([lon!, lat!]);
  });

/** A cell's corners in order, and for each edge (from corner i to i+1) the seed across it, or -1 for the frame. */
interface Cell {
  readonly points: Point[];
  readonly across: number[];
}

/** Keeps the part of a convex cell where points are at least as near seed `a` as seed `b` (Sutherland–Hodgman). */
function clip(cell: Cell, a: Point, b: Point, tag: number): Cell {
  const nx = b[0] - a[0];
  const ny = b[1] - a[1];
  const limit = (b[0] * b[0] + b[1] * b[1] - a[0] * a[0] - a[1] * a[1]) / 2;
  const side = (p: Point): number => p[0] * nx + p[1] * ny - limit;
  const points: Point[] = [];
  const across: number[] = [];
  const n = cell.points.length;
  for (let i = 0; i < n; i++) {
    const p = cell.points[i]!;
    const q = cell.points[(i + 1) % n]!;
    const sp = side(p);
    const sq = side(q);
    const cut = (): Point => {
      const t = sp / (sp - sq);
      return [p[0] + (q[0] - p[0]) * t, p[1] + (q[1] - p[1]) * t];
    };
    if (sp <= 0) {
      points.push(p);
      if (sq <= 0) across.push(cell.across[i]!);
      else {
        across.push(cell.across[i]!);
        points.push(cut());
        across.push(tag);
      }
    } else if (sq <= 0) {
      points.push(cut());
      across.push(cell.across[i]!);
    }
  }
  return { points, across };
}

export interface Region {
  readonly id: string;
  /** The SVG path of the province: one closed polygon a cell. */
  readonly path: string;
  /** Where its units go. */
  readonly at: Point;
  /** Where its label goes (the text's baseline, centred). */
  readonly label: Point;
}

export interface MapDrawing {
  readonly regions: ReadonlyMap<string, Region>;
  /** Land outside the game, as one SVG path. */
  readonly offBoard: string;
  /** Borders between two provinces, or a province and land outside the game: [x1, y1, x2, y2, a, b]. */
  readonly borders: readonly (readonly [number, number, number, number, string, string])[];
}

const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();
const polygon = (ps: readonly Point[]): string => `M${ps.map((p) => `${fmt(p[0])} ${fmt(p[1])}`).join('L')}Z`;

/** The drawing of the standard map: regions, land off the board, and the borders between provinces. */
export function drawMap(): MapDrawing {
  const owner: string[] = [];
  const seeds: Point[] = [];
  for (const [id, list] of Object.entries(SEEDS))
    for (const p of points(list)) {
      owner.push(id);
      seeds.push(p);
    }
  for (const p of points(OFF_BOARD)) {
    owner.push('');
    seeds.push(p);
  }
  const frame: Cell = {
    points: [
      [0, 0],
      [WIDTH, 0],
      [WIDTH, HEIGHT],
      [0, HEIGHT],
    ],
    across: [-1, -1, -1, -1],
  };
  const cells = seeds.map((a, i) => {
    let cell = frame;
    // Nearer seeds first: the cell shrinks fast, and later clips touch few corners.
    const order = seeds.map((_, j) => j).sort((j, k) => dist2(a, seeds[j]!) - dist2(a, seeds[k]!));
    let reach = Infinity;
    for (const j of order) {
      if (j === i) continue;
      // A seed more than twice as far as the cell's farthest corner cannot cut it, nor can any after it.
      if (cell.points.length === 0 || dist2(a, seeds[j]!) > 4 * reach) break;
      cell = clip(cell, a, seeds[j]!, j);
      reach = Math.max(...cell.points.map((p) => dist2(a, p)));
    }
    return cell;
  });
  const paths = new Map<string, string[]>();
  const borders: [number, number, number, number, string, string][] = [];
  cells.forEach((cell, i) => {
    const id = owner[i]!;
    paths.set(id, [...(paths.get(id) ?? []), polygon(cell.points)]);
    cell.across.forEach((j, k) => {
      if (j < 0 || j < i || owner[j] === id) return;
      const p = cell.points[k]!;
      const q = cell.points[(k + 1) % cell.points.length]!;
      borders.push([p[0], p[1], q[0], q[1], id, owner[j]!]);
    });
  });
  const regions = new Map<string, Region>();
  for (const [id, list] of Object.entries(SEEDS)) {
    const at = points(list)[0]!;
    const [dx, dy] = LABEL_ELSEWHERE[id] ?? LABEL_BELOW;
    regions.set(id, { id, path: paths.get(id)!.join(''), at, label: [at[0] + dx, at[1] + dy] });
  }
  return { regions, offBoard: (paths.get('') ?? []).join(''), borders };
}

const dist2 = (a: Point, b: Point): number => (a[0] - b[0]) ** 2 + (a[1] - b[1]) ** 2;
