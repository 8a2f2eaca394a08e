/**
 * The Diplomacy map as an SVG (docs/spec/web.md §4, "Diplomacy"): provinces from diplomacy-map.ts, each a region a
 * player can hover or tap for its name and what stands on it; supply centres marked in their owner's colour (a
 * hollow ring when nobody owns one); units as discs in their power's colour with A or F; orders as arrows with a
 * dark casing, so that every power's colour reads on land and sea; failed orders dashed and crossed. Zoom and pan
 * with the buttons, a wheel, a drag, or two fingers. Provinces take a click, a tap or (focused with Tab) Enter or
 * Space; a drag or a pinch is not a click. Orders being written are drawn as dashed black arrows, the provinces
 * clicked towards the next order outlined.
 */
import { standardMap } from '@fairtable/diplomacy/standard.js';
import type { Position } from '@fairtable/diplomacy/position.js';
import { useMemo, useRef, useState } from 'preact/hooks';
import type { TargetedPointerEvent, TargetedWheelEvent } from 'preact';
import { drawMap, HEIGHT, WIDTH, type Point } from './diplomacy-map.js';
import type { Result } from './diplomacy-history.js';
import { inkOn, LAND, POWER_COLOUR, SEA } from './palette.js';

const drawing = drawMap();
const OFF_BOARD = '#b9b2a2';
/** This seat's committed orders, not yet revealed: drawn dotted in black. */
const PENDING = '#111';

const provinceOf = (at: string): string => at.split('/')[0]!;
const centre = (p: string): Point => drawing.regions.get(p)?.at ?? [0, 0];

/** The provinces an order names, in its order: unit, then target(s). */
function places(order: string): string[] {
  return (order.replace(' via convoy', '').match(/\b[a-z]{3}(?:\/[a-z]{2})?\b/g) ?? []).map(provinceOf).filter((p) => drawing.regions.has(p));
}

type Arrow = { from: string; to: string; kind: 'move' | 'support' | 'convoy' };

/** An arrow for an order: a move or retreat from its unit; a support or convoy from its unit to where it helps. */
export function arrowOf(order: string): Arrow | null {
  const p = places(order);
  if (/ S /.test(order)) return p.length >= 2 ? { from: p[0]!, to: p[p.length - 1]!, kind: 'support' } : null;
  if (/ C /.test(order)) return p.length >= 3 ? { from: p[0]!, to: p[2]!, kind: 'convoy' } : null;
  if (/ - | R /.test(order)) return p.length >= 2 ? { from: p[0]!, to: p[1]!, kind: 'move' } : null;
  return null;
}

/** The line of an arrow, drawn short of both centres so that it leaves the units visible. */
function ends(a: Arrow): { x1: number; y1: number; x2: number; y2: number } {
  const [x1, y1] = centre(a.from);
  const [x2, y2] = centre(a.to);
  const len = Math.hypot(x2 - x1, y2 - y1) || 1;
  const start = 13 / len;
  const stop = (a.kind === 'move' ? 15 : 12) / len;
  return { x1: x1 + (x2 - x1) * start, y1: y1 + (y2 - y1) * start, x2: x2 - (x2 - x1) * stop, y2: y2 - (y2 - y1) * stop };
}

/** Borders as two paths: coasts (land against sea), and the rest. */
const BORDERS = (() => {
  let coast = '';
  let inner = '';
  for (const [x1, y1, x2, y2, a, b] of drawing.borders) {
    const segment = `M${x1.toFixed(1)} ${y1.toFixed(1)}L${x2.toFixed(1)} ${y2.toFixed(1)}`;
    if ((standardMap.provinces.get(a)?.kind === 'sea') !== (standardMap.provinces.get(b)?.kind === 'sea')) coast += segment;
    else inner += segment;
  }
  return (
    <g class="borders" pointer-events="none" fill="none">
      <path d={inner} stroke="#8a8676" stroke-width="0.9" />
      <path d={coast} stroke="#4a5560" stroke-width="1.6" />
    </g>
  );
})();

/** The provinces' names: drawn once, the same at every render. */
const LABELS = (
  <g class="labels" pointer-events="none">
    {[...drawing.regions.values()].map((r) => {
      const p = standardMap.provinces.get(r.id);
      const sea = p?.kind === 'sea';
      return (
        <text key={r.id} x={r.label[0]} y={r.label[1]} class={sea ? 'sea-label' : 'land-label'} text-anchor="middle">
          {sea ? r.id.toUpperCase() : `${r.id[0]!.toUpperCase()}${r.id.slice(1)}`}
        </text>
      );
    })}
  </g>
);

