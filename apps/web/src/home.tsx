/**
 * The first page (docs/spec/web.md §1, §3): start a game, the games this browser plays, the keys it holds (export to
 * and import from the CLI's key file), and the drop zone that audits any transcript.
 */
import { useEffect, useState } from 'preact/hooks';
import { fromKeyFile, toKeyFile, type KeyFile } from '@fairtable/core/identity.js';
import { DropAudit } from './audit.js';
import { allGames, allKeys, openedLobbies, putKey, type GameRecord } from './store.js';

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

export function HomePage() {
  const [games, setGames] = useState<GameRecord[]>([]);
  // A lobby that made a game is listed as that game.
  const lobbies = openedLobbies().filter((l) => !games.some((g) => g.lobby === l.lobby));
  useEffect(() => void allGames().then((g) => setGames(g.sort((a, b) => b.created - a.created))), []);
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
          <ul class="games">
            {games.map((g) => (
              <li key={g.game}>
                <a href={`#/game/${g.game}`}>
                  {g.protocol} as {g.me}
                </a>{' '}
                <small>
                  {new Date(g.created).toLocaleString()}, {g.lines.length} lines
                </small>
              </li>
            ))}
          </ul>
        ) : null}
        {lobbies.length > 0 ? (
          <>
            <h3>Lobbies you opened</h3>
            <ul class="games">
              {lobbies.map((l) => (
                <li key={l.lobby}>
                  <a href={`#/lobby/${l.lobby}`}>{l.protocol} lobby</a> <small>{new Date(l.created).toLocaleString()}</small>
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
      <DropAudit />
      <Keys />
    </main>
  );
}
