/**
 * Table talk beside the board (docs/spec/press.md, docs/spec/web.md §4): the game's messages in the relay's order,
 * each checked by core's `TalkReader` before it is shown, an unread count while the panel is closed, a box to
 * write to the table or, where the game allows private press, to chosen seats; and the game's press rule and mode,
 * one sentence each. Loaded with the game page's first talk panel, not with the app (`LazyChat` in game.tsx).
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { TableTalk, type RelayGame, type TalkEntry } from '@fairtable/client';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { pressModeWords, pressRuleWords, SETUP_ROSTER, type TalkRoster } from '@fairtable/core/press/index.js';
import type { PlayerEntry } from '@fairtable/core/setup.js';
import { keyFor } from './session.js';

export interface ChatProps {
  readonly gameId: string;
  readonly players: readonly PlayerEntry[];
  readonly params: { readonly [key: string]: JsonValue };
  /** This page's seat, or null for a watcher (who reads the table's talk and writes nothing). */
  readonly me: string | null;
  /** The seat's connection, whose `talk` frames bring new messages at once. */
  readonly game: RelayGame | null;
  /** Who talks as the log stands now (press.md §10): its newcomers, and the players whose power was handed over. */
  readonly roster?: () => TalkRoster;
}

const time = (ms: number): string => new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
const toWords = (to: TalkEntry & { kind: 'shown' }): string =>
  Array.isArray(to.talk.to) ? `to ${to.talk.to.join(', ')}` : to.talk.to === 'observers' ? 'to observers' : 'to the table';

function Message({ entry }: { entry: TalkEntry }) {
  if (entry.kind === 'refused') {
    const f = entry.finding;
    return (
      <li class="talk-refused" data-testid="talk-refused">
        A message was refused [{f.code}]: {f.message}
        {f.player === null ? ' (nobody is named)' : ` — ${f.player} is named${f.provable ? '' : ', on evidence only this page can check'}`}.
      </li>
    );
  }
  const t = entry.talk;
  return (
    <li class={t.mine ? 'talk-mine' : undefined} data-testid="talk-message">
      <span class="talk-head">
        {t.from} {toWords(entry)} · {time(entry.at)}
        {t.proof === 'unverified' ? ' · author not checked' : ''}
      </span>{' '}
      {t.body === null ? (
        <em data-testid="talk-sealed">
          sealed for {Array.isArray(t.to) ? t.to.join(', ') : 'others'} ({entry.talk.message.sealed?.box.length ?? 0} hex digits)
        </em>
      ) : (
        <span class="talk-body">{t.body}</span>
      )}
    </li>
  );
}

export function Chat({ gameId, players, params, me, game, roster }: ChatProps) {
  // The latest roster, asked by the talk for each message it reads or writes.
  const rosterNow = useRef(roster);
  rosterNow.current = roster;
  const [secretKey, setSecretKey] = useState<Uint8Array | null>(null);
  const [, setTick] = useState(0);
  const [open, setOpen] = useState(false);
  const [body, setBody] = useState('');
  const [to, setTo] = useState<string[]>([]);
  const [problem, setProblem] = useState<string | null>(null);
  useEffect(() => {
    if (me === null) return;
    void keyFor(me).then((k) => setSecretKey(k.keys.secretKey));
  }, [me]);
  const talk = useMemo(
    () =>
      me !== null && secretKey === null
        ? null
        : new TableTalk({
            relayUrl: location.origin,
            gameId,
            players,
            params,
            roster: () => rosterNow.current?.() ?? SETUP_ROSTER,
            ...(me !== null && secretKey !== null ? { me: { id: me, secretKey } } : {}),
          }),
    // The players and params are the setup's: fixed for the game.
    [gameId, me, secretKey],
  );
  useEffect(() => {
    if (talk === null) return;
    const off = talk.onChange(() => setTick((n) => n + 1));
    const offPush = game?.on('talk', (frame) => talk.take(frame)) ?? null;
    const poll = () => void talk.load().catch((e: Error) => setProblem(e.message));
    poll();
    // Pushed frames are missed while a connection is down, and a watcher has none: read what is new now and then.
    const timer = setInterval(poll, game === null ? 2000 : 5000);
    return () => {
      off();
      offPush?.();
      clearInterval(timer);
    };
  }, [talk, game]);
  useEffect(() => {
    if (open) talk?.markRead();
  });
  if (talk === null || talk.rules === null) return null;
  const rules = talk.rules;
  const unread = talk.unread;
  // The seats that read press now: a newcomer from its line, a player whose power was handed over no more.
  const others = talk.seats.map((p) => p.id).filter((id) => id !== me);
  const send = async (e: Event) => {
    e.preventDefault();
    if (body.trim() === '') return;
    try {
      await talk.send(to.length === 0 ? 'table' : [...to].sort(), body);
      setBody('');
      setProblem(null);
    } catch (err) {
      setProblem((err as Error).message);
    }
  };
  return (
    <details class="chat" open={open} onToggle={(e) => setOpen((e.target as HTMLDetailsElement).open)} aria-label="Table talk">
      <summary>
        Table talk{' '}
        {unread > 0 && !open ? (
          <span class="badge" data-testid="talk-unread" aria-label={`${unread} unread`}>
            {unread}
          </span>
        ) : null}
      </summary>
      <p class="hint" data-testid="talk-rules">
        {pressRuleWords(rules.rule)} {rules.rule === 'none' ? '' : pressModeWords(rules.mode)} The relay sees who writes to whom, when, and how long; only the
        recipients can read private messages.
      </p>
      <ol class="talk-list">
        {talk.entries.map((entry) => (
          <Message key={entry.index} entry={entry} />
        ))}
      </ol>
      {talk.canWrite ? (
        <form class="talk-form" aria-label="Write to the table" onSubmit={(e) => void send(e)}>
          {talk.canWritePrivately ? (
            <fieldset class="talk-to">
              <legend>To (none ticked: the whole table)</legend>
              {others.map((id) => (
                <label key={id}>
                  <input
                    type="checkbox"
                    checked={to.includes(id)}
                    onChange={(e) => setTo((e.target as HTMLInputElement).checked ? [...to, id] : to.filter((x) => x !== id))}
                  />{' '}
                  {id}
                </label>
              ))}
            </fieldset>
          ) : null}
          <label class="field">
            Message
            <textarea rows={2} maxLength={2000} value={body} onInput={(e) => setBody((e.target as HTMLTextAreaElement).value)} />
          </label>
          <button type="submit">{to.length === 0 ? 'Send to the table' : `Send to ${[...to].sort().join(', ')}`}</button>
        </form>
      ) : null}
      {problem === null ? null : (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </details>
  );
}