export interface MapProps {
  readonly position: Position | null;
  /** The orders drawn, with their results. */
  readonly results: readonly Result[];
  /** This seat's orders, committed and not yet revealed. */
  readonly pending: readonly string[];
  readonly label: string;
  readonly selected: string | null;
  readonly onSelect: (province: string | null) => void;
  /** When given, a click on a province goes here (orders by clicks) instead of toggling the selection. */
  readonly onPick?: (province: string) => void;
  /** Orders being written, not yet sent: drawn dashed in black. */
  readonly drafted?: readonly string[];
  /** Provinces clicked towards the next order: outlined. */
  readonly marked?: readonly string[];
}

type Box = { x: number; y: number; w: number };
const FIT: Box = { x: 0, y: 0, w: WIDTH };
const MIN_W = WIDTH / 6;

function bounded(b: Box): Box {
  const w = Math.min(WIDTH, Math.max(MIN_W, b.w));
  const h = (w * HEIGHT) / WIDTH;
  return { w, x: Math.min(WIDTH - w, Math.max(0, b.x)), y: Math.min(HEIGHT - h, Math.max(0, b.y)) };
}

/** The box zoomed by `factor` (above 1: closer) about the map point (cx, cy). */
function zoomed(b: Box, factor: number, cx: number, cy: number): Box {
  const w = Math.min(WIDTH, Math.max(MIN_W, b.w / factor));
  const k = w / b.w;
  return bounded({ w, x: cx - (cx - b.x) * k, y: cy - (cy - b.y) * k });
}

