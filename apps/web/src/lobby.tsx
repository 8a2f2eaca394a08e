/**
 * Creating a game and its lobby (docs/spec/web.md §2): the creator picks the game, its parameters, the time to act
 * and the seats; each seat gets an invite link carrying that seat's secret; the lobby shows who has joined and who
 * is missing; once every seat holds a key, the creator's page signs the setup, creates the game on the relay and
 * writes its id into the lobby under its signature, and every page follows into it after checking that signature
 * and the whole setup against the offer it accepted.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { bindToRelay, createGame, relayInfo, relayKeyOf } from '@fairtable/client';
import { randomBytes, toHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import { readOffer, seatSecretHash, setupDifferences, signLobbyGame, verifyLobbyGame } from '@fairtable/core/lobby.js';
import { gameIdOf, setupError, type GameSetup } from '@fairtable/core/setup.js';
import { openLobby, readLobby, readSetup, setLobbyGame, takeSeat, type LobbyView, type Offer } from './api.js';
import { HOUSE, keyFor, newRecord, setupLine } from './session.js';
import { allGames, allKeys, getGame, noteLobby } from './store.js';
import { GAMES, offerLabel } from './labels.js';
import type { PressRules } from '@fairtable/core/press/index.js';
import { defaultPressFor, offerPress, PressChoice } from './press-choice.js';
import { diceRange, parseDice } from '@fairtable/core/games/dice-expr.js';

export const go = (hash: string): void => {
  location.hash = hash;
};

const MINUTE = 60_000;
const DAY = 86_400_000;
/**
 * The times to act the form offers: minutes for the games played at one sitting, days for Diplomacy, whose
 * players order once a day or so (the offer's bounds: core's `MIN_OFFER_TIMEOUT_MS`…`MAX_OFFER_TIMEOUT_MS`).
 */
const deadlinesFor = (protocol: Offer['protocol']): number[] =>
  protocol === 'diplomacy'
    ? [DAY, 2 * DAY, 3 * DAY, 7 * DAY]
    : protocol === 'holdem'
      ? [15_000, 30_000, MINUTE, 2 * MINUTE, 5 * MINUTE]
      : [30_000, MINUTE, 2 * MINUTE, 5 * MINUTE, 10 * MINUTE];
const defaultDeadline = (protocol: Offer['protocol']): number => (protocol === 'diplomacy' ? DAY : protocol === 'holdem' ? MINUTE : 2 * MINUTE);
/** A time to act in the words of the form: days, minutes or seconds. */
export function deadlineWords(ms: number): string {
  if (ms % DAY === 0) return ms === DAY ? '1 day' : `${ms / DAY} days`;
  if (ms % MINUTE === 0) return `${ms / MINUTE} min`;
  return `${ms / 1000} s`;
}

/** What this browser keeps of a lobby in localStorage: the invite secrets it made, the offer it accepted. */
const INVITES = (lobby: string): string => `fairtable/invites/${lobby}`;
const ACCEPTED = (lobby: string): string => `fairtable/accepted/${lobby}`;
function remember(key: string, value: unknown): void {
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch {
    // A page without storage still plays; it compares the game with the offer it reads then.
  }
}
function recall(key: string): unknown {
  try {
    return JSON.parse(localStorage.getItem(key) ?? 'null') as unknown;
  } catch {
    return null;
  }
}

/**
 * Opens a lobby for `offer` with `seats` (the creator's first), this page holding the creator's seat and the invite
 * secrets; returns the lobby's id. The create form and a finished game's "Rematch" both open lobbies here.
 */
export async function openNewLobby(offer: Offer, seats: readonly string[], myName: string): Promise<string> {
  const mine = await keyFor(myName);
  // One secret per invite: the lobby keeps only its hash, and takes the seat only with it.
  const secrets = Object.fromEntries(seats.filter((s) => s !== myName).map((s) => [s, toHex(randomBytes(16))]));
  const invites = Object.fromEntries(Object.entries(secrets).map(([s, secret]) => [s, seatSecretHash(secret)]));
  const lobby = await openLobby(offer, seats, myName, toHex(mine.keys.publicKey), invites);
  remember(INVITES(lobby.lobby), secrets);
  remember(ACCEPTED(lobby.lobby), offer);
  noteLobby({ lobby: lobby.lobby, protocol: offer.protocol, created: Date.now() });
  return lobby.lobby;
}

