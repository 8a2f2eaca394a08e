/**
 * Creating a game and its lobby (docs/spec/web.md §2): the creator picks the game, its parameters and the seats; each
 * seat gets an invite link; the lobby shows who has joined and who is missing; once every seat holds a key, the
 * creator's page signs the setup and creates the game on the relay, and every page follows into it after checking
 * that the setup gives its seat its own key.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { bindToRelay, createGame, relayKeyOf } from '@fairtable/client';
import { toHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import { openLobby, readGameInfo, readLobby, setLobbyGame, takeSeat, type LobbyView, type Offer } from './api.js';
import { HOUSE, keyFor, newRecord, setupLine } from './session.js';
import { allGames, allKeys, getGame, noteLobby } from './store.js';
import { GAMES, offerLabel } from './labels.js';

export const go = (hash: string): void => {
  location.hash = hash;
};

export function CreatePage() {
  const [protocol, setProtocol] = useState<Offer['protocol']>('dice');
  const [rounds, setRounds] = useState(3);
  const [states, setStates] = useState(3);
  const [timeout, setTimeoutS] = useState(120);
  const [me, setMe] = useState('ann');
  const [others, setOthers] = useState('bob');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const myName = protocol === 'signidice' ? HOUSE : me.trim();
  const submit = async (e: Event) => {
    e.preventDefault();
    const seats = [myName, ...others.split(/[\s,]+/).filter((s) => s !== '')];
    const bad = seats.find((s) => !isPlayerId(s));
    if (bad !== undefined) return setError(`"${bad}" cannot be a player's name: use letters, digits, - and _`);
    if (new Set(seats).size !== seats.length) return setError('every seat needs its own name');
    if (seats.length < 2) return setError('a game needs at least two seats');
    setBusy(true);
    try {
      const mine = await keyFor(myName);
      const lobby = await openLobby({ protocol, rounds, states, timeoutMs: timeout * 1000 }, seats, myName, toHex(mine.keys.publicKey));
      noteLobby({ lobby: lobby.lobby, protocol, created: Date.now() });
      go(`#/lobby/${lobby.lobby}`);
    } catch (err) {
      setError((err as Error).message);
      setBusy(false);
    }
  };
  return (
    <main>
      <h2>New game</h2>
      <form class="create" onSubmit={(e) => void submit(e)}>
        <label class="field">
          Game
          <select value={protocol} onChange={(e) => setProtocol((e.target as HTMLSelectElement).value as Offer['protocol'])}>
            {GAMES.map((g) => (
              <option key={g.value} value={g.value}>
                {g.label}
              </option>
            ))}
          </select>
        </label>
        {protocol === 'rochambeau' ? (
          <label class="field">
            Number of states (odd, at least 3)
            <input type="number" min={3} step={2} value={states} onInput={(e) => setStates(Number((e.target as HTMLInputElement).value))} />
          </label>
        ) : (
          <label class="field">
            {protocol === 'snakes' ? 'Most rounds' : protocol === 'diplomacy' ? 'Game years' : 'Rounds'}
            <input type="number" min={1} max={100} value={rounds} onInput={(e) => setRounds(Number((e.target as HTMLInputElement).value))} />
          </label>
        )}
        <label class="field">
          Seconds each player has to act
          <input type="number" min={5} max={86400} value={timeout} onInput={(e) => setTimeoutS(Number((e.target as HTMLInputElement).value))} />
        </label>
        <label class="field">
          Your name
          <input value={myName} disabled={protocol === 'signidice'} autoComplete="nickname" onInput={(e) => setMe((e.target as HTMLInputElement).value)} />
        </label>
        {protocol === 'signidice' ? <p class="hint">You are the house: your page holds the wheel's key and proves every spin.</p> : null}
        <label class="field">
          The other seats (names, separated by spaces or commas)
          <input value={others} onInput={(e) => setOthers((e.target as HTMLInputElement).value)} />
        </label>
        <button type="submit" class="primary" disabled={busy}>
          Create the game
        </button>
        {error === null ? null : (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </form>
    </main>
  );
}

/** The seat of this lobby this browser holds the key of, if any. */
async function mySeat(lobby: LobbyView): Promise<string | null> {
  const keys = await allKeys();
  return lobby.seats.find((s) => s.key !== null && keys.some((k) => k.name === s.id && k.publicKey === s.key))?.id ?? null;
}

