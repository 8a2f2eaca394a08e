/**
 * Diplomacy's table (docs/spec/web.md §4, "Diplomacy"): a schematic board drawn from the observer's state, the
 * power assignment with its lotteries, and the last adjudicated phase's orders, as arrows on the board and as a
 * table of results; the seat's own orders, committed and not yet revealed, as dotted black arrows. The board is the standard map's provinces as nodes at fixed places, its adjacencies as lines;
 * supply centres are ringed in their owner's colour and units are letters in their power's colour.
 */
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';
import type { TableView } from './board.js';

/** Where each province is drawn, roughly where it lies on the board (x east, y south). */
const AT: Record<string, readonly [number, number]> = {
  nao: [120, 110],
  nwg: [380, 55],
  bar: [690, 30],
  iri: [150, 255],
  cly: [240, 165],
  edi: [280, 185],
  lvp: [240, 220],
  yor: [285, 245],
  wal: [230, 275],
  lon: [285, 290],
  nth: [350, 215],
  nwy: [440, 135],
  ska: [440, 195],
  swe: [510, 155],
  fin: [590, 120],
  stp: [700, 135],
  bot: [555, 195],
  bal: [515, 245],
  den: [445, 240],
  hel: [395, 262],
  eng: [230, 325],
  mao: [90, 380],
  bre: [250, 370],
  pic: [300, 340],
  bel: [335, 310],
  hol: [370, 285],
  kie: [425, 295],
  ber: [475, 285],
  pru: [535, 285],
  lvn: [605, 245],
  mos: [720, 240],
  war: [575, 330],
  sil: [505, 330],
  ruh: [380, 335],
  mun: [430, 370],
  boh: [500, 370],
  gal: [590, 380],
  ukr: [680, 335],
  sev: [770, 365],
  par: [290, 395],
  bur: [345, 405],
  gas: [250, 440],
  mar: [320, 462],
  spa: [200, 500],
  por: [110, 480],
  swi: [390, 432],
  pie: [385, 475],
  tyr: [450, 418],
  vie: [520, 410],
  bud: [575, 440],
  rum: [665, 450],
  bla: [760, 450],
  ven: [440, 470],
  tri: [510, 462],
  adr: [490, 510],
  tus: [420, 520],
  rom: [465, 560],
  apu: [530, 550],
  nap: [530, 600],
  alb: [575, 540],
  ser: [590, 495],
  bul: [660, 505],
  con: [705, 550],
  ank: [785, 525],
  arm: [880, 515],
  smy: [765, 600],
  syr: [880, 610],
  gre: [615, 590],
  aeg: [665, 625],
  eas: [775, 670],
  ion: [560, 665],
  tys: [430, 610],
  lyo: [330, 525],
  wes: [250, 575],
  naf: [170, 645],
  tun: [360, 655],
};

const COLOUR: Record<string, string> = {
  austria: '#c0392b',
  england: '#6c3483',
  france: '#2471a3',
  germany: '#4d4d4d',
  italy: '#1e8449',
  russia: '#7d6608',
  turkey: '#b9770e',
};

const provinceOf = (at: string): string => at.split('/')[0]!;

/** Every pair of neighbouring provinces, once, for the board's lines. */
const EDGES: readonly (readonly [string, string])[] = (() => {
  const seen = new Set<string>();
  const edges: [string, string][] = [];
  for (const p of standardMap.provinces.keys()) {
    const near = new Set([...standardMap.armyNeighbours(p)]);
    for (const c of [p, ...(standardMap.provinces.get(p)?.coasts ?? []).map((c) => `${p}/${c}`)])
      for (const n of standardMap.fleetNeighbours(c)) near.add(provinceOf(n));
    for (const n of near) {
      const key = [p, n].sort().join('-');
      if (seen.has(key) || AT[p] === undefined || AT[n] === undefined) continue;
      seen.add(key);
      edges.push([p, n]);
    }
  }
  return edges;
})();

interface Result {
  readonly power: string;
  readonly order: string;
  readonly status: string;
  readonly reason?: string | null;
}
type Adjudicated = { type: 'adjudicated'; phase: string; next: string; results: Result[] };
type Assignment = {
  type: 'assignment';
  method: string;
  contests: { pass: number; power: string; chances: Record<string, number>; outcomes: number; number: number; winner: number }[];
  powers: Record<string, string>;
};

/** The provinces an order names, in its order: unit, then target(s). */
function places(order: string): string[] {
  return (order.replace(' via convoy', '').match(/\b[a-z]{3}(?:\/[a-z]{2})?\b/g) ?? []).map(provinceOf).filter((p) => AT[p] !== undefined);
}

