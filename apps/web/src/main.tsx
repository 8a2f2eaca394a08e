/**
 * The web app's entry (docs/spec/web.md): a hash router over the pages, so that the relay serves one file at `/`
 * and an invite link is a plain address.
 */
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { GamePage } from './game.js';
import { HomePage } from './home.js';
import { CreatePage, LobbyPage } from './lobby.js';
import './styles.css';

function route(hash: string) {
  const path = hash.replace(/^#/, '').split('?')[0] ?? '';
  const parts = path.split('/').filter((p) => p !== '');
  if (parts[0] === 'new') return <CreatePage />;
  if (parts[0] === 'lobby' && parts[1] !== undefined)
    return (
      <LobbyPage
        key={path}
        lobbyId={parts[1]}
        seat={parts[2] === undefined ? null : decodeURIComponent(parts[2])}
        secret={parts[3] === undefined ? null : parts[3]}
      />
    );
  if (parts[0] === 'game' && parts[1] !== undefined) return <GamePage key={path} gameId={parts[1]} />;
  // The relay serves the app at a game's own address (the invite `fairtable play` prints).
  const atGame = /^\/games\/([0-9a-f]{64})$/.exec(location.pathname);
  if (atGame !== null) return <GamePage key={atGame[1]} gameId={atGame[1]!} />;
  return <HomePage />;
}

function App() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const on = () => setHash(location.hash);
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return (
    <>
      <header>
        <a href="#/" class="brand">
          fairtable
        </a>
        <nav aria-label="Main">
          <a href="#/new">New game</a>
        </nav>
      </header>
      {route(hash)}
      <footer>
        <p>The relay that serves this page is not trusted: your page checks every line it receives.</p>
      </footer>
    </>
  );
}

render(<App />, document.getElementById('app')!);
