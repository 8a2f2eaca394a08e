/**
 * The game page (docs/spec/web.md §4): plays this browser's seat through the relay, resumed from the stored copy
 * after a reload, draws the table from an observer's replay of the log, asks the player's decisions, and audits
 * the game on demand. A page with no seat in the game only watches and audits.
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { RelayGame } from '@fairtable/client';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import type { Violation } from '@fairtable/core/errors.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import type { TalkRoster } from '@fairtable/core/press/index.js';
import type { Awaiting, Decision, Outcome } from '@fairtable/core/protocols/machine.js';
import { Referee } from '@fairtable/core/referee.js';
import type { Registry } from '@fairtable/core/registry.js';
import type { GameSetup } from '@fairtable/core/setup.js';
import type { OutgoingHook } from '@fairtable/core/seat/seat.js';
import { relayKeyOf, UNKNOWN_GAME } from '@fairtable/client';
import { ApiError, NO_SUCH_GAME, readGameInfo, readReceipts, readTranscript } from './api.js';
import type { AuditRun, RelayEvidence } from './audit.js';
import { LiveFindings, Progress } from './findings.js';
import { LazyAuditRunView, LazyProvenancePanel } from './lazy.js';
import { Table, type TableView } from './board.js';
import type { ChatProps } from './chat.js';
import type { HoldemTableProps } from './holdem-table.js';
import type { HandoverPanelProps, NewcomerJoinProps } from './newcomer-panel.js';
import { Countdown } from './countdown.js';
import { DecisionForm, initial } from './decision.js';
import { MoreTime } from './extension.js';
import { MonopolyDecision } from './monopoly.js';
import { HOUSE, keyFor, newRecord, registryFor, startSeat } from './session.js';
import { allKeys, getGame, type GameRecord } from './store.js';
import { outcomeHeadline, setupLabel } from './labels.js';
import { endingWhy } from './ending.js';
import { NowBar } from './now-bar.js';
import { useTurnAlert } from './turn-alert.js';

/** The observer's replay of a log, fed line by line as the seat receives them. */
class Observer {
  private referee: Referee | null = null;
  private fed = 0;
  /** Set before the first line for a protocol from outside the core (registryFor). */
  registry: Registry | undefined;
  constructor(private readonly timeOf: (line: number) => number | undefined) {}
  feed(lines: readonly string[]): void {
    if (lines.length === 0) return;
    if (this.referee === null) {
      this.referee = new Referee(lines[0]!, null, undefined, {
        keepEvents: true,
        timeOf: this.timeOf,
        ...(this.registry === undefined ? {} : { registry: this.registry }),
      });
      this.fed = 1;
    }
    for (; this.fed < lines.length; this.fed++) this.referee.feedText(this.fed, lines[this.fed]!);
  }
  view(): TableView | null {
    const r = this.referee;
    if (r === null) return null;
    const setup = r.checker.setup;
    return { protocol: setup.protocol, game: setup.game, players: setup.players.map((p) => p.id), state: r.state, events: r.events };
  }
  /**
   * Who talks now (docs/spec/press.md §10): the authors the log's `newcomer` lines introduced, and the players a
   * Diplomacy hand-over replaced (its state's `replaced` and `seatedAt`), each from its hand-over line's time.
   */
  talkRoster(lines: readonly string[]): TalkRoster {
    const r = this.referee;
    if (r === null) return { newcomers: [], departed: [] };
    const setup = new Set(r.checker.setup.players.map((p) => p.id));
    const newcomers = [...r.checker.keys].filter(([id]) => !setup.has(id)).map(([id, key]) => ({ id, key: toHex(key) }));
    const s = r.state as { replaced?: Record<string, { power: string; by: string }>; seatedAt?: Record<string, number> } | null;
    const departed: TalkRoster['departed'][number][] = [];
    for (const [id, { power, by }] of Object.entries(s?.replaced ?? {})) {
      const line = s?.seatedAt?.[power];
      const text = line === undefined ? undefined : lines[line];
      if (line === undefined || text === undefined) continue;
      departed.push({ id, by, line, at: (JSON.parse(text) as { time: number }).time });
    }
    return { newcomers, departed };
  }
  /** The time to act the setup gives a decision (`decisionMs`, else `timeoutMs`), or null before the setup line. */
  timeoutMs(): number | null {
    const params = this.referee?.checker.setup.params;
    const t = params?.decisionMs ?? params?.timeoutMs;
    return typeof t === 'number' ? t : null;
  }
  /** The setup, or null before its line. */
  setup(): GameSetup | null {
    return this.referee?.checker.setup ?? null;
  }
  /** Whom the game waits for now and until when (the machine's `awaiting`), or null. */
  awaiting(): Awaiting | null {
    const r = this.referee;
    return r === null ? null : (r.machine.awaiting?.(r.state) ?? null);
  }
  /** The game's name as the lobby offered it, or null before the setup line. */
  label(): string | null {
    const setup = this.referee?.checker.setup;
    return setup === undefined ? null : setupLabel(setup.protocol, setup.game, setup.params);
  }
}

