/**
 * Handing a Diplomacy power in civil disorder to a newcomer, in the browser (docs/spec/diplomacy.md §10.15, "Front
 * ends"; docs/spec/web.md §4): an active player pastes the newcomer's file and proposes it, and approves open
 * proposals one by one, each by a click of its own (nothing is approved for the player); a newcomer makes its file
 * with this browser's key, hands it to the players, and joins once a proposal names it. Loaded with the Diplomacy
 * page only.
 */
import { useEffect, useState } from 'preact/hooks';
import type { RelayGame } from '@fairtable/client';
import type { KeyPair } from '@fairtable/core/identity.js';
import { toHex } from '@fairtable/core/bytes.js';
import { isPlayerId } from '@fairtable/core/envelope.js';
import { approveBody, newcomerBody, openHandovers, proposalHash, type DiplomacyState } from '@fairtable/diplomacy/protocol/index.js';
import { map } from '@fairtable/diplomacy/protocol/state.js';
import { fingerprint, makeNewcomerFile, newcomerFileText, powersInDisorder, proposalFor, readNewcomerFile } from './newcomer.js';

const cap = (p: string): string => p.charAt(0).toUpperCase() + p.slice(1);

export interface HandoverPanelProps {
  readonly game: RelayGame;
  /** The number of lines the page holds: the panel is drawn again as the log grows. */
  readonly lines: number;
}