/** An arrow for an order: a move or retreat from its unit; a support or convoy from its unit to where it helps. */
function arrowOf(r: Result): { from: string; to: string; kind: 'move' | 'support' | 'convoy' } | null {
  const p = places(r.order);
  if (/ S /.test(r.order)) return p.length >= 2 ? { from: p[0]!, to: p[p.length - 1]!, kind: 'support' } : null;
  if (/ C /.test(r.order)) return p.length >= 3 ? { from: p[0]!, to: p[2]!, kind: 'convoy' } : null;
  if (/ - | R /.test(r.order)) return p.length >= 2 ? { from: p[0]!, to: p[1]!, kind: 'move' } : null;
  return null;
}

/** This seat's committed orders, not yet revealed: drawn dotted in black over the last phase's arrows. */
const PENDING = '#111';

/** The line of an arrow between two provinces, drawn short of both centres so it does not hide the units. */
function arrowEnds(a: { readonly from: string; readonly to: string }): { x1: number; y1: number; x2: number; y2: number } {
  const [x1, y1] = AT[a.from]!;
  const [x2, y2] = AT[a.to]!;
  const cut = 16 / (Math.hypot(x2 - x1, y2 - y1) || 1);
  return { x1: x1 + (x2 - x1) * cut, y1: y1 + (y2 - y1) * cut, x2: x2 - (x2 - x1) * cut, y2: y2 - (y2 - y1) * cut };
}

function Board({ view, last, pending }: { view: TableView; last: Adjudicated | null; pending: readonly string[] }) {
  const position = view.state?.position as
    | {
        units: { power: string; type: string; at: string }[];
        dislodged: { power: string; type: string; at: string }[];
        supplyCenterOwners: { power: string; at: string }[];
      }
    | undefined;
  const owner = new Map((position?.supplyCenterOwners ?? []).map((o) => [o.at, o.power]));
  const arrows = (last?.results ?? []).map((r) => ({ r, a: arrowOf(r) })).filter((x) => x.a !== null);
  const mine = pending.map((order) => ({ order, a: arrowOf({ power: '', order, status: 'pending' }) })).filter((x) => x.a !== null);
  return (
    <svg viewBox="0 0 950 700" class="diplomacy-map" role="img" aria-label={`Diplomacy board${last === null ? '' : `, with the orders of ${last.phase}`}`}>
      <defs>
        {Object.entries(COLOUR).map(([power, c]) => (
          <marker key={power} id={`head-${power}`} viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
            <path d="M 0 0 L 10 5 L 0 10 z" fill={c} />
          </marker>
        ))}
        <marker id="head-pending" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse">
          <path d="M 0 0 L 10 5 L 0 10 z" fill={PENDING} />
        </marker>
      </defs>
      <g stroke="#c9cdd2" stroke-width="1">
        {EDGES.map(([a, b]) => (
          <line key={`${a}-${b}`} x1={AT[a]![0]} y1={AT[a]![1]} x2={AT[b]![0]} y2={AT[b]![1]} />
        ))}
      </g>
      {[...standardMap.provinces.values()].map((p) => {
        const xy = AT[p.id];
        if (xy === undefined) return null;
        const centre = owner.get(p.id);
        return (
          <g key={p.id} data-province={p.id}>
            <circle
              cx={xy[0]}
              cy={xy[1]}
              r={p.supplyCenter ? 15 : 12}
              fill={p.kind === 'sea' ? '#d6eaf8' : '#f4ecd8'}
              stroke={centre === undefined ? (p.supplyCenter ? '#555' : '#aaa') : COLOUR[centre]}
              stroke-width={p.supplyCenter ? 4 : 1}
            />
            <text x={xy[0]} y={xy[1] + 27} text-anchor="middle" font-size="12" fill="#222">
              {p.id}
            </text>
          </g>
        );
      })}
      {arrows.map(({ r, a }, i) => {
        const ends = arrowEnds(a!);
        return (
          <line
            key={i}
            class={`order order-${a!.kind}`}
            data-order={r.order}
            {...ends}
            stroke={COLOUR[r.power] ?? '#000'}
            stroke-width={a!.kind === 'move' ? 3 : 2}
            stroke-dasharray={a!.kind === 'support' ? '6 4' : a!.kind === 'convoy' ? '2 3' : r.status === 'succeeded' ? undefined : '10 4'}
            opacity={r.status === 'succeeded' ? 1 : 0.55}
            marker-end={`url(#head-${r.power})`}
          />
        );
      })}
      {mine.map(({ order, a }, i) => {
        const ends = arrowEnds(a!);
        return (
          <line
            key={`pending-${i}`}
            class={`order-pending order-pending-${a!.kind}`}
            data-order={order}
            {...ends}
            stroke={PENDING}
            stroke-width={3}
            stroke-linecap="round"
            stroke-dasharray="0.5 6"
            marker-end="url(#head-pending)"
          >
            <title>{`your order, not yet revealed: ${order}`}</title>
          </line>
        );
      })}
      {[...(position?.units ?? []), ...(position?.dislodged ?? [])].map((u, i) => {
        const xy = AT[provinceOf(u.at)];
        if (xy === undefined) return null;
        const dislodged = i >= (position?.units.length ?? 0);
        return (
          <text
            key={`${u.at}-${i}`}
            class="unit"
            data-unit={`${u.power} ${u.type} ${u.at}`}
            x={xy[0] + (dislodged ? 10 : 0)}
            y={xy[1] + 5 + (dislodged ? -10 : 0)}
            text-anchor="middle"
            font-size="15"
            font-weight="bold"
            fill={COLOUR[u.power] ?? '#000'}
          >
            {u.type === 'army' ? 'A' : 'F'}
            {dislodged ? '*' : ''}
          </text>
        );
      })}
    </svg>
  );
}