export function LobbyPage({ lobbyId, seat }: { lobbyId: string; seat: string | null }) {
  const [lobby, setLobby] = useState<LobbyView | null>(null);
  const [mine, setMine] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const starting = useRef(false);

  const enter = async (l: LobbyView, me: string | null) => {
    if (me === null || l.seats.some((s) => s.key === null) || starting.current) return;
    starting.current = true;
    try {
      if (l.game !== null) {
        if ((await getGame(l.game)) === undefined) {
          // Follow the game only if its setup gives this seat this browser's key.
          const info = await readGameInfo(l.game);
          const { keys } = await keyFor(me);
          if (!info.players.some((p) => p.id === me && p.key === toHex(keys.publicKey)))
            throw new Error(`the game made from this lobby does not give ${me} your key: not joining`);
          const relay = await relayKeyOf(location.origin, l.game, globalThis.WebSocket);
          await newRecord(l.game, me, l.offer.protocol, relay, l.lobby, null);
        }
        go(`#/game/${l.game}`);
        return;
      }
      if (me !== l.creator) {
        starting.current = false;
        return;
      }
      // The creator: a game may already exist from before a reload.
      const earlier = (await allGames()).find((g) => g.lobby === l.lobby);
      let game = earlier?.game;
      if (game === undefined) {
        const creator = await keyFor(me);
        const players = l.seats.map((s) => ({ id: s.id, key: s.key! }));
        const { line, vrfSecret } = setupLine(l.offer, players, creator, (await bindToRelay({}, location.origin)).params);
        const created = await createGame(location.origin, line);
        await newRecord(created.game, me, l.offer.protocol, created.relay, l.lobby, vrfSecret);
        game = created.game;
      }
      await setLobbyGame(l.lobby, game);
      go(`#/game/${game}`);
    } catch (e) {
      setError((e as Error).message);
      starting.current = false;
    }
  };

  useEffect(() => {
    let stop = false;
    const poll = async () => {
      try {
        const l = await readLobby(lobbyId);
        const me = await mySeat(l);
        if (stop) return;
        setLobby(l);
        setMine(me);
        await enter(l, me);
      } catch (e) {
        if (!stop) setError((e as Error).message);
      }
    };
    void poll();
    const timer = setInterval(() => void poll(), 1000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [lobbyId]);

  const join = async (name: string) => {
    try {
      const { keys } = await keyFor(name);
      const l = await takeSeat(lobbyId, name, toHex(keys.publicKey));
      setLobby(l);
      setMine(await mySeat(l));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  if (lobby === null)
    return (
      <main>
        {error === null ? (
          <p>Loading the lobby…</p>
        ) : (
          <p role="alert" class="error">
            {error}
          </p>
        )}
      </main>
    );
  const missing = lobby.seats.filter((s) => s.key === null);
  const invite = (s: string) => `${location.origin}/#/lobby/${lobby.lobby}/${encodeURIComponent(s)}`;
  return (
    <main>
      <h2>Lobby: {offerLabel(lobby.offer.protocol)}</h2>
      <p>
        {lobby.offer.protocol === 'rochambeau'
          ? `${lobby.offer.states} states`
          : `${lobby.offer.rounds} ${lobby.offer.protocol === 'diplomacy' ? 'game years' : 'rounds'}`}
        , {lobby.offer.timeoutMs / 1000} s to act. Created by {lobby.creator}.
      </p>
      {mine === null && seat !== null && lobby.seats.some((s) => s.id === seat && s.key === null) ? (
        <button type="button" class="primary" onClick={() => void join(seat)}>
          Join as {seat}
        </button>
      ) : null}
      {mine === null ? null : <p>You hold the seat {mine}.</p>}
      <table class="seats">
        <caption>Seats</caption>
        <thead>
          <tr>
            <th scope="col">Seat</th>
            <th scope="col">Player</th>
            <th scope="col">Invite link</th>
          </tr>
        </thead>
        <tbody>
          {lobby.seats.map((s) => (
            <tr key={s.id} data-testid={`seat-${s.id}`}>
              <th scope="row">{s.id}</th>
              <td>{s.key === null ? 'missing' : `joined (key ${s.key.slice(0, 8)}…)`}</td>
              <td>
                {s.key === null ? (
                  <span class="invite">
                    <input
                      readOnly
                      value={invite(s.id)}
                      aria-label={`invite link for ${s.id}`}
                      data-testid={`invite-${s.id}`}
                      onFocus={(e) => (e.target as HTMLInputElement).select()}
                    />
                    <button
                      type="button"
                      onClick={() => {
                        void navigator.clipboard?.writeText(invite(s.id)).then(() => setCopied(s.id));
                      }}
                    >
                      {copied === s.id ? 'Copied' : 'Copy'}
                    </button>
                  </span>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p role="status" aria-live="polite">
        {missing.length === 0 ? 'Everyone is here: starting the game…' : `Waiting for ${missing.map((s) => s.id).join(', ')}.`}
      </p>
      {error === null ? null : (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </main>
  );
}