export function DiplomacyMap({ position, results, pending, label, selected, onSelect, onPick, drafted = [], marked = [] }: MapProps) {
  const [box, setBox] = useState<Box>(FIT);
  const svg = useRef<SVGSVGElement>(null);
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const moved = useRef(0);
  const [focused, setFocused] = useState<string | null>(null);
  const h = (box.w * HEIGHT) / WIDTH;
  const zoomedIn = box.w < WIDTH - 0.5;

  /** Map units per screen pixel, and the map point under a screen point. */
  const toMap = (clientX: number, clientY: number): { k: number; x: number; y: number } => {
    const r = svg.current?.getBoundingClientRect();
    const k = r === undefined || r.width === 0 ? 1 : box.w / r.width;
    return { k, x: box.x + (clientX - (r?.left ?? 0)) * k, y: box.y + (clientY - (r?.top ?? 0)) * k };
  };
  const onPointerDown = (e: TargetedPointerEvent<SVGSVGElement>): void => {
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    moved.current = 0;
  };
  const onPointerMove = (e: TargetedPointerEvent<SVGSVGElement>): void => {
    const last = pointers.current.get(e.pointerId);
    if (last === undefined) return;
    const all = [...pointers.current.entries()];
    if (all.length === 1) {
      // A drag is never a click, zoomed in or not.
      moved.current += Math.abs(e.clientX - last.x) + Math.abs(e.clientY - last.y);
      pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (!zoomedIn) return;
      const { k } = toMap(e.clientX, e.clientY);
      if (moved.current > 6) e.currentTarget.setPointerCapture(e.pointerId);
      setBox((b) => bounded({ w: b.w, x: b.x - (e.clientX - last.x) * k, y: b.y - (e.clientY - last.y) * k }));
    } else if (all.length === 2) {
      const other = all.find(([id]) => id !== e.pointerId)![1];
      const before = Math.hypot(last.x - other.x, last.y - other.y);
      const after = Math.hypot(e.clientX - other.x, e.clientY - other.y);
      const mid = toMap((e.clientX + other.x) / 2, (e.clientY + other.y) / 2);
      moved.current += 100;
      if (before > 0) setBox((b) => zoomed(b, after / before, mid.x, mid.y));
    }
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
  };
  const onPointerUp = (e: TargetedPointerEvent<SVGSVGElement>): void => {
    pointers.current.delete(e.pointerId);
  };
  const onWheel = (e: TargetedWheelEvent<SVGSVGElement>): void => {
    // Only a zoomed map takes the wheel (or any ctrl-wheel, a trackpad's pinch): the page scrolls past a fitted one.
    if (!zoomedIn && !e.ctrlKey) return;
    e.preventDefault();
    const p = toMap(e.clientX, e.clientY);
    setBox((b) => zoomed(b, e.deltaY < 0 ? 1.25 : 0.8, p.x, p.y));
  };
  const zoomBy = (factor: number): void => setBox((b) => zoomed(b, factor, b.x + b.w / 2, b.y + (b.w * HEIGHT) / WIDTH / 2));
  // The regions are drawn once per selection: they reach the latest handlers through a ref.
  const latest = useRef({ onPick, onSelect, selected });
  latest.current = { onPick, onSelect, selected };
  const pick = (id: string, byKey = false): void => {
    if (!byKey && moved.current > 6) return;
    const { onPick: toOrder, onSelect: toSelect, selected: now } = latest.current;
    if (toOrder !== undefined) toOrder(id);
    else toSelect(now === id ? null : id);
  };

  const regions = useMemo(
    () => (
      <g>
        {[...drawing.regions.values()].map((r) => {
          const p = standardMap.provinces.get(r.id);
          const fill = p?.kind === 'sea' ? SEA : p?.kind === 'impassable' ? OFF_BOARD : LAND;
          return (
            <path
              key={r.id}
              class={`province${selected === r.id ? ' selected' : ''}`}
              data-province={r.id}
              d={r.path}
              fill={fill}
              stroke={fill}
              stroke-width="0.8"
              tabIndex={0}
              role="button"
              aria-label={p?.name ?? r.id}
              onClick={() => pick(r.id)}
              onKeyDown={(e) => {
                if (e.key !== 'Enter' && e.key !== ' ') return;
                e.preventDefault();
                pick(r.id, true);
              }}
              onFocus={() => setFocused(r.id)}
              onBlur={() => setFocused((f) => (f === r.id ? null : f))}
            >
              <title>{p?.name ?? r.id}</title>
            </path>
          );
        })}
      </g>
    ),
    // Redrawn only when the selection changes: `pick` reads nothing else that changes.
    [selected],
  );
  const owner = useMemo(() => new Map((position?.supplyCenterOwners ?? []).map((o) => [o.at, o.power])), [position]);
  const drawn = results.map((r) => ({ r, a: arrowOf(r.order) })).filter((x): x is { r: Result; a: Arrow } => x.a !== null);
  const mine = pending.map((order) => ({ order, a: arrowOf(order) })).filter((x): x is { order: string; a: Arrow } => x.a !== null);
  // Builds and removals: a ring where a unit is built, a cross where one is removed or disbanded.
  const marks = results
    .map((r) => ({ r, m: /^(Build|Remove) [AF] ?([a-z]{3})|^[AF] ?([a-z]{3})(?:\/[a-z]{2})? D$/.exec(r.order) }))
    .filter((x) => x.m !== null && x.r.status === 'succeeded')
    .map(({ r, m }) => ({ power: r.power, at: (m![2] ?? m![3])!, build: m![1] === 'Build' }));

  return (
    <div class="diplomacy-map-frame">
      <div class="map-tools" role="group" aria-label="Zoom the map">
        <button type="button" onClick={() => zoomBy(1.5)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => zoomBy(1 / 1.5)} aria-label="Zoom out" disabled={!zoomedIn}>
          −
        </button>
        <button type="button" onClick={() => setBox(FIT)} aria-label="Show the whole map" disabled={!zoomedIn}>
          ⤢
        </button>
      </div>
      <svg
        ref={svg}
        viewBox={`${box.x.toFixed(1)} ${box.y.toFixed(1)} ${box.w.toFixed(1)} ${h.toFixed(1)}`}
        class={`diplomacy-map${zoomedIn ? ' zoomed' : ''}`}
        role="group"
        aria-label={label}
        onPointerDown={onPointerDown}
        onPointerMove={onPointerMove}
        onPointerUp={onPointerUp}
        onPointerCancel={onPointerUp}
        onWheel={onWheel}
      >
        <defs>
          {[...Object.entries(POWER_COLOUR), ['pending', PENDING] as const].map(([power, c]) => (
            <marker key={power} id={`head-${power}`} viewBox="0 0 10 10" refX="5" refY="5" markerWidth="4" markerHeight="4" orient="auto-start-reverse">
              <path d="M 0 0 L 10 5 L 0 10 z" fill={c} stroke="#111" stroke-width="1.2" />
            </marker>
          ))}
        </defs>
        <rect x="0" y="0" width={WIDTH} height={HEIGHT} fill={SEA} />
        <path d={drawing.offBoard} fill={OFF_BOARD} stroke={OFF_BOARD} stroke-width="0.8" />
        {regions}
        {BORDERS}
        {selected === null ? null : <path d={drawing.regions.get(selected)?.path} fill="none" stroke="#000" stroke-width="3" pointer-events="none" />}
        {marked.map((m, i) => (
          <path
            key={`mark-${m}-${i}`}
            class="clicked"
            d={drawing.regions.get(m)?.path}
            fill="none"
            stroke="#000"
            stroke-width="2"
            stroke-dasharray="6 3"
            pointer-events="none"
          />
        ))}
        {focused === null ? null : (
          // The keyboard's focus: a thick outline in two tones, visible on land and sea.
          <g class="focus-ring" pointer-events="none" fill="none">
            <path d={drawing.regions.get(focused)?.path} stroke="#fff" stroke-width="6" />
            <path d={drawing.regions.get(focused)?.path} stroke="#1a1a1a" stroke-width="3" stroke-dasharray="5 3" />
          </g>
        )}
        {LABELS}
        <g class="centres" pointer-events="none">
          {standardMap.supplyCenters.map((id) => {
            const [x, y] = centre(id);
            const o = owner.get(id);
            return (
              <circle
                key={id}
                data-centre={`${id} ${o ?? 'unowned'}`}
                cx={x - 24}
                cy={y + 21}
                r="5.5"
                fill={o === undefined ? LAND : POWER_COLOUR[o]}
                stroke="#222"
                stroke-width={o === undefined ? 1.6 : 1.2}
              />
            );
          })}
        </g>
        {marks.map((m, i) => {
          const [x, y] = centre(m.at);
          return m.build ? (
            <circle key={`m${i}`} class="built" cx={x} cy={y} r="16" fill="none" stroke={POWER_COLOUR[m.power] ?? '#000'} stroke-width="3" />
          ) : (
            <path
              key={`m${i}`}
              class="removed"
              d={`M${x - 12} ${y - 12}L${x + 12} ${y + 12}M${x + 12} ${y - 12}L${x - 12} ${y + 12}`}
              stroke="#b00"
              stroke-width="3"
            />
          );
        })}
        {[...(position?.units ?? []), ...(position?.dislodged ?? [])].map((u, i) => {
          const [x0, y0] = centre(provinceOf(u.at));
          const dislodged = i >= (position?.units.length ?? 0);
          const x = x0 + (dislodged ? 15 : 0);
          const y = y0 + (dislodged ? -15 : 0);
          const colour = POWER_COLOUR[u.power] ?? '#000';
          return (
            // A unit takes a click as its province does (a dislodged one is drawn beside it, over a neighbour).
            <g key={`${u.at}-${i}`} class="unit-disc" onClick={() => pick(provinceOf(u.at))}>
              <circle
                cx={x}
                cy={y}
                r="11"
                fill={colour}
                stroke={dislodged ? '#b00' : '#111'}
                stroke-width={dislodged ? 2.5 : 1.4}
                stroke-dasharray={dislodged ? '4 2' : undefined}
              />
              <text
                class="unit"
                data-unit={`${u.power} ${u.type} ${u.at}`}
                x={x}
                y={y + 5}
                text-anchor="middle"
                font-size="14"
                font-weight="bold"
                fill={inkOn(colour)}
              >
                {u.type === 'army' ? 'A' : 'F'}
              </text>
            </g>
          );
        })}
        <g pointer-events="none">
          {drawn.map(({ r, a }, i) => {
            const e = ends(a);
            const ok = r.status === 'succeeded';
            const dash = a.kind === 'support' ? '7 4' : a.kind === 'convoy' ? '2 4' : ok ? undefined : '9 5';
            const width = a.kind === 'move' ? 4 : 2.5;
            return (
              <g key={i}>
                <line {...e} stroke="#111" stroke-width={width + 2.4} stroke-dasharray={dash} opacity={ok ? 0.9 : 0.5} />
                <line
                  class={`order order-${a.kind}${ok ? '' : ' order-failed'}`}
                  data-order={r.order}
                  {...e}
                  stroke={POWER_COLOUR[r.power] ?? '#000'}
                  stroke-width={width}
                  stroke-dasharray={dash}
                  opacity={ok ? 1 : 0.75}
                  marker-end={`url(#head-${r.power})`}
                />
                {ok ? null : (
                  <path
                    class="failed-mark"
                    d={`M${(e.x1 + e.x2) / 2 - 6} ${(e.y1 + e.y2) / 2 - 6}l12 12m0 -12l-12 12`}
                    stroke="#b00"
                    stroke-width="3.5"
                    stroke-linecap="round"
                  />
                )}
              </g>
            );
          })}
          {drafted
            .map((order) => ({ order, a: arrowOf(order) }))
            .filter((x): x is { order: string; a: Arrow } => x.a !== null)
            .map(({ order, a }, i) => (
              <line
                key={`draft-${i}`}
                class={`order-draft order-draft-${a.kind}`}
                data-order={order}
                {...ends(a)}
                stroke={PENDING}
                stroke-width={a.kind === 'move' ? 3.5 : 2.5}
                stroke-dasharray={a.kind === 'move' ? '10 4' : '4 4'}
                marker-end="url(#head-pending)"
              >
                <title>{`your order, not yet sent: ${order}`}</title>
              </line>
            ))}
          {mine.map(({ order, a }, i) => (
            <line
              key={`pending-${i}`}
              class={`order-pending order-pending-${a.kind}`}
              data-order={order}
              {...ends(a)}
              stroke={PENDING}
              stroke-width={3.5}
              stroke-linecap="round"
              stroke-dasharray="0.5 7"
              marker-end="url(#head-pending)"
            >
              <title>{`your order, not yet revealed: ${order}`}</title>
            </line>
          ))}
        </g>
      </svg>
    </div>
  );
}
