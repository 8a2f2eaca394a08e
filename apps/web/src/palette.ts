/**
 * The Diplomacy board's colours (docs/spec/web.md §4): one a power, chosen so that every two stay apart, and apart
 * from the colour of land nobody owns, for people with full colour vision and for those with protanopia or
 * deuteranopia. How far apart is measured here, so that a test can hold the palette to it: each colour is turned
 * into what a dichromat sees (Machado, Oliveira and Fernandes 2009, severity 1, applied in linear RGB), then
 * compared in CIELAB (CIE76 ΔE, D65 white).
 */

/** Each power's colour: units, owned supply centres, order arrows, the legend. */
export const POWER_COLOUR: Readonly<Record<string, string>> = {
  austria: '#e0301e',
  england: '#7b3294',
  france: '#5aa9f0',
  germany: '#1a1a1a',
  italy: '#00684a',
  russia: '#ffffff',
  turkey: '#e8c21a',
};

/** Land nobody owns, and sea. */
export const LAND = '#dccfa8';
export const SEA = '#bcd8ec';

export type Vision = 'normal' | 'protanopia' | 'deuteranopia';

type Rgb = readonly [number, number, number];
type Matrix = readonly [Rgb, Rgb, Rgb];

const SIMULATION: Readonly<Record<Exclude<Vision, 'normal'>, Matrix>> = {
  protanopia: [
    [0.152286, 1.052583, -0.204868],
    [0.114503, 0.786281, 0.099216],
    [-0.003882, -0.048116, 1.051998],
  ],
  deuteranopia: [
    [0.367322, 0.860646, -0.227968],
    [0.280085, 0.672501, 0.047413],
    [-0.01182, 0.04294, 0.968881],
  ],
};

/** `#rrggbb` as linear RGB, each in [0, 1]. */
export function linearRgb(hex: string): Rgb {
  const m = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(hex);
  if (m === null) throw new Error(`not a #rrggbb colour: ${hex}`);
  const lin = (h: string): number => {
    const c = parseInt(h, 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return [lin(m[1]!), lin(m[2]!), lin(m[3]!)];
}

const clamp = (x: number): number => Math.min(1, Math.max(0, x));

/** The colour as seen with the given vision, in linear RGB. */
export function simulate(rgb: Rgb, vision: Vision): Rgb {
  if (vision === 'normal') return rgb;
  const [r0, r1, r2] = SIMULATION[vision];
  const row = (r: Rgb): number => clamp(r[0] * rgb[0] + r[1] * rgb[1] + r[2] * rgb[2]);
  return [row(r0), row(r1), row(r2)];
}

/** Linear RGB (sRGB primaries) to CIELAB, D65 white. */
export function lab([r, g, b]: Rgb): Rgb {
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number): number => (t > 216 / 24389 ? Math.cbrt(t) : (24389 / 27 / 116) * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

/** How far apart two colours look (CIE76 ΔE) to a person with the given vision. */
export function distance(a: string, b: string, vision: Vision = 'normal'): number {
  const p = lab(simulate(linearRgb(a), vision));
  const q = lab(simulate(linearRgb(b), vision));
  return Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
}

/** The closest pair among the colours, for the given vision. */
export function closestPair(colours: readonly string[], vision: Vision): { readonly a: string; readonly b: string; readonly distance: number } {
  let best = { a: '', b: '', distance: Infinity };
  for (let i = 0; i < colours.length; i++)
    for (let j = i + 1; j < colours.length; j++) {
      const d = distance(colours[i]!, colours[j]!, vision);
      if (d < best.distance) best = { a: colours[i]!, b: colours[j]!, distance: d };
    }
  return best;
}

/** Black or white, whichever reads better on the colour (a unit's letter on its power's colour). */
export function inkOn(hex: string): string {
  const [r, g, b] = linearRgb(hex);
  return 0.2126 * r + 0.7152 * g + 0.0722 * b > 0.25 ? '#111' : '#fff';
}