/** Why a Hold'em offer cannot be made, in words, or null: 2 to 9 seats, whole blinds and chips, chips enough for the big blind. */
export function holdemProblem(seats: number, bigBlind: number, stack: number): string | null {
  if (seats < 2 || seats > 9) return `Hold'em seats 2 to 9 players, not ${seats}`;
  if (!Number.isSafeInteger(bigBlind) || bigBlind < 2 || bigBlind > 1_000_000_000) return 'The big blind must be a whole number from 2 to 1,000,000,000';
  if (!Number.isSafeInteger(stack) || stack < bigBlind || stack > 1_000_000_000_000)
    return `The starting chips must be a whole number, at least the big blind (${bigBlind}), at most 1,000,000,000,000`;
  return null;
}

/** The dice expression field's verdict: its range, or what is wrong and where. */
function rollWords(text: string): { ok: boolean; words: string } {
  if (text.trim() === '') return { ok: true, words: 'Empty: two six-sided dice (2d6).' };
  try {
    const e = parseDice(text);
    const { min, max } = diceRange(e);
    return { ok: true, words: `${e.text}: ${min} to ${max} a turn.` };
  } catch (err) {
    return { ok: false, words: (err as Error).message };
  }
}

export function CreatePage() {
  const [protocol, setProtocol] = useState<Offer['protocol']>('dice');
  const [rounds, setRounds] = useState(3);
  const [states, setStates] = useState(3);
  const [roll, setRoll] = useState('');
  const [bigBlind, setBigBlind] = useState(100);
  const [stack, setStack] = useState(10_000);
  const [timeoutMs, setTimeoutMs] = useState(defaultDeadline('dice'));
  const [me, setMe] = useState('ann');
  const [others, setOthers] = useState('bob');
  const [pressChosen, setPress] = useState<PressRules | null>(null);
  const press = pressChosen ?? defaultPressFor(protocol);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const myName = protocol === 'signidice' ? HOUSE : me.trim();
  const deadlines = deadlinesFor(protocol);
  const chosen = deadlines.includes(timeoutMs) ? timeoutMs : defaultDeadline(protocol);
  const rolled = rollWords(roll);
  const submit = async (e: Event) => {
    e.preventDefault();
    const seats = [myName, ...others.split(/[\s,]+/).filter((s) => s !== '')];
    const bad = seats.find((s) => !isPlayerId(s));
    if (bad !== undefined) return setError(`"${bad}" cannot be a player's name: use letters, digits, - and _`);
    if (new Set(seats).size !== seats.length) return setError('every seat needs its own name');
    if (seats.length < 2) return setError('a game needs at least two seats');
    if (protocol === 'holdem') {
      const problem = holdemProblem(seats.length, bigBlind, stack);
      if (problem !== null) return setError(problem);
    }
    if (protocol === 'dice' && !rolled.ok) return setError(`The dice rolled each turn: ${rolled.words}`);
    setBusy(true);
    try {
      const offer: Offer = {
        protocol,
        rounds,
        states,
        timeoutMs: chosen,
        ...(protocol === 'dice' && roll.trim() !== '' ? { roll: parseDice(roll).text } : {}),
        ...(protocol === 'holdem' ? { bigBlind, stack } : {}),
        ...offerPress(press),
      };
      go(`#/lobby/${await openNewLobby(offer, seats, myName)}`);
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
            {protocol === 'snakes' ? 'Most rounds' : protocol === 'diplomacy' ? 'Game years' : protocol === 'holdem' ? 'Hands at most' : 'Rounds'}
            <input type="number" min={1} max={100} value={rounds} onInput={(e) => setRounds(Number((e.target as HTMLInputElement).value))} />
          </label>
        )}
        {protocol === 'holdem' ? (
          <>
            <label class="field">
              Big blind (the small blind is half of it)
              <input type="number" min={2} value={bigBlind} onInput={(e) => setBigBlind(Number((e.target as HTMLInputElement).value))} />
            </label>
            <label class="field">
              Starting chips, each player
              <input type="number" min={1} value={stack} onInput={(e) => setStack(Number((e.target as HTMLInputElement).value))} />
            </label>
            <p class="hint">2 to 9 players. Every page shuffles the deck in turn; nobody, the relay included, sees a card it is not dealt.</p>
          </>
        ) : null}
        {protocol === 'dice' ? (
          <label class="field">
            Dice rolled each turn (e.g. 3d6+2, 2d20kh1, 4d6kh3; empty: 2d6)
            <input value={roll} placeholder="2d6" spellcheck={false} autoComplete="off" onInput={(e) => setRoll((e.target as HTMLInputElement).value)} />
            <small class={rolled.ok ? 'hint' : 'error'} data-testid="roll-words">
              {rolled.words}
            </small>
          </label>
        ) : null}
        <label class="field">
          Time each player has to act
          <select value={String(chosen)} onChange={(e) => setTimeoutMs(Number((e.target as HTMLSelectElement).value))}>
            {deadlines.map((ms) => (
              <option key={ms} value={String(ms)}>
                {deadlineWords(ms)}
              </option>
            ))}
          </select>
        </label>
        <PressChoice value={press} onChange={setPress} />
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

/**
 * A seat's line in the lobby: who holds it, by name beside its key's fingerprint; the seat this page holds or was
 * invited to is "you", never "missing".
 */
function seatWords(s: { id: string; key: string | null }, mine: string | null, invitedTo: string | null): string {
  if (s.key !== null) return `${s.id === mine ? `you (${s.id})` : s.id} joined, key ${s.key.slice(0, 8)}…`;
  if (s.id === invitedTo && mine === null) return 'you: not joined yet';
  return 'not joined yet';
}

/** A game this page will not follow, for a reason that polling again does not change. */
class Refusal extends Error {}

/**
 * Checks the game written into the lobby before following it (docs/spec/web.md §2): its id signed by the creator's
 * seat key, its setup the one its id hashes, and that setup the game of the offer this page accepted, with the
 * lobby's players and this relay's key. Returns the relay's key.
 */
async function checkGame(l: LobbyView, game: string, accepted: Offer): Promise<string> {
  const creatorKey = l.seats.find((s) => s.id === l.creator)?.key ?? '';
  if (!verifyLobbyGame(l.lobby, game, l.gameSig, creatorKey))
    throw new Refusal(`The game id in this lobby is not signed by its creator, ${l.creator}: not joining it.`);
  const setup = await readSetup(game);
  if (setupError(setup) !== null || gameIdOf(setup as GameSetup) !== game)
    throw new Refusal('The game made from this lobby has a setup that does not fit its id: not joining it.');
  const relay = await relayKeyOf(location.origin, game, globalThis.WebSocket);
  const players = l.seats.map((s) => ({ id: s.id, key: s.key ?? '' }));
  const published = await relayInfo(location.origin);
  const differences = setupDifferences(setup, accepted, players, relay, published?.witnesses ?? []);
  if (differences.length > 0) throw new Refusal(`This game is not the one you accepted: ${differences.join('; ')}. Not joining it.`);
  return relay;
}

/** The seat of this lobby this browser holds the key of, if any. */
async function mySeat(lobby: LobbyView): Promise<string | null> {
  const keys = await allKeys();
  return lobby.seats.find((s) => s.key !== null && keys.some((k) => k.name === s.id && k.publicKey === s.key))?.id ?? null;
}

export function LobbyPage({ lobbyId, seat, secret }: { lobbyId: string; seat: string | null; secret: string | null }) {
  const [lobby, setLobby] = useState<LobbyView | null>(null);
  const [mine, setMine] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** The last poll's failure (the relay away, say), cleared by the next poll that succeeds. */
  const [pollError, setPollError] = useState<string | null>(null);
  const [copied, setCopied] = useState<string | null>(null);
  const starting = useRef(false);

  const enter = async (l: LobbyView, served: Offer, me: string | null) => {
    if (me === null || l.seats.some((s) => s.key === null) || starting.current) return;
    starting.current = true;
    // The offer this page made or accepted when it joined, whatever the relay serves as the lobby's offer now
    // (the one served, for a page that kept none).
    const offer = readOffer(recall(ACCEPTED(l.lobby))) ?? served;
    try {
      if (l.game !== null) {
        if ((await getGame(l.game)) === undefined) {
          // Follow the game only if it is the one offered.
          const relay = await checkGame(l, l.game, offer);
          await newRecord(l.game, me, offer.protocol, relay, l.lobby, null);
        }
        go(`#/game/${l.game}`);
        return;
      }
      if (me !== l.creator) {
        starting.current = false;
        return;
      }
      // The creator: a game may already exist from before a reload.
      const creator = await keyFor(me);
      const earlier = (await allGames()).find((g) => g.lobby === l.lobby);
      let game = earlier?.game;
      if (game === undefined) {
        const players = l.seats.map((s) => ({ id: s.id, key: s.key! }));
        const { line, vrfSecret } = setupLine(offer, players, creator, (await bindToRelay({}, location.origin)).params);
        const created = await createGame(location.origin, line);
        await newRecord(created.game, me, offer.protocol, created.relay, l.lobby, vrfSecret);
        game = created.game;
      }
      // The creator's signature binds the game to this lobby: nobody else can write another game here.
      await setLobbyGame(l.lobby, game, signLobbyGame(l.lobby, game, creator.keys.secretKey));
      go(`#/game/${game}`);
    } catch (e) {
      setError((e as Error).message);
      // A refusal stands; anything else (the network) is tried again at the next poll.
      if (!(e instanceof Refusal)) starting.current = false;
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
        setPollError(null);
        const offer = readOffer(l.offer);
        if (offer !== null) await enter(l, offer, me);
      } catch (e) {
        if (!stop) setPollError((e as Error).message);
      }
    };
    void poll();
    const timer = setInterval(() => void poll(), 1000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [lobbyId]);

  const join = async (name: string, offer: Offer) => {
    try {
      const { keys } = await keyFor(name);
      const l = await takeSeat(lobbyId, name, toHex(keys.publicKey), secret ?? '');
      // The offer as this page saw it when it joined: the game made later must be this one.
      remember(ACCEPTED(lobbyId), offer);
      setLobby(l);
      setMine(await mySeat(l));
    } catch (e) {
      setError((e as Error).message);
    }
  };

  const alert = (text: string | null) =>
    text === null ? null : (
      <p role="alert" class="error">
        {text}
      </p>
    );
  if (lobby === null) return <main>{error === null && pollError === null ? <p>Loading the lobby…</p> : alert(error ?? pollError)}</main>;
  const offer = readOffer(lobby.offer);
  if (offer === null)
    return (
      <main>
        <h2>Lobby</h2>
        {alert("This lobby's offer cannot be read: it is not a game this page can play.")}
      </main>
    );
  const missing = lobby.seats.filter((s) => s.key === null);
  const secrets = (recall(INVITES(lobby.lobby)) ?? {}) as Record<string, unknown>;
  const inviteOf = (s: string): string | null => {
    const x = secrets[s];
    return typeof x === 'string' ? `${location.origin}/#/lobby/${lobby.lobby}/${encodeURIComponent(s)}/${x}` : null;
  };
  const invited = seat === null ? undefined : lobby.seats.find((s) => s.id === seat);
  // What an invite link says at once: its seat taken by someone else, or no such seat, or no secret in the link.
  const inviteProblem =
    mine !== null || seat === null
      ? null
      : invited === undefined
        ? `This lobby has no seat ${seat}.`
        : invited.key !== null
          ? `The seat ${seat} is taken: someone has already joined with its invite link.`
          : secret === null
            ? `This invite link lacks the secret of the seat ${seat}: ask the creator for the link again.`
            : null;
  return (
    <main>
      <h2>Lobby: {offerLabel(offer.protocol)}</h2>
      <p>
        {offer.protocol === 'rochambeau'
          ? `${offer.states} states`
          : offer.protocol === 'holdem'
            ? `${offer.rounds} hand${offer.rounds === 1 ? '' : 's'} at most, blinds ${Math.floor((offer.bigBlind ?? 100) / 2)}/${offer.bigBlind ?? 100}, ${offer.stack ?? 100 * (offer.bigBlind ?? 100)} chips each`
            : `${offer.rounds} ${offer.protocol === 'diplomacy' ? 'game years' : 'rounds'}`}
        , {offer.roll === undefined ? '' : `rolling ${offer.roll} each turn, `}
        {deadlineWords(offer.timeoutMs)} to act. Created by {lobby.creator}.
      </p>
      {mine === null && invited !== undefined && invited.key === null && secret !== null ? (
        <button type="button" class="primary" onClick={() => void join(invited.id, offer)}>
          Join as {invited.id}
        </button>
      ) : null}
      {inviteProblem === null ? null : (
        <p role="alert" class="error" data-testid="invite-problem">
          {inviteProblem}
        </p>
      )}
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
          {lobby.seats.map((s) => {
            const link = s.key === null ? inviteOf(s.id) : null;
            return (
              <tr key={s.id} data-testid={`seat-${s.id}`}>
                <th scope="row">{s.id}</th>
                <td>{seatWords(s, mine, seat)}</td>
                <td>
                  {link !== null ? (
                    <span class="invite">
                      <input
                        readOnly
                        value={link}
                        aria-label={`invite link for ${s.id}`}
                        data-testid={`invite-${s.id}`}
                        onFocus={(e) => (e.target as HTMLInputElement).select()}
                      />
                      <button
                        type="button"
                        onClick={() => {
                          void navigator.clipboard?.writeText(link).then(() => setCopied(s.id));
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
            );
          })}
        </tbody>
      </table>
      <p role="status" aria-live="polite">
        {missing.length === 0
          ? 'Everyone is here: starting the game…'
          : `Waiting for ${missing.map((s) => (s.id === seat && mine === null ? `you (${s.id}: press "Join as ${s.id}")` : s.id)).join(', ')}.`}
      </p>
      {alert(error)}
      {alert(pollError)}
    </main>
  );
}
