/**
 * A newcomer the players approve takes over an absent power (docs/spec/diplomacy.md §10.15).
 *
 * A power in civil disorder (held by nobody, still on the board) may be handed to a newcomer: an active player
 * proposes the newcomer's key, id and name, with the newcomer's signed consent (`newcomer`); the line makes the
 * id an author at the envelope layer (docs/SPEC.md §4.6), so its signed lines can be read, but the machine lets
 * it do nothing yet. Every active player approves (`approve-newcomer`, the proposal's hash); at the start of the
 * first round after the last approval the newcomer holds the power: it is a player from then on (escrow shares
 * are dealt to its key, it commits, reveals and signs), and the key that held the power before can no longer act.
 */
import * as z from 'zod/mini';
import { concatBytes, fromHex, toHex } from '@fairtable/core/bytes.js';
import type { Body } from '@fairtable/core/envelope.js';
import { domainPrefix, hashJsonHex } from '@fairtable/core/hash.js';
import { sign, verify } from '@fairtable/core/identity.js';
import { canonicalBytes } from '@fairtable/core/jcs.js';
import { Stepper, type StepResult } from '@fairtable/core/protocols/machine.js';
import { MAX_NEWCOMERS, newcomerIn } from '@fairtable/core/transcript.js';
import type { Accepted } from '@fairtable/core/transcript.js';
import { alive, copy, map, type DiplomacyState } from './state.js';

/** The newcomer as a proposal names it. */
export interface Newcomer {
  /** Its player id in this game (a new author: docs/SPEC.md §4.6). */
  readonly id: string;
  /** Its Ed25519 public key, hex. */
  readonly key: string;
  /** The name the players know it by (1 to 64 characters). */
  readonly name: string;
}

/** An open proposal: the newcomer, the power, who proposed it (line), who has approved so far. */
export interface Handover extends Newcomer {
  readonly power: string;
  readonly proposer: string;
  readonly line: number;
  approvals: string[];
}

const hex = (bytes: number) => z.string().check(z.regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`)));

/** The messages of a hand-over (§10.15): checked here, not by the referee, so the machine sees every `newcomer` line. */
export const HANDOVER_MESSAGES = {
  newcomer: z.object({
    type: z.literal('newcomer'),
    power: z.string(),
    newcomer: z.object({ id: z.string(), key: hex(32), name: z.string().check(z.minLength(1), z.maxLength(64)), consent: hex(64) }),
  }),
  'approve-newcomer': z.object({ type: z.literal('approve-newcomer'), proposal: hex(32) }),
};

/** What the newcomer signs to consent: the domain prefix `newcomer-consent`, then JCS({game, power, id, key, name}). */
export function consentBytes(gameId: string, power: string, n: Newcomer): Uint8Array {
  return concatBytes(domainPrefix('newcomer-consent'), canonicalBytes({ game: gameId, power, id: n.id, key: n.key, name: n.name }));
}

/** The newcomer's consent to take `power` in game `gameId`: an Ed25519 signature, hex, by its secret key. */
export function newcomerConsent(gameId: string, power: string, n: Newcomer, secretKey: Uint8Array): string {
  return toHex(sign(consentBytes(gameId, power, n), secretKey));
}

/** The proposal's hash, which approvals name: H("handover", JCS({game, power, id, key, name})). */
export function proposalHash(gameId: string, power: string, n: Newcomer): string {
  return hashJsonHex('handover', { game: gameId, power, id: n.id, key: n.key, name: n.name });
}

/** The body an active player sends to propose `n` for `power` (the consent from `newcomerConsent`). */
export function newcomerBody(power: string, n: Newcomer, consent: string): Body {
  return { type: 'newcomer', power, newcomer: { id: n.id, key: n.key, name: n.name, consent } };
}

/** The body an active player sends to approve the proposal of hash `proposal`. */
export function approveBody(proposal: string): Body {
  return { type: 'approve-newcomer', proposal };
}

/** The open proposals, for front ends: each with its hash and the active players whose approval it still needs. */
export function openHandovers(s: DiplomacyState): { proposal: string; handover: Handover; waitingFor: string[] }[] {
  return Object.entries(s.handovers).map(([proposal, handover]) => ({
    proposal,
    handover,
    waitingFor: s.active.filter((p) => !handover.approvals.includes(p)),
  }));
}

/** Every active player has approved. */
const approved = (s: DiplomacyState, h: Handover): boolean => s.active.every((p) => h.approvals.includes(p));

const holderOf = (s: DiplomacyState, power: string): string | undefined => Object.keys(s.powers).find((p) => s.powers[p] === power);

/**
 * A line the hand-over rules decide before the machine's other rules: a proposal, an approval, a line of a
 * newcomer not seated yet, a line of a key whose power was handed over. Null for any other line.
 */
export function handoverStep(state: DiplomacyState, msg: Accepted): StepResult<DiplomacyState> | null {
  const { from, body } = msg.envelope;
  const st = new Stepper();
  if (body.type === 'setup') return null;
  if (body.type === 'newcomer') return propose(state, msg);
  if (body.type === 'approve-newcomer') return approve(state, msg);
  const gone = state.replaced[from];
  // A message for a round before the hand-over is stale (the machine ignores it, as any player's); later, the key is no longer the power's.
  if (gone !== undefined && !(typeof body.round === 'number' && body.round < gone.round)) {
    st.violation(
      'unexpected_message',
      from,
      msg,
      `${from}'s key no longer acts for ${gone.power}: ${gone.by} took the power over from round ${gone.round}, and ${from} is out of the game`,
    );
    return st.result(state);
  }
  if (state.keys[from] === undefined && state.introduced[from] !== undefined) {
    st.violation(
      'out_of_turn',
      from,
      msg,
      `${from} is a newcomer proposed for a power, and no hand-over to it has taken effect: its "${body.type}" counts for nothing`,
    );
    return st.result(state);
  }
  return null;
}

