/**
 * Diplomacy's table (docs/spec/web.md §4, "Diplomacy"): the map (diplomacy-svg.tsx) with the position and the last
 * adjudicated phase's orders as arrows, a legend of the powers' colours (who plays each, and the powers nobody
 * plays, whose units hold), the phase's results in words, earlier phases replayed from the transcript to step
 * through, the power assignment with its lotteries, and the seat's own orders, committed and not yet revealed, as
 * dotted black arrows. While the seat writes its orders, they can be entered by clicks on the map (diplomacy-clicks.tsx)
 * and are drawn as dashed black arrows.
 */
import type { GameEvent } from '@fairtable/core/protocols/machine.js';
import { phaseCodeName, phaseName } from '@fairtable/diplomacy/phase-names.js';
import type { Position } from '@fairtable/diplomacy/position.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';
import { useEffect, useMemo, useState } from 'preact/hooks';
import type { TableView } from './board.js';
import { replay, resultWords, type Adjudicated, type History } from './diplomacy-history.js';
import { DiplomacyMap } from './diplomacy-svg.js';
import { clickMenu, ClickOrders, useOrderClicks, writtenOrders } from './diplomacy-clicks.js';
import { POWER_COLOUR } from './palette.js';

type Assignment = {
  type: 'assignment';
  method: string;
  contests: { pass: number; power: string; chances: Record<string, number>; outcomes: number; number: number; winner: number }[];
  powers: Record<string, string>;
};

const title = (s: string): string => (s === '' ? s : `${s[0]!.toUpperCase()}${s.slice(1)}`);

const STEP_WORDS: Record<string, string> = {
  commit: 'orders being committed',
  claim: 'orders being claimed',
  reveal: 'orders being revealed',
  open: 'orders being opened',
  sign: 'the new position being signed',
};

function Legend({ powers, players, centres }: { powers: Record<string, string>; players: readonly string[]; centres: Record<string, number> }) {
  const playerOf = new Map(players.filter((p) => powers[p] !== undefined).map((p) => [powers[p]!, p]));
  const assigned = Object.keys(powers).length > 0;
  return (
    <ul class="diplomacy-legend" aria-label="Powers and their colours" data-testid="legend">
      {standardMap.powers.map((power) => {
        const player = playerOf.get(power);
        return (
          <li key={power} data-power={power}>
            <span class="swatch" style={{ background: POWER_COLOUR[power] }} aria-hidden="true" />
            <strong>{title(power)}</strong>
            {!assigned ? '' : player === undefined ? ' — not played: its units hold' : ` — ${player}`}
            {` (${centres[power] ?? 0} centres)`}
          </li>
        );
      })}
      <li>
        <span class="swatch centre-ring" aria-hidden="true" /> a supply centre nobody owns; a filled dot: its owner’s
      </li>
      <li>Arrows: moves (solid), supports (dashed), convoys (dotted); a red cross: the order failed.</li>
    </ul>
  );
}

