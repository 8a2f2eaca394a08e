/**
 * A page with only the game's table, for bench/web-monopoly.bench.ts: it replays a Monopoly transcript
 * (`globalThis.lines`) through an observer referee, as the game page does, and times a move: one more line fed
 * to the referee, then the table drawn again with its layout. `globalThis.prepare(k)` feeds the first k lines
 * and draws; `globalThis.move()` feeds the next line and draws again.
 */
import { render } from 'preact';
import { Referee } from '@fairtable/core/referee.js';
import { Table } from '../src/board.js';

const g = globalThis as unknown as {
  lines: string[];
  prepare: (k: number) => number;
  move: () => { feed: number; render: number };
  round: () => number;
};
let referee: Referee | null = null;
let fed = 0;

function draw(): number {
  const r = referee!;
  const setup = r.checker.setup;
  const t0 = performance.now();
  render(
    <Table view={{ protocol: setup.protocol, game: setup.game, players: setup.players.map((p) => p.id), state: r.state, events: [...r.events] }} />,
    document.getElementById('root')!,
  );
  void document.body.offsetHeight;
  return performance.now() - t0;
}

g.prepare = (k: number): number => {
  referee = new Referee(g.lines[0]!, null, undefined, { keepEvents: true });
  for (fed = 1; fed < k; fed++) referee.feedText(fed, g.lines[fed]!);
  return draw();
};

g.move = () => {
  const t0 = performance.now();
  referee!.feedText(fed, g.lines[fed]!);
  fed++;
  const feed = performance.now() - t0;
  return { feed, render: draw() };
};

g.round = (): number => (referee!.state as { game: { round: number } }).game.round;
