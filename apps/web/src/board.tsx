/**
 * The table of each game (docs/spec/web.md §4), drawn from an observer's view of the log: the observer referee's
 * state and events, the same the auditor computes, so what the page shows is what the transcript says.
 */
import type { Choices, GameEvent } from '@fairtable/core/protocols/machine.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { LADDERS, SNAKES } from '@fairtable/core/games/snakes.js';
import { fromHex } from '@fairtable/core/bytes.js';
import { judge, type Verdict as JudgeVerdict } from '@fairtable/core/rochambeau/judge.js';
import { handName, handNames } from '@fairtable/core/rochambeau/hand-names.js';
import { useEffect, useState } from 'preact/hooks';
import type { FunctionComponent } from 'preact';
import { MonopolyBoard } from './monopoly.js';
import { History } from './history.js';

export interface TableView {
  readonly protocol: string;
  readonly game: string | null;
  readonly players: readonly string[];
  // Each machine's own state shape, read defensively: the board shows what is there.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly state: any;
  readonly events: readonly GameEvent[];
  /** The seat's own answer committed in `round` and not yet revealed (Diplomacy's orders), for the board to draw as pending. */
  readonly pending?: { readonly round: number; readonly orders: readonly string[] } | null;
  /** The answer the seat is writing to its decision, which a board may fill too (Diplomacy's orders by clicks). */
  readonly draft?: { readonly choices: Choices; readonly value: JsonValue; readonly set: (value: JsonValue) => void } | null;
}

const FACES = ['⚀', '⚁', '⚂', '⚃', '⚄', '⚅'];
const face = (n: number): string => FACES[n - 1] ?? String(n);

type Turn = { turn: number; player: string; summary: Record<string, unknown> };
const turns = (events: readonly GameEvent[]): Turn[] => events.filter((e) => e.type === 'turn') as unknown as Turn[];

