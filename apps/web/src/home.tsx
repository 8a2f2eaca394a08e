/**
 * The first page (docs/spec/web.md §1, §3): start a game, the games this browser plays (opponents, whose turn or the
 * result, time left, a rematch), the keys it holds (export to and import from the CLI's key file), and the drop zone
 * that audits any transcript.
 */
import { useEffect, useState } from 'preact/hooks';
import { fromKeyFile, toKeyFile, type KeyFile } from '@fairtable/core/identity.js';
import { LazyDropAudit } from './lazy.js';
import { allGames, allKeys, openedLobbies, putKey, type GameRecord } from './store.js';
import { readReceipts, readTranscript } from './api.js';
import { offerLabel } from './labels.js';
import { go, openNewLobby } from './lobby.js';
import { registryFor } from './session.js';
import { summarize, timeLeftWords, type GameSummary } from './your-games.js';

function saveFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

function Keys() {
  const [keys, setKeys] = useState<KeyFile[]>([]);
  const [message, setMessage] = useState<string | null>(null);
  const load = () => void allKeys().then(setKeys);
  useEffect(load, []);
  const importFile = async (file: File | undefined) => {
    if (file === undefined) return;
    try {
      // fromKeyFile checks that the public key belongs to the secret key before anything is kept.
      const { name, keys: pair } = fromKeyFile(JSON.parse(await file.text()) as unknown);
      await putKey(toKeyFile(name, pair));
      setMessage(`Imported the key of ${name}.`);
      load();
    } catch (e) {
      setMessage(`Not imported: ${(e as Error).message}`);
    }
  };
  return (
    <section aria-labelledby="keys-title">
      <h2 id="keys-title">Your keys</h2>
      <p class="hint">Kept in this browser only. The export is the same file as `fairtable keygen` writes; keep it secret.</p>
      {keys.length === 0 ? <p>No keys yet: one is made when you create or join a game.</p> : null}
      <ul class="keys">
        {keys.map((k) => (
          <li key={k.name}>
            <strong>{k.name}</strong> <code>{k.publicKey.slice(0, 16)}…</code>{' '}
            <button type="button" onClick={() => saveFile(`${k.name}.key.json`, JSON.stringify(k, null, 2) + '\n')}>
              Export {k.name}'s key file
            </button>
          </li>
        ))}
      </ul>
      <label class="field">
        Import a key file
        <input type="file" accept=".json,application/json" onChange={(e) => void importFile((e.target as HTMLInputElement).files?.[0])} />
      </label>
      {message === null ? null : <p role="status">{message}</p>}
    </section>
  );
}

/** One game of "Your games": the stored copy's summary at once, then the relay's log's when it answers. */
function useSummaries(games: readonly GameRecord[]): Record<string, GameSummary | string> {
  const [out, setOut] = useState<Record<string, GameSummary | string>>({});
  useEffect(() => {
    let stopped = false;
    const put = (game: string, v: GameSummary | string) => {
      if (!stopped) setOut((o) => ({ ...o, [game]: v }));
    };
    for (const g of games)
      void (async () => {
        const registry = await registryFor(g.protocol);
        try {
          if (g.lines.length > 0) put(g.game, summarize(g.game, g.me, g.lines, g.receipts, registry));
        } catch (e) {
          put(g.game, (e as Error).message);
        }
        try {
          // The relay's log is the game as it stands now: the stored copy is as of the last time the page played.
          const [text, receipts] = await Promise.all([readTranscript(g.game), readReceipts(g.game).catch(() => [] as unknown[])]);
          const lines = text.split('\n').filter((l) => l.trim() !== '');
          if (lines.length > 0) put(g.game, summarize(g.game, g.me, lines, receipts, registry));
        } catch {
          // Offline, or a relay that lost the game: the stored copy's summary stays.
        }
      })();
    return () => {
      stopped = true;
    };
  }, [games]);
  return out;
}

function YourGame({ record, summary }: { record: GameRecord; summary: GameSummary | string | undefined }) {
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const s = typeof summary === 'string' || summary === undefined ? null : summary;
  const rematch = async () => {
    if (s?.rematch == null) return;
    setBusy(true);
    try {
      go(`#/lobby/${await openNewLobby(s.rematch.offer, s.rematch.seats, s.me)}`);
    } catch (e) {
      setProblem((e as Error).message);
      setBusy(false);
    }
  };
  return (
    <li data-testid={`your-game-${record.game.slice(0, 12)}`}>
      <a href={`#/game/${record.game}`}>{s?.label ?? record.protocol}</a>
      <span>
        as {record.me}
        {s === null || s.opponents.length === 0 ? '' : ', against '}
        {s?.opponents.map((o, i) => (
          <span key={o.id}>
            {i === 0 ? '' : i === s.opponents.length - 1 ? ' and ' : ', '}
            <strong>{o.id}</strong> <code title={`${o.id}'s key`}>{o.fingerprint}…</code>
          </span>
        ))}
      </span>
      <span class="state" data-testid="game-state">
        {s === null ? (typeof summary === 'string' ? `unreadable: ${summary}` : 'reading…') : s.state}
        {s?.deadline == null ? '' : ` (${timeLeftWords(s.deadline, Date.now())})`}
      </span>
      <small>
        {new Date(record.created).toLocaleString()}
        {s === null ? '' : `, ${s.lines} lines`}
      </small>
      {s?.finished === true && s.rematch !== null ? (
        <button type="button" onClick={() => void rematch()} disabled={busy}>
          Rematch
        </button>
      ) : null}
      {problem === null ? null : (
        <span role="alert" class="error">
          {problem}
        </span>
      )}
    </li>
  );
}

export function HomePage() {
  const [games, setGames] = useState<GameRecord[]>([]);
  // A lobby that made a game is listed as that game.
  const lobbies = openedLobbies().filter((l) => !games.some((g) => g.lobby === l.lobby));
  useEffect(() => void allGames().then((g) => setGames(g.sort((a, b) => b.created - a.created))), []);
  const summaries = useSummaries(games);
  return (
    <main>
      <section aria-labelledby="play-title">
        <h2 id="play-title">Play</h2>
        <p>
          Fair games with friends, with no trusted game master: every roll is made from secrets all players commit to, every move is signed, and anyone can
          check the whole game afterwards.
        </p>
        <a class="button primary" href="#/new">
          New game
        </a>
        {games.length > 0 ? (
          <>
            <h3 id="your-games-title">Your games</h3>
            <ul class="your-games" aria-labelledby="your-games-title">
              {games.map((g) => (
                <YourGame key={g.game} record={g} summary={summaries[g.game]} />
              ))}
            </ul>
          </>
        ) : null}
        {lobbies.length > 0 ? (
          <>
            <h3>Lobbies you opened</h3>
            <ul class="games">
              {lobbies.map((l) => (
                <li key={l.lobby}>
                  <a href={`#/lobby/${l.lobby}`}>{offerLabel(l.protocol)} lobby</a> <small>{new Date(l.created).toLocaleString()}</small>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      <LazyDropAudit />
      <Keys />
    </main>
  );
}