export function Diplomacy({ view }: { view: TableView }) {
  const s = view.state as {
    powers?: Record<string, string>;
    stage?: string;
    phase?: string;
    round?: number;
    position?: { phase?: { season: string; year: number; type: string } };
  } | null;
  const events = view.events as readonly GameEvent[];
  const assignment = (events.filter((e) => e.type === 'assignment').pop() ?? null) as unknown as Assignment | null;
  const adjudicated = events.filter((e) => e.type === 'adjudicated') as unknown as Adjudicated[];
  const last = adjudicated.at(-1) ?? null;
  // The arrows are the last movement phase's: a retreat or adjustment phase after it has few or none to draw.
  const lastMovement = adjudicated.filter((e) => e.phase.endsWith('M')).at(-1) ?? null;
  const powers = s?.powers ?? {};
  const phase = s?.position?.phase;
  // The seat's own orders while their round is still being committed, claimed or revealed; after that the results show them.
  const open = s?.stage === 'play' && (s.phase === 'commit' || s.phase === 'claim' || s.phase === 'reveal' || s.phase === 'open');
  const pending = open && view.pending != null && view.pending.round === s.round ? view.pending.orders : [];
  const centres: Record<string, number> = {};
  for (const o of (view.state?.position?.supplyCenterOwners ?? []) as { power: string }[]) centres[o.power] = (centres[o.power] ?? 0) + 1;
  return (
    <section aria-label="Diplomacy table" class="board diplomacy">
      <p data-testid="diplomacy-phase">
        {s?.stage === 'assign'
          ? 'Assigning the powers: every player commits to a preference list.'
          : phase === undefined
            ? ''
            : `${phase.season} ${phase.year}, ${phase.type}: ${s?.phase ?? ''}.`}
        {lastMovement === null ? '' : ` The arrows are the orders of ${lastMovement.phase} (dashed: supports; faint: failed).`}
        {pending.length === 0 ? '' : ' Dotted black: your orders, committed and not yet revealed.'}
      </p>
      <Board view={view} last={lastMovement} pending={pending} />
      <table class="scores" data-testid="powers">
        <caption>Powers{assignment === null ? '' : ` (assigned by the ${assignment.method} method)`}</caption>
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">Power</th>
            <th scope="col">Centres</th>
          </tr>
        </thead>
        <tbody>
          {view.players.map((p) => (
            <tr key={p}>
              <th scope="row">{p}</th>
              <td style={{ color: COLOUR[powers[p] ?? ''] }}>{powers[p] ?? '—'}</td>
              <td>{powers[p] === undefined ? '' : (centres[powers[p]] ?? 0)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {assignment === null || assignment.contests.length === 0 ? null : (
        <table class="scores">
          <caption>Lotteries of the assignment</caption>
          <thead>
            <tr>
              <th scope="col">Pass</th>
              <th scope="col">Power</th>
              <th scope="col">Chances (player: outcomes)</th>
              <th scope="col">Number</th>
              <th scope="col">Winner</th>
            </tr>
          </thead>
          <tbody>
            {assignment.contests.map((c, i) => (
              <tr key={i}>
                <td>{c.pass}</td>
                <td>{c.power}</td>
                <td>
                  {Object.entries(c.chances)
                    .map(([n, k]) => `${view.players[Number(n) - 1] ?? n}: ${k}`)
                    .join(', ')}{' '}
                  of {c.outcomes}
                </td>
                <td>{c.number}</td>
                <td>{view.players[c.winner - 1] ?? c.winner}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {last === null ? null : (
        <table class="scores" data-testid="results">
          <caption>
            Orders of {last.phase} and their results (next: {last.next})
          </caption>
          <thead>
            <tr>
              <th scope="col">Power</th>
              <th scope="col">Order</th>
              <th scope="col">Result</th>
            </tr>
          </thead>
          <tbody>
            {last.results.map((r, i) => (
              <tr key={i}>
                <td>{r.power}</td>
                <td>{r.order}</td>
                <td>
                  {r.status}
                  {r.reason === undefined || r.reason === null ? '' : ` (${r.reason})`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