function Dice({ view }: { view: TableView }) {
  const scores = (view.state?.game?.scores ?? {}) as Record<string, number>;
  const list = turns(view.events);
  return (
    <section aria-label="Dice table" class="board">
      {typeof view.state?.game?.roll === 'string' ? <p>Each turn rolls {String(view.state.game.roll)}.</p> : null}
      <table class="scores">
        <caption>Scores</caption>
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">Score</th>
          </tr>
        </thead>
        <tbody>
          {view.players.map((p) => (
            <tr key={p}>
              <th scope="row">{p}</th>
              <td>{scores[p] ?? 0}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <History
        label="Rolls"
        title="Every roll"
        count={list.length}
        item={(i) => {
          const t = list[i]!;
          const roll = (t.summary.roll ?? []) as number[];
          // A dice expression's turn in its own words: "3d6+2: 4+1+6+2 = 13" (docs/spec/dice.md §5).
          if (typeof t.summary.text === 'string')
            return (
              <>
                <strong>{t.player}</strong> <span class="dice-text">{t.summary.text}</span>
              </>
            );
          return (
            <>
              <strong>{t.player}</strong> rolled{' '}
              <span class="dice" aria-label={roll.join(' and ')}>
                {roll.map(face).join(' ')}
              </span>{' '}
              = {String(t.summary.sum)}
            </>
          );
        }}
      />
    </section>
  );
}

const COLORS = ['#1b5e20', '#0d47a1', '#b71c1c', '#4a148c', '#e65100', '#006064'];

function Snakes({ view }: { view: TableView }) {
  const positions = (view.state?.game?.positions ?? {}) as Record<string, number>;
  const rows: number[][] = [];
  for (let r = 9; r >= 0; r--) {
    const row = Array.from({ length: 10 }, (_, i) => r * 10 + i + 1);
    rows.push(r % 2 === 1 ? row.reverse() : row);
  }
  const last = turns(view.events).at(-1);
  return (
    <section aria-label="Snakes and Ladders board" class="board">
      <div class="snakes" role="grid" aria-label="Squares 1 to 100">
        {rows.map((row, i) => (
          <div role="row" class="snakes-row" key={i}>
            {row.map((sq) => {
              const here = view.players.filter((p) => positions[p] === sq);
              const ladder = LADDERS[sq];
              const snake = SNAKES[sq];
              return (
                <div
                  role="gridcell"
                  key={sq}
                  class={`sq${ladder ? ' ladder' : ''}${snake ? ' snake' : ''}`}
                  aria-label={`square ${sq}${ladder ? `, ladder to ${ladder}` : ''}${snake ? `, snake to ${snake}` : ''}${here.length ? `: ${here.join(', ')}` : ''}`}
                >
                  <span class="n">{sq}</span>
                  {ladder ? <span class="mark">↑{ladder}</span> : null}
                  {snake ? <span class="mark">↓{snake}</span> : null}
                  {here.map((p) => (
                    <span key={p} class="token" style={{ background: COLORS[view.players.indexOf(p) % COLORS.length] }} title={p}>
                      {p.slice(0, 1).toUpperCase()}
                    </span>
                  ))}
                </div>
              );
            })}
          </div>
        ))}
      </div>
      <ul class="legend">
        {view.players.map((p, i) => (
          <li key={p}>
            <span class="token" style={{ background: COLORS[i % COLORS.length] }} aria-hidden="true">
              {p.slice(0, 1).toUpperCase()}
            </span>{' '}
            {p}: square {positions[p] ?? 0}
          </li>
        ))}
      </ul>
      {last ? (
        <p>
          Last: {last.player} rolled {String(last.summary.roll)}, {String(last.summary.from)} → {String(last.summary.to)}
          {last.summary.via === null ? '' : ` (via ${String(last.summary.via)})`}
        </p>
      ) : null}
    </section>
  );
}

/**
 * The draft's rounds for an attempt whose reveals are all in, judged here as the machine judges them (the same
 * `judge`, the same order of arrival), so the page can show each round's assigned states and scores.
 */
function rounds(s: {
  N?: string;
  hash?: string;
  gameId?: string;
  arrival?: string[];
  commits?: Record<string, { payload: string }>;
  reveals?: Record<string, { payload: string }>;
}): { ids: string[]; verdict: JudgeVerdict } | null {
  const ids = s.arrival ?? [];
  if (ids.length === 0 || s.N === undefined || ids.some((id) => s.reveals?.[id] === undefined || s.commits?.[id] === undefined)) return null;
  try {
    const verdict = judge({
      N: s.N,
      ...(s.hash === undefined ? {} : { hash: s.hash as never }),
      ...(s.gameId === undefined ? {} : { gameId: s.gameId }),
      players: ids.map((id) => ({ id, commit: fromHex(s.commits![id]!.payload), reveal: fromHex(s.reveals![id]!.payload) })),
    });
    return { ids, verdict };
  } catch {
    return null;
  }
}

/** The state a player chose, back from its assigned state: (state − tweak) mod N. */
function chosen(state: number | bigint, tweak: number | bigint, N: string): string {
  const n = BigInt(N);
  return String((((BigInt(state) - BigInt(tweak)) % n) + n) % n);
}

/** One of Rochambeau's events in words (docs/spec/rochambeau.md). */
export function rochambeauEventText(e: GameEvent): string {
  const who = String(e.player);
  if (e.type === 'forfeit') return `${who} left the game: ${e.code === 'withheld' ? 'out of time' : `broke a rule (${String(e.code)})`}`;
  if (e.type === 'no-winner') return `attempt ${String(e.attempt)} had no winner: everyone still in chooses again`;
  if (e.type === 'escrow-opened')
    return `${who} did not reveal in attempt ${String(e.attempt)}: the other players opened ${who}'s choice from the escrow shares`;
  const rest = Object.entries(e)
    .filter(([k]) => k !== 'type')
    .map(([k, v]) => `${k} ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ');
  return `${e.type.replace(/-/g, ' ')}${rest === '' ? '' : `: ${rest}`}`;
}

function Rochambeau({ view }: { view: TableView }) {
  const s = view.state ?? {};
  const commits = Object.keys(s.commits ?? {});
  const reveals = Object.keys(s.reveals ?? {});
  const over = view.events.find((e) => e.type === 'game-over');
  const judged = rounds(s);
  const notes = view.events.filter((e) => e.type !== 'game-over');
  return (
    <section aria-label="Rochambeau table" class="board">
      <p>
        {String(s.N ?? '?')} states; attempt {String(s.attempt ?? 1)}; phase: {String(s.phase ?? '…')}
      </p>
      <table class="scores">
        <caption>This attempt</caption>
        <thead>
          <tr>
            <th scope="col">Player</th>
            <th scope="col">Committed</th>
            <th scope="col">Revealed</th>
          </tr>
        </thead>
        <tbody>
          {view.players.map((p) => (
            <tr key={p}>
              <th scope="row">{p}</th>
              <td>{commits.includes(p) ? 'yes' : '—'}</td>
              <td>{reveals.includes(p) ? 'yes' : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <History label="Events" title="Every event" count={notes.length} item={(i) => rochambeauEventText(notes[i]!)} />
      {judged === null
        ? null
        : judged.verdict.rounds.map((r) => (
            <table class="scores" key={r.round}>
              <caption>Round {r.round}: assigned states and scores</caption>
              <thead>
                <tr>
                  <th scope="col">Player</th>
                  <th scope="col">Picked</th>
                  <th scope="col">Tweak</th>
                  <th scope="col">State</th>
                  <th scope="col">Score</th>
                </tr>
              </thead>
              <tbody>
                {Array.from(r.players, (at, i) => (
                  <tr key={at}>
                    <th scope="row">{judged.ids[at]}</th>
                    <td>{chosen(r.states[i]!, r.tweaks[i]!, s.N!)}</td>
                    <td>{String(r.tweaks[i])}</td>
                    <td>{handName(r.states[i]!, s.N!)}</td>
                    <td>{String(r.scores[i])}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
      {judged === null ? null : (
        <p class="hint">
          The state played is the pick plus a tweak, modulo {String(s.N)}: the tweak comes from the other players' commitments, so the hand is a fair draw
          nobody can aim.
          {handNames(s.N ?? '') === null
            ? ''
            : ` The hands by state: ${handNames(s.N!)!
                .map((n, i) => `${i} ${n}`)
                .join(', ')}.`}
        </p>
      )}
      {over ? <p>Decided after {String(over.rounds ?? 1)} round(s).</p> : null}
    </section>
  );
}

const RED = new Set([1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);

function Signidice({ view }: { view: TableView }) {
  const spins = view.events.filter((e) => e.type === 'spin') as unknown as {
    round: number;
    player: string;
    lucky: number;
    bet: { amount: number; kind: string; pick: number | null };
    won: number;
  }[];
  const balances = (view.state?.balances ?? {}) as Record<string, number>;
  const last = spins.at(-1);
  return (
    <section aria-label="Roulette table" class="board">
      {last ? (
        <div class={`wheel ${last.lucky === 0 ? 'green' : RED.has(last.lucky) ? 'red' : 'black'}`} role="img" aria-label={`the wheel shows ${last.lucky}`}>
          {last.lucky}
        </div>
      ) : (
        <div class="wheel green" role="img" aria-label="the wheel has not turned yet">
          ?
        </div>
      )}
      <table class="scores">
        <caption>Balances</caption>
        <tbody>
          {Object.entries(balances).map(([p, b]) => (
            <tr key={p}>
              <th scope="row">{p}</th>
              <td>{b}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <History
        label="Spins"
        title="Every spin"
        count={spins.length}
        item={(i) => {
          const s = spins[i]!;
          return (
            <>
              Round {s.round}: {s.player} bet {s.bet.amount} on {s.bet.kind}
              {s.bet.pick === null ? '' : ` ${s.bet.pick}`}, the wheel gave{' '}
              <span class={`lucky ${s.lucky === 0 ? 'green' : RED.has(s.lucky) ? 'red' : 'black'}`}>{s.lucky}</span>:{' '}
              {s.won >= 0 ? `${s.player} won ${s.won}` : `${s.player} lost ${-s.won}`}
            </>
          );
        }}
      />
    </section>
  );
}

/** Diplomacy's board, loaded with its map the first time one is shown (a chunk of its own, out of the first load). */
function LazyDiplomacy({ view }: { view: TableView }) {
  const [Board, setBoard] = useState<FunctionComponent<{ view: TableView }> | null>(null);
  useEffect(() => {
    void import('./diplomacy-board.js').then((m) => setBoard(() => m.Diplomacy));
  }, []);
  return Board === null ? <p>Loading the board…</p> : <Board view={view} />;
}

export function Table({ view }: { view: TableView }) {
  if (view.protocol === 'diplomacy') return <LazyDiplomacy view={view} />;
  if (view.protocol === 'rochambeau') return <Rochambeau view={view} />;
  if (view.protocol === 'signidice') return <Signidice view={view} />;
  if (view.game === 'snakes') return <Snakes view={view} />;
  if (view.game === 'monopoly') return <MonopolyBoard state={view.state?.game} players={view.players} events={view.events} />;
  return <Dice view={view} />;
}