/**
 * The e2e tests' hook: a page whose script set `globalThis.__fairtableCheat = 'wrong-opening'` before the app loaded
 * makes its own seat send one wrong opening, for the others and the audit to catch. The simulator's cheats are
 * loaded only then, in a chunk of their own.
 */
async function cheatFor(me: string): Promise<OutgoingHook | undefined> {
  if ((globalThis as { __fairtableCheat?: unknown }).__fairtableCheat !== 'wrong-opening') return undefined;
  const { cheatHook } = await import('@fairtable/core/testing');
  const { keys } = await keyFor(me);
  return cheatHook('wrong-opening', { keys, random: randomBytes });
}

/** A client error in the player's words: a game the relay does not hold is no network trouble (relay.md §3). */
const wordsFor = (e: Error): string => ((e as { code?: unknown }).code === UNKNOWN_GAME ? 'No such game on this relay' : e.message);

function download(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/jsonl' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Hold'em's table and bet bar (holdem-table.tsx), loaded with the first Hold'em game shown, beside its deck. */
function LazyHoldem(props: HoldemTableProps) {
  const [Holdem, setHoldem] = useState<FunctionComponent<HoldemTableProps> | null>(null);
  useEffect(() => {
    void import('./holdem-table.js').then((m) => setHoldem(() => m.HoldemTable));
  }, []);
  return Holdem === null ? <p>Loading the table…</p> : <Holdem {...props} />;
}

/** The talk panel (chat.tsx), loaded with the first game page that shows it rather than with the app's first load. */
function LazyChat(props: ChatProps) {
  const [Chat, setChat] = useState<FunctionComponent<ChatProps> | null>(null);
  useEffect(() => {
    void import('./chat.js').then((m) => setChat(() => m.Chat));
  }, []);
  return Chat === null ? null : <Chat {...props} />;
}

/** Diplomacy's newcomer panels (newcomer-panel.tsx, docs/spec/diplomacy.md §10.15), loaded with a Diplomacy game only. */
function lazyNewcomer<P extends object>(pick: (m: typeof import('./newcomer-panel.js')) => FunctionComponent<P>) {
  return function LazyNewcomer(props: P) {
    const [C, setC] = useState<FunctionComponent<P> | null>(null);
    useEffect(() => {
      void import('./newcomer-panel.js').then((m) => setC(() => pick(m)));
    }, []);
    return C === null ? null : <C {...props} />;
  };
}
const LazyHandover = lazyNewcomer<HandoverPanelProps>((m) => m.HandoverPanel);
const LazyNewcomerJoin = lazyNewcomer<NewcomerJoinProps>((m) => m.NewcomerJoin);

export function GamePage({ gameId }: { gameId: string }) {
  const [record, setRecord] = useState<GameRecord | null | undefined>(undefined);
  const [, setTick] = useState(0);
  const [decision, setDecision] = useState<Decision | null>(null);
  const [status, setStatus] = useState('loading');
  const [outcome, setOutcome] = useState<Outcome | null>(null);
  const [violations, setViolations] = useState<Violation[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  const [audit, setAudit] = useState<AuditRun | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [watched, setWatched] = useState<string[]>([]);
  /** Seats of this game whose key this browser holds (imported from the CLI, say), when it plays none yet. */
  const [claimable, setClaimable] = useState<string[]>([]);
  const [attempt, setAttempt] = useState(0);
  /** The relay holds no such game: the page says so and nothing else. */
  const [unknown, setUnknown] = useState(false);
  const game = useRef<RelayGame | null>(null);
  const observer = useRef(new Observer((line) => game.current?.receipts[line]?.time));
  /** The orders this page committed and the round they are for: drawn on the board until they are revealed. */
  const pending = useRef<{ round: number; orders: string[] } | null>(null);
  /** The answer being written for the decision it was begun for: the form and Diplomacy's board both edit it. */
  const [draft, setDraft] = useState<{ key: string; value: JsonValue } | null>(null);

  useEffect(() => {
    let stopped = false;
    let stopWatching = (): void => undefined;
    void (async () => {
      const r = await getGame(gameId);
      if (stopped) return;
      setRecord(r ?? null);
      if (r === undefined) {
        // Not a seat of ours yet: watch the log as the relay serves it, and offer the seats whose keys we hold.
        try {
          const [info, keys] = await Promise.all([readGameInfo(gameId), allKeys()]);
          observer.current.registry = await registryFor(info.protocol);
          setClaimable(
            info.players
              // The house of a game made elsewhere holds its wheel's secret there: this page cannot prove its spins.
              .filter((p) => !(info.protocol === 'signidice' && p.id === HOUSE))
              .filter((p) => keys.some((k) => k.name === p.id && k.publicKey === p.key))
              .map((p) => p.id),
          );
        } catch (e) {
          if (e instanceof ApiError && e.code === 'unknown_game') return setUnknown(true);
          setProblem((e as Error).message);
        }
        const watch = async () => {
          try {
            const lines = (await readTranscript(gameId)).split('\n').filter((l) => l.trim() !== '');
            if (stopped) return;
            observer.current.feed(lines);
            setWatched(lines);
            setStatus('watching');
          } catch (e) {
            setProblem((e as Error).message);
          }
        };
        await watch();
        const timer = setInterval(() => void watch(), 2000);
        stopWatching = () => clearInterval(timer);
        return;
      }
      observer.current.registry = await registryFor(r.protocol);
      const g = await startSeat(r, await cheatFor(r.me));
      if (stopped) return g.close();
      game.current = g;
      const refresh = () => {
        observer.current.feed(g.lines);
        setDecision(g.decision());
        setOutcome(g.outcome());
        setViolations([...g.violations]);
        setTick((t) => t + 1);
      };
      g.on('line', refresh);
      g.on('decision', refresh);
      g.on('violation', refresh);
      g.on('outcome', refresh);
      g.on('event', (e) => {
        if (e.type === 'extension-proposed' || e.type === 'extended') refresh();
      });
      g.on('status', (s) => {
        setStatus(s.status);
        refresh();
      });
      g.on('refused', (x) => setProblem(`the relay refused a line of ours: [${x.code}] ${x.message}`));
      g.on('unacknowledged', (u) =>
        setProblem(
          `The relay has not acknowledged your move for ${Math.round(u.waitedMs / 1000)} s. ${u.witnessed > 0 ? 'A witness relay holds it as evidence.' : 'No witness holds it.'}`,
        ),
      );
      g.finished.catch((e: Error) => {
        if ((e as { code?: unknown }).code === UNKNOWN_GAME) setUnknown(true);
        setProblem(wordsFor(e));
      });
      refresh();
    })();
    return () => {
      stopped = true;
      stopWatching();
      game.current?.close();
    };
  }, [gameId, attempt]);

  // `newcomer`: a Diplomacy newcomer a player proposed (docs/spec/diplomacy.md §10.15), not a player of the setup.
  const claim = async (seat: string, newcomer = false) => {
    try {
      const relay = await relayKeyOf(location.origin, gameId, globalThis.WebSocket);
      const info = await readGameInfo(gameId);
      await newRecord(gameId, seat, info.protocol, relay, null, null, newcomer);
      setClaimable([]);
      observer.current = new Observer((line) => game.current?.receipts[line]?.time);
      setAttempt((a) => a + 1);
    } catch (e) {
      setProblem(wordsFor(e as Error));
    }
  };

  const g = game.current;
  const lines = g?.lines ?? watched;
  // A line can land in the seat's copy just after the event that announced it was handled: the table is drawn
  // from every line the page holds now (the observer takes only the lines it has not seen).
  if (g !== null) observer.current.feed(g.lines);
  const view = observer.current.view();
  const setup = observer.current.setup();
  const decide = (choice: JsonValue): string | null => {
    try {
      g?.decide(choice);
      if (decision?.kind === 'orders' && choice !== null && typeof choice === 'object' && !Array.isArray(choice))
        pending.current = {
          round: Number((view?.state as { round?: unknown } | null)?.round),
          orders: Object.values(choice).filter((o) => typeof o === 'string'),
        };
      setDecision(g?.decision() ?? null);
      return null;
    } catch (e) {
      return (e as Error).message;
    }
  };
  // The one-click audit re-checks the whole game from its transcript, as a third party would, with the relay's
  // receipts (the relay's key: the one this seat was given at the start, or for a watcher the one the relay shows).
  const runIt = async () => {
    setAudit(null);
    setProgress(0);
    const copy = [...lines];
    const evidence = await (async (): Promise<RelayEvidence | string> => {
      try {
        const [key, receipts] = await Promise.all([record?.relayKey ?? relayKeyOf(location.origin, gameId, globalThis.WebSocket), readReceipts(gameId)]);
        return { key, receipts, records: [...(g?.evidence ?? [])] };
      } catch (e) {
        return `the relay's receipts could not be fetched (${(e as Error).message})`;
      }
    })();
    const { runAudit } = await import('./audit.js');
    const run = await runAudit(copy.join('\n'), setProgress, evidence);
    setProgress(null);
    setAudit(run);
  };

  const myTurn = decision !== null && outcome === null;
  const decisionKey = decision === null ? null : JSON.stringify(decision);
  const answer: JsonValue = decision === null ? null : draft !== null && draft.key === decisionKey ? draft.value : initial(decision.choices);
  const setAnswer = (value: JsonValue): void => {
    if (decisionKey !== null) setDraft({ key: decisionKey, value });
  };
  const alert = useTurnAlert(myTurn, myTurn ? JSON.stringify([decision.kind, decision.deadline]) : null);
  const clock = () => Date.now() + (game.current?.clockOffset ?? 0);
  // Whom the game waits for, until the deadline in force: an agreed extension's (SPEC §7.4.1), else on this
  // player's turn its decision's, else the phase's as the machine gives it.
  const waitingOn = observer.current.awaiting();
  const agreed = g?.extension().agreed?.until;
  const awaiting = waitingOn === null ? null : { players: waitingOn.players, deadline: agreed ?? (myTurn ? decision.deadline : waitingOn.deadline) };
  if (record === undefined) return <p>Loading…</p>;
  if (unknown)
    return (
      <main>
        <h2>{NO_SUCH_GAME}</h2>
        <p role="alert" class="error" data-testid="unknown-game">
          {NO_SUCH_GAME}: the relay that served this page holds no game {gameId.slice(0, 12)}…. Check the link, or ask for it again.
        </p>
        <p>
          <a href="#/">Back to the start</a>
        </p>
      </main>
    );
  return (
    <main class="game-page">
      <NowBar
        me={record?.me ?? null}
        decision={myTurn ? decision : null}
        awaiting={awaiting}
        outcome={outcome}
        ending={
          outcome === null
            ? null
            : {
                headline: outcomeHeadline(outcome.winners, view?.protocol ?? null),
                why: endingWhy(view?.protocol ?? '', view?.game ?? null, outcome, view?.state),
              }
        }
        clock={clock}
        alert={record === null ? null : alert}
      />
      <h2>
        {observer.current.label() ?? 'Game'} <small>game {gameId.slice(0, 12)}…</small>
      </h2>
      <p class="status" role="status" aria-live="polite" data-testid="status">
        {record === null ? 'You have no seat in this game: watching.' : `You play ${record.me}. Connection: ${status}.`} {lines.length} lines.
      </p>
      {record === null && claimable.length > 0 ? (
        <p>
          {claimable.map((seat) => (
            <button key={seat} type="button" class="primary" onClick={() => void claim(seat)}>
              Play as {seat}
            </button>
          ))}
        </p>
      ) : null}
      {record === null && view?.protocol === 'diplomacy' && view.state?.phase !== 'done' ? (
        <LazyNewcomerJoin gameId={gameId} onJoin={(id) => void claim(id, true)} keyFor={keyFor} readTranscript={readTranscript} />
      ) : null}
      {problem === null ? null : (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {g !== null && view?.protocol === 'diplomacy' && outcome === null ? <LazyHandover game={g} lines={lines.length} /> : null}
      {decision !== null && outcome === null ? (
        <Countdown
          key={g?.extension().agreed?.until ?? decision.deadline}
          // An agreed extension moves the deadline of the phase now running (docs/SPEC.md §7.4.1).
          deadline={g?.extension().agreed?.until ?? decision.deadline}
          timeoutMs={observer.current.timeoutMs()}
          // The seat's clock: the page's, moved to the relay's as the seat estimated it from receipts.
          clock={clock}
        />
      ) : null}
      {decision !== null && outcome === null && view?.protocol !== 'holdem' ? (
        // The decision sits directly above the board, right under the bar that points to it.
        <div id="decision" class="decision-slot">
          {view?.game === 'monopoly' && decision.view !== undefined && record !== null ? (
            <MonopolyDecision key={JSON.stringify([lines.length, decision])} decision={decision} me={record.me} onDecide={decide} />
          ) : (
            <DecisionForm key={JSON.stringify([lines.length, decision])} decision={decision} onDecide={decide} value={answer} onChange={setAnswer} />
          )}
        </div>
      ) : null}
      {view === null ? null : view.protocol === 'holdem' ? (
        <LazyHoldem
          view={view}
          me={record?.me ?? null}
          // The seat's own hole cards, opened on this page with its key share: never in the log, never the observer's.
          mine={((g?.seat?.referee.state as { mine?: number[] | null } | undefined)?.mine ?? null) as number[] | null}
          decision={myTurn ? decision : null}
          onDecide={decide}
        />
      ) : (
        <Table
          view={{
            ...view,
            pending: pending.current,
            draft: myTurn && decision.kind === 'orders' ? { choices: decision.choices, value: answer, set: setAnswer } : null,
          }}
        />
      )}
      {setup === null ? null : (
        <LazyChat
          gameId={gameId}
          players={setup.players}
          params={setup.params}
          me={record?.me ?? null}
          game={g}
          roster={() => observer.current.talkRoster(lines)}
        />
      )}
      {g !== null && record !== null && outcome === null ? <MoreTime game={g} me={record.me} timeoutMs={observer.current.timeoutMs()} /> : null}
      <LiveFindings violations={violations} />
      <div class="actions">
        <button type="button" class="primary" onClick={() => void runIt()} disabled={lines.length === 0 || progress !== null}>
          Audit
        </button>
        <button type="button" onClick={() => download(`fairtable-${gameId.slice(0, 12)}.jsonl`, lines.join('\n') + '\n')} disabled={lines.length === 0}>
          Download the transcript
        </button>
      </div>
      <Progress fraction={progress} />
      {audit === null ? null : <LazyAuditRunView run={audit} />}
      <LazyProvenancePanel lines={lines} />
    </main>
  );
}