function propose(state: DiplomacyState, msg: Accepted): StepResult<DiplomacyState> {
  const { from, body } = msg.envelope;
  const st = new Stepper();
  const s = copy(state);
  // Mirror of the envelope layer's rule (docs/SPEC.md §4.6): which ids the log has made authors, and with which key.
  const n = newcomerIn(body);
  if (n !== null && s.keys[n.id] === undefined && s.introduced[n.id] === undefined && Object.keys(s.introduced).length < MAX_NEWCOMERS)
    s.introduced[n.id] = n.key;
  // A proposal that lands after the game ended is a race with its last line: ignored.
  if (s.phase === 'done') return st.result(s);
  const refuse = (why: string): StepResult<DiplomacyState> => {
    st.violation('unexpected_message', from, msg, `${from} proposed a newcomer ${why}: the proposal is refused`);
    return st.result(s);
  };
  const parsed = HANDOVER_MESSAGES.newcomer.safeParse(body);
  if (!parsed.success) return refuse('in a message without the shape §10.15 gives it');
  const { power } = parsed.data;
  const { consent, ...who } = parsed.data.newcomer;
  if (!s.active.includes(from)) {
    // A player put out of the game after it wrote the proposal raced its own forfeit; a newcomer, or the key that left this power, never had a say.
    if (s.keys[from] !== undefined && s.vacated[power] !== from && s.replaced[from] === undefined) return st.result(s);
    return refuse(`for ${power}, and ${from} is not a player in the game`);
  }
  if (s.stage !== 'play') return refuse('before the powers are assigned');
  if (!map.powers.includes(power)) return refuse(`for "${power}", which is not a power of the map`);
  const holder = holderOf(s, power);
  const lapse = (why: string): StepResult<DiplomacyState> => {
    st.emit({ type: 'newcomer-refused', power, newcomer: who.id, why });
    return st.result(s);
  };
  // Seated, or off the board, after the proposer's view of the log (`at`): a race with the game, held against nobody.
  if (holder !== undefined && (s.seatedAt[power] ?? -1) >= msg.envelope.at) return lapse(`${holder} took ${power} over after the proposal was written`);
  if (holder !== undefined) return refuse(`for ${power}, which ${holder} holds: only an absent power (in civil disorder) is handed over`);
  if (!alive(s.position, power)) return lapse(`${power} has nothing left on the board`);
  if (s.keys[who.id] !== undefined || s.gpgKeys[who.id] !== undefined) return refuse(`with id ${who.id}, which is a player of the game already`);
  let consented = false;
  try {
    consented = verify(fromHex(consent, 'consent', 64), consentBytes(s.gameId, power, who), fromHex(who.key, 'key', 32));
  } catch {
    consented = false;
  }
  if (!consented) return refuse(`${who.id} for ${power} with a consent that ${who.id}'s key did not sign`);
  const proposal = proposalHash(s.gameId, power, who);
  const open = s.handovers[proposal];
  if (open !== undefined) {
    // The same newcomer proposed again (two players at once, say): the second proposer approves it.
    if (!open.approvals.includes(from)) {
      open.approvals.push(from);
      settle(s, st, proposal);
    }
    return st.result(s);
  }
  if (s.introduced[who.id] !== who.key) {
    // The id is an author with another key already: this key could never sign for it. Nobody signed anything false.
    st.emit({ type: 'newcomer-refused', proposal, power, newcomer: who.id, why: `${who.id} is an author of this game with another key` });
    return st.result(s);
  }
  s.handovers[proposal] = { ...who, power, proposer: from, line: msg.line, approvals: [from] };
  st.emit({ type: 'newcomer-proposed', proposal, power, newcomer: who.id, name: who.name, key: who.key, proposer: from });
  settle(s, st, proposal);
  return st.result(s);
}

