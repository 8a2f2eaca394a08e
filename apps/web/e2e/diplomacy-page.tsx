/**
 * A page with only the Diplomacy table, for bench/web-diplomacy.bench.ts: it measures the board's first render and
 * its render after a phase in Chromium, and takes the screenshots under docs/screenshots/. The game comes from
 * `globalThis.fixture` (bench/lib/diplomacy-fixture.ts); `globalThis.show(k)` draws it after k phases and returns
 * how long the render and layout took, in milliseconds.
 */
import './diplomacy-page-clock.js';
import { render } from 'preact';
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import type { TableView } from '../src/board.js';
import { Diplomacy } from '../src/diplomacy-board.js';

interface Fixture {
  readonly players: string[];
  readonly powers: Record<string, string>;
  readonly positions: unknown[];
  readonly events: unknown[];
}

const g = globalThis as unknown as { fixture: Fixture; show: (k: number) => number; loaded: number };
g.loaded = performance.now();

g.show = (k: number): number => {
  const f = g.fixture;
  const view: TableView = {
    protocol: 'diplomacy',
    game: null,
    players: f.players,
    state: { powers: f.powers, stage: 'play', phase: 'commit', round: k + 1, typos: 'ignore-unit-letter', position: f.positions[k] },
    events: [{ type: 'assignment', method: 'preference', contests: [], powers: f.powers }, ...f.events.slice(0, k)] as unknown as GameEvent[],
    pending: null,
  };
  const t0 = performance.now();
  render(<Diplomacy view={view} />, document.getElementById('root')!);
  document.body.getBoundingClientRect();
  void document.body.offsetHeight;
  return performance.now() - t0;
};
