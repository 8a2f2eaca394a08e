/**
 * "Where did this roll come from?" and the outcome chart (docs/spec/web.md §5), drawn from @fairtable/client/explain:
 * every random outcome of the log with each of its inputs and the check made on it in this page, and for games of
 * chance the outcomes counted against their expected distribution with Pearson's chi-square.
 */
import { useMemo } from 'preact/hooks';
import { explainOutcomes, outcomeDistributions, type Distribution, type Provenance } from '@fairtable/client/explain';

const mark = (ok: boolean | undefined): string => (ok === true ? '✓ checked' : ok === false ? '✗ failed' : '· stated');

function ProvenanceItem({ p }: { p: Provenance }) {
  return (
    <li>
      <details>
        <summary>
          <span class={p.ok ? 'ok' : 'bad'}>{p.ok ? '✓' : '✗'}</span> {p.label}: {p.outcome}
        </summary>
        <table class="inputs">
          <caption class="visually-hidden">Inputs of {p.label}</caption>
          <thead>
            <tr>
              <th scope="col">Input</th>
              <th scope="col">Value</th>
              <th scope="col">Check</th>
            </tr>
          </thead>
          <tbody>
            {p.inputs.map((input, i) => (
              <tr key={i}>
                <th scope="row">
                  {input.label}
                  {input.line === undefined ? '' : ` (line ${input.line})`}
                </th>
                <td>
                  <code title={input.value}>{input.value.length > 40 ? `${input.value.slice(0, 40)}…` : input.value}</code>
                </td>
                <td class={input.ok === false ? 'bad' : input.ok === true ? 'ok' : ''}>
                  {mark(input.ok)}
                  {input.says === undefined ? '' : `: ${input.says}`}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </li>
  );
}

/** The random outcomes of `lines` (recomputed as the log grows), each opening onto its inputs. */
export function ProvenancePanel({ lines }: { lines: readonly string[] }) {
  const outcomes = useMemo(() => {
    try {
      return explainOutcomes(lines);
    } catch {
      return [];
    }
  }, [lines.length, lines[0]]);
  if (outcomes.length === 0) return null;
  return (
    <section aria-labelledby="provenance-title" class="provenance">
      <h3 id="provenance-title">Where did each outcome come from?</h3>
      <p class="hint">Open an outcome to see its inputs, each checked again in this page.</p>
      <ol>
        {outcomes.map((p) => (
          <ProvenanceItem key={`${p.line}-${p.label}`} p={p} />
        ))}
      </ol>
    </section>
  );
}

/** A chart says something once there are, on average, at least as many outcomes as bars. */
export function worthCharting(d: Distribution): boolean {
  const total = d.categories.reduce((a, c) => a + c.observed, 0);
  return total >= d.categories.length;
}

/** Bars are named by their category where the names are short (faces, numbers), else numbered, with a key below. */
const SHORT = 3;

function Chart({ d }: { d: Distribution }) {
  const total = d.categories.reduce((a, c) => a + c.observed, 0);
  if (!worthCharting(d))
    return (
      <p class="hint chart-none">
        {d.label}: {total} so far. The chart is drawn once there are {d.categories.length}, as many as its bars: fewer say nothing about fair play.
      </p>
    );
  const numbered = d.categories.some((c) => c.name.length > SHORT);
  const max = Math.max(1, ...d.categories.map((c) => Math.max(c.observed, c.expected)));
  const width = 28;
  const height = 120;
  // At least 200 units wide, drawn at scale 1: a chart of two or three categories stays short, not blown up to fill the width.
  const w = Math.max(d.categories.length * width, 200);
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${w} ${height + 18}`}
        role="img"
        aria-label={`${d.label}: observed bars against expected marks`}
        width="100%"
        style={{ maxWidth: `${w}px` }}
      >
        {d.categories.map((c, i) => {
          const bar = (c.observed / max) * height;
          const exp = (c.expected / max) * height;
          return (
            <g key={c.name}>
              <rect x={i * width + 4} y={height - bar} width={width - 8} height={bar} fill="#0b5394">
                <title>
                  {c.name}: observed {c.observed}, expected {c.expected.toFixed(2)}
                </title>
              </rect>
              <line x1={i * width + 2} x2={(i + 1) * width - 2} y1={height - exp} y2={height - exp} stroke="#e6a100" stroke-width="3" />
              <text x={i * width + width / 2} y={height + 14} font-size="10" text-anchor="middle" fill="#1a1a1a">
                {numbered ? i + 1 : c.name}
              </text>
            </g>
          );
        })}
      </svg>
      {numbered ? (
        <ol class="chart-key" aria-label={`${d.label}: the bars`}>
          {d.categories.map((c) => (
            <li key={c.name}>
              {c.name}: {c.observed} drawn, {c.expected.toFixed(1)} expected
            </li>
          ))}
        </ol>
      ) : null}
      <figcaption>
        {d.label}: bars observed, orange marks expected. χ² = {d.chiSquare.toFixed(2)} with {d.degreesOfFreedom} degrees of freedom (fair play gives about{' '}
        {d.degreesOfFreedom} on average; only a value far above it, over many outcomes, hints at bias).
      </figcaption>
    </figure>
  );
}

/** The outcome chart of a game of chance; nothing for a game without counted outcomes. */
export function DistributionCharts({ lines }: { lines: readonly string[] }) {
  const charts = useMemo(() => {
    try {
      return outcomeDistributions(lines);
    } catch {
      return [];
    }
  }, [lines.length, lines[0]]);
  if (charts.length === 0) return null;
  return (
    <section aria-label="Outcomes against their expected distribution" class="charts">
      {charts.map((d) => (
        <Chart key={d.label} d={d} />
      ))}
    </section>
  );
}