function approve(state: DiplomacyState, msg: Accepted): StepResult<DiplomacyState> {
  const { from, body } = msg.envelope;
  const st = new Stepper();
  if (state.phase === 'done') return st.result(state);
  const parsed = HANDOVER_MESSAGES['approve-newcomer'].safeParse(body);
  const proposal = parsed.success ? parsed.data.proposal : '';
  if (!parsed.success || (state.handovers[proposal] === undefined && !state.closed.includes(proposal))) {
    st.violation('unexpected_message', from, msg, `${from} approved a hand-over nobody proposed (${String(body.proposal)})`);
    return st.result(state);
  }
  const h = state.handovers[proposal];
  // An approval of a proposal seated or lapsed since it was sent: a race, held against nobody.
  if (h === undefined) return st.result(state);
  if (!state.active.includes(from)) {
    // As for a proposal: a player put out of the game since it approved raced its forfeit.
    if (state.keys[from] !== undefined && state.vacated[h.power] !== from && state.replaced[from] === undefined) return st.result(state);
    st.violation(
      'unexpected_message',
      from,
      msg,
      `${from} approved ${h.id} for ${h.power}, and ${from} is not a player in the game: only an active player's approval counts`,
    );
    return st.result(state);
  }
  if (h.approvals.includes(from)) return st.result(state);
  const s = copy(state);
  s.handovers[proposal]!.approvals.push(from);
  st.emit({ type: 'newcomer-approval', proposal, player: from });
  settle(s, st, proposal);
  return st.result(s);
}

/** Says so when the proposal has every approval it needs: it takes effect when the next round starts. */
function settle(s: DiplomacyState, st: Stepper, proposal: string): void {
  const h = s.handovers[proposal]!;
  if (approved(s, h)) st.emit({ type: 'newcomer-approved', proposal, power: h.power, newcomer: h.id, from: s.round + 1 });
}

/**
 * At the start of a round: each proposal every active player has approved takes effect, in the order the
 * proposals stand in the log; the newcomer holds the power from this round on. A proposal whose power is
 * held by then (an earlier proposal took it) or off the board lapses.
 */
export function seatNewcomers(s: DiplomacyState, st: Stepper, line: number): void {
  const ready = Object.entries(s.handovers)
    .filter(([, h]) => approved(s, h))
    .sort(([, a], [, b]) => a.line - b.line);
  for (const [proposal, h] of ready) {
    delete s.handovers[proposal];
    s.closed = [...s.closed, proposal];
    if (holderOf(s, h.power) !== undefined || !alive(s.position, h.power)) {
      st.emit({ type: 'newcomer-lapsed', proposal, power: h.power, newcomer: h.id });
      continue;
    }
    s.players = [...s.players, h.id];
    s.keys = { ...s.keys, [h.id]: h.key };
    s.active.push(h.id);
    s.powers[h.id] = h.power;
    s.missed[h.id] = 0;
    s.seatedAt[h.power] = line;
    const departed = s.vacated[h.power];
    if (departed !== undefined) s.replaced[departed] = { power: h.power, by: h.id, round: s.round };
    delete s.vacated[h.power];
    st.emit({
      type: 'newcomer-seated',
      proposal,
      power: h.power,
      player: h.id,
      name: h.name,
      round: s.round,
      ...(departed === undefined ? {} : { replaces: departed }),
    });
  }
  // Proposals for a power a newcomer now holds can never take effect.
  for (const [proposal, h] of Object.entries(s.handovers)) {
    if (holderOf(s, h.power) === undefined) continue;
    delete s.handovers[proposal];
    s.closed = [...s.closed, proposal];
    st.emit({ type: 'newcomer-lapsed', proposal, power: h.power, newcomer: h.id });
  }
}