/** The player's side: propose a newcomer for a power nobody holds, approve the open proposals. */
export function HandoverPanel({ game }: HandoverPanelProps) {
  const [text, setText] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const [sent, setSent] = useState<string[]>([]);
  const seat = game.seat;
  const s = seat?.referee.state as DiplomacyState | null | undefined;
  if (seat == null || s == null || typeof s !== 'object' || s.handovers === undefined) return null;
  if (s.phase === 'done' || s.stage !== 'play' || !s.active.includes(game.id)) return null;
  const absent = powersInDisorder(s);
  const open = openHandovers(s);
  if (absent.length === 0 && open.length === 0) return null;
  const propose = () => {
    const file = readNewcomerFile(text.trim(), game.gameId);
    if (typeof file === 'string') return setProblem(file);
    if (!absent.includes(file.power)) return setProblem(`${cap(file.power)} is not in civil disorder: only a power nobody holds is handed over.`);
    const { consent, ...who } = file.newcomer;
    const hash = proposalHash(game.gameId, file.power, who);
    if (s.handovers[hash] !== undefined || s.closed.includes(hash) || sent.includes(hash))
      return setProblem(`${who.name} has been proposed for ${cap(file.power)} already.`);
    seat.sendUnasked(newcomerBody(file.power, who, consent));
    setSent([...sent, hash]);
    setText('');
    setProblem(null);
  };
  const approve = (proposal: string) => {
    seat.sendUnasked(approveBody(proposal));
    setSent([...sent, proposal]);
  };
  return (
    <section class="handover" aria-label="Newcomers" data-testid="handover">
      {absent.length === 0 ? null : (
        <>
          <h3>Hand {absent.map(cap).join(' or ')} to a newcomer</h3>
          <p>Paste the newcomer file the newcomer sent you. Every active player must approve before the newcomer plays.</p>
          <textarea
            rows={3}
            aria-label="Newcomer file"
            value={text}
            onInput={(e) => setText((e.target as HTMLTextAreaElement).value)}
            placeholder='{"type":"fairtable-newcomer",…}'
          />
          <p>
            <button type="button" onClick={propose} disabled={text.trim() === ''}>
              Propose the newcomer
            </button>
          </p>
        </>
      )}
      {problem === null ? null : (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
      {open.length === 0 ? null : (
        <ul class="handovers">
          {open.map((o) => (
            <li key={o.proposal} data-testid={`proposal-${o.handover.id}`}>
              <strong>{o.handover.name}</strong> ({o.handover.id}, key <code>{fingerprint(o.handover.key)}</code>) for {cap(o.handover.power)}, proposed by{' '}
              {o.handover.proposer}; waiting for {o.waitingFor.join(', ') || 'nobody'}.{' '}
              {o.waitingFor.includes(game.id) && !sent.includes(o.proposal) ? (
                <button type="button" onClick={() => approve(o.proposal)}>
                  Approve {o.handover.name}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export interface NewcomerJoinProps {
  readonly gameId: string;
  /** Called once a proposal of the newcomer `id` stands in the log: the page opens its seat as a newcomer. */
  readonly onJoin: (id: string) => void;
  /**
   * The page's own helpers, passed in rather than imported (importing them from this chunk made the bundler
   * split the first load into one more chunk, about 1 kB gzipped more): the player's key for a name (session.ts
   * `keyFor`) and the game's transcript as the relay serves it (api.ts `readTranscript`).
   */
  readonly keyFor: (name: string) => Promise<{ name: string; keys: KeyPair }>;
  readonly readTranscript: (game: string) => Promise<string>;
}

/** The newcomer's side: its file, made with this browser's key, then the wait for a proposal naming it. */
export function NewcomerJoin({ gameId, onJoin, keyFor, readTranscript }: NewcomerJoinProps) {
  const [name, setName] = useState('');
  const [power, setPower] = useState(map.powers[0] ?? '');
  const [file, setFile] = useState<{ id: string; key: string; text: string } | null>(null);
  const [waiting, setWaiting] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const make = async () => {
    if (!isPlayerId(name.trim())) return setProblem(`${name.trim()} cannot be a player's name here: use letters, digits and _ . : @ - (at most 64).`);
    try {
      const me = await keyFor(name.trim());
      const who = { id: me.name, key: toHex(me.keys.publicKey), name: me.name };
      setFile({ id: who.id, key: who.key, text: newcomerFileText(makeNewcomerFile(gameId, power, who, me.keys.secretKey)) });
      setProblem(null);
    } catch (e) {
      setProblem((e as Error).message);
    }
  };
  useEffect(() => {
    if (!waiting || file === null) return;
    let live = true;
    const look = async () => {
      try {
        const said = proposalFor(
          (await readTranscript(gameId)).split('\n').filter((l) => l.trim() !== ''),
          file.id,
          file.key,
        );
        if (!live) return;
        if (said === 'proposed') return onJoin(file.id);
        if (said !== 'waiting') {
          setProblem(said);
          setWaiting(false);
        }
      } catch (e) {
        if (live) setProblem((e as Error).message);
      }
    };
    void look();
    const timer = setInterval(() => void look(), 2000);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [waiting, file]);
  return (
    <section class="newcomer" aria-label="Join as a newcomer" data-testid="newcomer-join">
      <h3>Take over a power as a newcomer</h3>
      <p>If a power is in civil disorder, the players may hand it to you. Make your newcomer file and send it to them.</p>
      <p>
        <label>
          Your name <input value={name} maxLength={64} onInput={(e) => setName((e.target as HTMLInputElement).value)} disabled={file !== null} />
        </label>{' '}
        <label>
          Power{' '}
          <select value={power} onChange={(e) => setPower((e.target as HTMLSelectElement).value)} disabled={file !== null}>
            {map.powers.map((p) => (
              <option key={p} value={p}>
                {cap(p)}
              </option>
            ))}
          </select>
        </label>{' '}
        <button type="button" onClick={() => void make()} disabled={name.trim() === '' || file !== null}>
          Make my newcomer file
        </button>
      </p>
      {file === null ? null : (
        <>
          <p>
            Your key <code>{fingerprint(file.key)}</code>. Send this file to the players (they paste it, or give it to fairtable play --propose-newcomer):
          </p>
          <textarea rows={4} readOnly aria-label="Your newcomer file" value={file.text} data-testid="newcomer-file" />
          <p>
            <button type="button" onClick={() => void navigator.clipboard?.writeText(file.text)}>
              Copy
            </button>{' '}
            <button type="button" class="primary" onClick={() => setWaiting(true)} disabled={waiting}>
              {waiting ? 'Waiting for a player to propose you…' : 'Join as a newcomer'}
            </button>
          </p>
        </>
      )}
      {problem === null ? null : (
        <p role="alert" class="error">
          {problem}
        </p>
      )}
    </section>
  );
}