export function Diplomacy({ view }: { view: TableView }) {
  const s = view.state as {
    powers?: Record<string, string>;
    stage?: string;
    phase?: string;
    round?: number;
    typos?: string;
    position?: Position;
  } | null;
  const events = view.events as readonly GameEvent[];
  const assignment = (events.filter((e) => e.type === 'assignment').pop() ?? null) as unknown as Assignment | null;
  // The observer's event list grows in place: its length says when it changed.
  const adjudicated = useMemo(() => events.filter((e) => e.type === 'adjudicated') as unknown as Adjudicated[], [events, events.length]);
  // The replay waits until the board is drawn: a long game's first phases take a while, and only stepping back
  // and the words for dislodged units need them.
  const [history, setHistory] = useState<History>({ steps: [], unreplayed: 0 });
  const strict = s?.typos === 'strict';
  useEffect(() => {
    const timer = setTimeout(() => setHistory(replay(adjudicated, strict)), 0);
    return () => clearTimeout(timer);
  }, [adjudicated, strict]);
  // Which phase the board shows: null for now (the position, with the last phase's orders), else a replayed phase.
  const [step, setStep] = useState<number | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const shown = step === null ? null : (history.steps[step] ?? null);
  const last = adjudicated.at(-1) ?? null;
  // Now, the board draws the orders of the phases since the last movement phase began: its moves, then any
  // retreats and builds that followed.
  const from = Math.max(
    0,
    adjudicated.findLastIndex((e) => e.phase.endsWith('M')),
  );
  const phases: { e: { phase: string; next?: string; results: Adjudicated['results'] }; after: Position | null }[] =
    shown !== null
      ? [{ e: shown, after: shown.after }]
      : adjudicated
          .slice(from)
          .map((e, i) => ({ e, after: history.steps[from + i]?.after ?? (from + i === adjudicated.length - 1 ? (s?.position ?? null) : null) }));

  const powers = s?.powers ?? {};
  const position = shown?.before ?? s?.position ?? null;
  const results = phases.flatMap((x) => x.e.results);
  // The seat's own orders while their round is still being committed, claimed or revealed; after that the results show them.
  const open = s?.stage === 'play' && (s.phase === 'commit' || s.phase === 'claim' || s.phase === 'reveal' || s.phase === 'open');
  const pending = step === null && open && view.pending != null && view.pending.round === s.round ? view.pending.orders : [];
  const centres: Record<string, number> = {};
  for (const o of position?.supplyCenterOwners ?? []) centres[o.power] = (centres[o.power] ?? 0) + 1;

  // Orders by clicks, while the seat writes its orders and the board shows the phase now.
  const draft = step === null ? (view.draft ?? null) : null;
  // Keyed by the choices' text: a refreshed decision with the same orders keeps the clicks made so far.
  const choicesKey = draft === null ? null : JSON.stringify(draft.choices);
  const menu = useMemo(() => clickMenu(draft?.choices), [choicesKey]);
  const clicking = useOrderClicks(menu, draft);
  const drafted = menu === null || draft === null ? [] : writtenOrders(menu, draft.value).map((w) => w.order);

  const now = s?.position?.phase === undefined ? '' : phaseName(s.position);
  const info = selected === null ? null : describe(selected, position);
  const count = history.steps.length;
  return (
    <section aria-label="Diplomacy table" class="board diplomacy">
      <p data-testid="diplomacy-phase">
        {s?.stage === 'assign'
          ? 'Assigning the powers: every player commits to a preference list.'
          : now === ''
            ? ''
            : `${now}: ${STEP_WORDS[s?.phase ?? ''] ?? s?.phase ?? ''}.`}
        {step === null && last !== null ? ` The arrows are the orders of ${phases.map((x) => phaseCodeName(x.e.phase)).join(' and ')}.` : ''}
        {pending.length === 0 ? '' : ' Dotted black: your orders, committed and not yet revealed.'}
      </p>
      {count === 0 ? null : (
        <nav class="diplomacy-history" aria-label="The game's phases">
          <button type="button" disabled={step === 0} onClick={() => setStep((k) => (k === null ? count - 1 : Math.max(0, k - 1)))}>
            ◀ Earlier
          </button>
          <span data-testid="shown-phase" aria-live="polite">
            {shown === null ? `Now: ${now}` : `${phaseCodeName(shown.phase)}: the position and its orders (${step! + 1} of ${count})`}
          </span>
          <button type="button" disabled={step === null} onClick={() => setStep((k) => (k === null || k + 1 >= count ? null : k + 1))}>
            Later ▶
          </button>
          {step === null ? null : (
            <button type="button" onClick={() => setStep(null)}>
              Now
            </button>
          )}
        </nav>
      )}
      {history.unreplayed === 0 ? null : (
        <p class="note">
          {history.unreplayed} phase{history.unreplayed === 1 ? '' : 's'} could not be replayed from the standard opening: the history stops before
          {history.unreplayed === 1 ? ' it' : ' them'}.
        </p>
      )}
      <DiplomacyMap
        position={position}
        results={results}
        pending={pending}
        label={`Diplomacy map, ${shown === null ? now : phaseCodeName(shown.phase)}`}
        selected={selected}
        onSelect={setSelected}
        {...(menu === null
          ? {}
          : {
              onPick: (id: string) => {
                setSelected(id);
                clicking.click(id);
              },
              drafted,
              marked: clicking.state?.step.clicks ?? [],
            })}
      />
      {menu === null || draft === null || clicking.state === null ? null : (
        <ClickOrders menu={menu} draft={draft} state={clicking.state} onChoose={clicking.choose} onCancel={clicking.cancel} />
      )}
      <p class="province-info" aria-live="polite" data-testid="province-info">
        {info ?? 'Tap or hover a province for its name; zoom with the buttons, a wheel or two fingers, and drag to move.'}
      </p>
      <Legend powers={powers} players={view.players} centres={centres} />
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
              <td>
                {powers[p] === undefined ? null : <span class="swatch" style={{ background: POWER_COLOUR[powers[p]] }} aria-hidden="true" />}
                {powers[p] ?? '—'}
              </td>
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
      {phases.length === 0 ? null : (
        <div data-testid="results">
          {phases.map(({ e, after }) => (
            <table key={e.phase} class="scores">
              <caption>
                Orders of {phaseCodeName(e.phase)} and their results{shown === null ? ` (next: ${phaseCodeName(e.next ?? '')})` : ''}
              </caption>
              <thead>
                <tr>
                  <th scope="col">Power</th>
                  <th scope="col">Order</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {e.results.map((r, i) => (
                  <tr key={i} class={r.status === 'succeeded' ? '' : 'failed'}>
                    <td>
                      <span class="swatch" style={{ background: POWER_COLOUR[r.power] }} aria-hidden="true" />
                      {r.power}
                    </td>
                    <td>{r.order}</td>
                    <td>{resultWords(r, after)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ))}
        </div>
      )}
    </section>
  );
}

/** A province's name, kind and what stands on it, for the line under the map. */
function describe(id: string, position: Position | null): string {
  const p = standardMap.provinces.get(id);
  if (p === undefined) return id;
  const kind = p.kind === 'sea' ? 'sea' : p.kind === 'impassable' ? 'impassable' : p.kind === 'inland' ? 'inland' : 'coast';
  const unit = position?.units.find((u) => u.at.split('/')[0] === id);
  const owner = position?.supplyCenterOwners.find((o) => o.at === id)?.power;
  const parts = [`${p.name} (${id}), ${kind}`];
  if (p.supplyCenter) parts.push(owner === undefined ? 'a supply centre nobody owns' : `a supply centre of ${title(owner)}`);
  if (unit !== undefined) parts.push(`${unit.type === 'army' ? 'an army' : 'a fleet'} of ${title(unit.power)}${unit.at.includes('/') ? ` on ${unit.at}` : ''}`);
  return `${parts.join('; ')}.`;
}
