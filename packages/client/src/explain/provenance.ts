/**
 * "Where did this roll come from?" (docs/spec/explain.md §2): for every random
 * outcome of a transcript, its inputs, each recomputed with the core's own
 * functions (commitments, seeds, streams, the judge, the house's proof) from
 * what the protocol machine held when the outcome was settled (replay.ts).
 * An opening, a proof or a claimed draw that fails is shown where it stands,
 * with `ok: false` on that input. Also collects the samples the outcome
 * chart counts (distributions.ts).
 */
import { ed25519 } from '@noble/curves/ed25519.js';
import { equalBytes, fromHex, isHex, toHex } from '@fairtable/core/bytes.js';
import { ScriptedChance } from '@fairtable/core/chance.js';
import { opens } from '@fairtable/core/commitment.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { canonicalize, type JsonValue } from '@fairtable/core/jcs.js';
import { beaconSeed, commitSetHash, type BeaconState } from '@fairtable/core/protocols/beacon.js';
import { playTurn, turnSeed, type ChainState } from '@fairtable/core/protocols/chain.js';
import type { DecisionGame } from '@fairtable/core/games/game.js';
import { replayOps, type KeyedState } from '@fairtable/core/protocols/keyed-stream.js';
import type { RochambeauState } from '@fairtable/core/protocols/rochambeau.js';
import { nonceBinding, startsWithBinding } from '@fairtable/core/rochambeau/binding.js';
import { decodeCommit, decodeReveal, decodeState, gameSize } from '@fairtable/core/rochambeau/codec.js';
import { DIGEST_OCTETS, nobleDigest } from '@fairtable/core/rochambeau/hashes.js';
import { judge } from '@fairtable/core/rochambeau/judge.js';
import { luckyNumber, signidiceAlpha, type SignidiceState } from '@fairtable/core/signidice/arbiter.js';
import { verifyHouseProof } from '@fairtable/core/signidice/house-key.js';
import type { VerifyFn } from '@fairtable/core/transcript.js';
import { walk, type Step } from './replay.js';
import type { Provenance, ProvenanceInput } from './types.js';

/** What the outcome chart counts, gathered on the same walk. */
export interface Samples {
  /** Turns of a game of chance: the game, its parameters and the machine's summary of each turn. */
  readonly turns: { game: string; params: { readonly [key: string]: JsonValue }; summary: JsonValue }[];
  /** Signidice lucky numbers, by wheel. */
  readonly lucky: { wheel: 'roulette' | 'dice'; value: number }[];
  readonly seeds: string[];
  /** Rochambeau assigned states, with N. */
  readonly states: { N: string; value: string }[];
}

export interface Analysis {
  readonly protocol: string;
  readonly provenance: Provenance[];
  readonly samples: Samples;
}

// The commitment purposes of the protocols (docs/SPEC.md §7.1, §7.2; docs/spec/signidice.md): an honest game
// whose every opening checks true here is the test that they are the machines' own.
const beaconPurpose = (round: number): string => `beacon/${round}`;
const chainPurpose = (k: number): string => `chain/roll/${k}`;
const hrPurpose = (round: number): string => `signidice/hr/${round}`;

const short = (hex: string): string => (hex.length > 20 ? `${hex.slice(0, 16)}…` : hex);
const json = (value: unknown): string => canonicalize(value as JsonValue);
const at = (line: number | undefined): string => (line === undefined ? '' : ` (line ${line})`);

function input(label: string, value: string, line?: number, ok?: boolean, says?: string): ProvenanceInput {
  return { label, value, ...(line === undefined ? {} : { line }), ...(ok === undefined ? {} : { ok }), ...(says === undefined ? {} : { says }) };
}

function entry(
  protocol: string,
  line: number,
  label: string,
  outcome: string,
  inputs: ProvenanceInput[],
  extra: { player?: string; detail?: JsonValue } = {},
): Provenance {
  return { line, label, outcome, inputs, ok: true, protocol, ...extra };
}

/** What a turn's summary says, in words. */
export function describeTurn(game: string, summary: JsonValue): string {
  const s = summary as Record<string, JsonValue> | null;
  if (s === null || typeof s !== 'object') return json(summary);
  // A dice expression's turn (docs/spec/dice.md §5): "rolled 3d6+2: 4+1+6+2 = 13".
  if (game === 'dice' && typeof s.text === 'string') return `rolled ${s.text}`;
  if (game === 'dice' && Array.isArray(s.roll)) return `rolled ${s.roll.join(' + ')} = ${String(s.sum)}`;
  if (game === 'snakes') {
    const via = s.via === 'ladder' ? ', up a ladder' : s.via === 'snake' ? ', down a snake' : '';
    return `rolled ${String(s.roll)}: square ${String(s.from)} → ${String(s.to)}${via}`;
  }
  if ((game === 'monopoly' || game === 'monopoly-chance') && Array.isArray(s.events)) {
    const parts = s.events.map((e) => {
      const ev = e as Record<string, JsonValue>;
      if (Array.isArray(ev.roll)) return `rolled ${ev.roll.join(' + ')}`;
      if (Array.isArray(ev.utilityRoll)) return `rolled ${ev.utilityRoll.join(' + ')} for the utility's rent`;
      if (typeof ev.card === 'string') return `${ev.pile === 'chance' ? 'Chance' : 'Community Chest'}: "${ev.card}"`;
      if (ev.jail === true) return 'to jail';
      if (typeof ev.jail === 'string') return `${ev.jail} to jail`;
      if (typeof ev.passedGo === 'string') return `${ev.passedGo} passed Go`;
      if (typeof ev.paid === 'number') return `${String(ev.from)} paid $${ev.paid} to ${String(ev.to)} (${String(ev.for)})`;
      if (typeof ev.stays === 'string') return `${ev.stays} stays in jail`;
      if (typeof ev.used === 'string') return `used "${ev.used}"`;
      if (typeof ev.refill === 'string') return `${ev.refill === 'chance' ? 'Chance' : 'Community Chest'} pile refilled`;
      return json(ev);
    });
    // The chance-only game's summary ends with where the mover is; the whole game's board is in its state.
    return typeof s.position === 'number' ? `${parts.join('; ')}; now on square ${s.position} with $${String(s.cash)}` : parts.join('; ');
  }
  return json(summary);
}

/**
 * What each draw of a turn became, in the game's words: dice are below(sides) + 1, a card is below(Y), the
 * index among the Y cards left in its pile in the pile's canonical order (docs/SPEC.md §8.3). Derived from
 * draws already checked, so these inputs carry no check of their own.
 */
export function drawBreakdown(game: string, summary: JsonValue, draws: readonly (readonly [number, number])[]): ProvenanceInput[] {
  const s = summary as Record<string, JsonValue> | null;
  if (s === null || typeof s !== 'object') return [];
  const dice = (faces: readonly JsonValue[], used: readonly (readonly [number, number])[], label: string): ProvenanceInput =>
    input(label, faces.join(', '), undefined, undefined, `Each die is below(n) + 1 on the seed's stream: draws ${json(used)}.`);
  if ((game === 'dice' || game === 'snakes') && draws.length > 0) {
    const faces = Array.isArray(s.roll) ? s.roll : [s.roll ?? null];
    return faces.length === draws.length ? [dice(faces, draws, game === 'dice' ? 'dice' : 'die')] : [];
  }
  if ((game !== 'monopoly' && game !== 'monopoly-chance') || !Array.isArray(s.events)) return [];
  const out: ProvenanceInput[] = [];
  let next = 0;
  for (const e of s.events) {
    const ev = e as Record<string, JsonValue>;
    if (Array.isArray(ev.roll)) {
      out.push(dice(ev.roll, draws.slice(next, next + ev.roll.length), 'dice'));
      next += ev.roll.length;
    } else if (Array.isArray(ev.utilityRoll)) {
      out.push(dice(ev.utilityRoll, draws.slice(next, next + ev.utilityRoll.length), "dice for the utility's rent"));
      next += ev.utilityRoll.length;
    } else if (typeof ev.card === 'string') {
      const [n, v] = draws[next++] ?? [0, 0];
      const pile = ev.pile === 'chance' ? 'Chance' : 'Community Chest';
      out.push(
        input(
          `${pile} card`,
          ev.card,
          undefined,
          undefined,
          `below(${n}) = ${v}: card ${v + 1} of the ${n} left in the ${pile} pile, in its canonical (alphabetical) order.`,
        ),
      );
    }
  }
  return next === draws.length ? out : [];
}

// ---------------------------------------------------------------- beacon (§7.1)

function beaconExplainer(gameId: string, out: Provenance[], samples: Samples): (step: Step<BeaconState>) => void {
  const commitLine = new Map<string, number>();
  const openings = new Map<string, { line: number; nonce: string; value: string }>();
  const key = (round: number, player: string): string => `${round}/${player}`;
  return ({ line, envelope, before, after }) => {
    if (envelope !== null) {
      const body = envelope.body;
      const from = envelope.from;
      if (body.type === 'commit' && body.round === before.round && before.phase === 'commit' && after.commits[from] === body.commitment) {
        commitLine.set(key(before.round, from), line);
      } else if (body.type === 'reveal' && body.round === before.round && before.phase === 'reveal' && before.values[from] === undefined) {
        const commitment = before.commits[from] ?? '';
        const opening = body.opening as { nonce?: unknown; value?: unknown };
        const ok = opens({ game: gameId, player: from, purpose: beaconPurpose(before.round) }, commitment, body.opening) && isHex(opening.value, 32);
        if (ok) openings.set(key(before.round, from), { line, nonce: String(opening.nonce), value: String(opening.value) });
        else {
          out.push(
            entry(
              'beacon',
              line,
              `Beacon round ${before.round}: ${from}'s value`,
              `refused: the round starts again without ${from}`,
              [
                input(`${from}'s commitment`, commitment, commitLine.get(key(before.round, from))),
                input(
                  `${from}'s opening`,
                  json(body.opening),
                  line,
                  false,
                  `This opening does not open ${from}'s commitment for round ${before.round}: ${from} forfeits.`,
                ),
              ],
              { player: from },
            ),
          );
        }
      }
    }
    for (const seed of after.seeds.slice(before.seeds.length)) {
      const round = seed.round;
      const inputs: ProvenanceInput[] = [];
      const commits: Record<string, string> = {};
      const values: Record<string, string> = {};
      for (const p of seed.players) {
        const cLine = commitLine.get(key(round, p));
        const o = openings.get(key(round, p));
        commits[p] = before.commits[p] ?? '';
        values[p] = o?.value ?? before.values[p] ?? '';
        inputs.push(input(`${p}'s commitment`, commits[p], cLine, undefined, `${p} committed before anyone revealed.`));
        const ok = o !== undefined && opens({ game: gameId, player: p, purpose: beaconPurpose(round) }, commits[p], { nonce: o.nonce, value: o.value });
        inputs.push(
          input(
            `${p}'s value`,
            values[p],
            o?.line,
            ok,
            ok
              ? `Opens ${p}'s commitment${at(cLine)}: H(commit, {game, player, purpose "beacon/${round}", nonce, value}) matches.`
              : `Does not open ${p}'s commitment.`,
          ),
        );
      }
      const set = commitSetHash(gameId, round, seed.players, commits);
      inputs.push(
        input(
          'agreed commit set',
          set,
          undefined,
          before.commitSet === set,
          before.commitSet === set
            ? 'Recomputed from the commitments: every reveal names this set, so all saw the same commitments.'
            : 'The commitments do not hash to the set the reveals named.',
        ),
      );
      const recomputed = beaconSeed(gameId, round, seed.players, values);
      inputs.push(
        input(
          'seed',
          recomputed,
          undefined,
          recomputed === seed.seed,
          recomputed === seed.seed ? 'H(beacon, {game, round, players, values}) recomputed: it is the seed.' : 'The values do not hash to the seed.',
        ),
      );
      samples.seeds.push(seed.seed);
      out.push(entry('beacon', line, `Beacon round ${round}`, `seed ${seed.seed}`, inputs, { detail: { round, seed: seed.seed, players: seed.players } }));
    }
  };
}

// ---------------------------------------------------------------- chain (§7.2, seed 004)

function chainExplainer(gameId: string, params: { readonly [k: string]: JsonValue }, out: Provenance[], samples: Samples): (step: Step<ChainState>) => void {
  const commitLine = new Map<string, number>();
  const freshLine = new Map<string, number>();
  return ({ line, envelope, before }) => {
    if (envelope === null) return;
    const body = envelope.body;
    const from = envelope.from;
    if (body.type === 'join' && before.phase === 'join' && before.commits[from] === undefined) commitLine.set(from, line);
    if (body.type === 'ready' && before.phase === 'ready' && before.fresh[from] === undefined) freshLine.set(from, line);
    if (body.type !== 'move' || before.phase !== 'play' || body.turn !== before.turn) return;
    // A decision game (Monopoly) names its roller; the other games go round the table.
    const rules = before.rules as Partial<DecisionGame<unknown>>;
    const waiting = typeof rules.waiting === 'function' ? rules.waiting(before.game) : null;
    const mover = waiting === null ? before.active[before.mover % Math.max(1, before.active.length)] : waiting.kind === 'roll' ? waiting.player : null;
    if (mover !== from) return;
    const pending = before.commits[from];
    if (pending === undefined) return;
    const label = `Turn ${before.turn}: ${from}'s roll`;
    // Between a decision game's rolls, fresh values also come in their own messages and with answers: the machine keeps their lines.
    const cLine = waiting === null ? commitLine.get(from) : before.commitLine[from];
    const inputs: ProvenanceInput[] = [
      input(`${from}'s commitment to roll #${pending.k}`, pending.commitment, cLine, undefined, `Published before the others chose the fresh values below.`),
    ];
    const opened = opens({ game: gameId, player: from, purpose: chainPurpose(pending.k) }, pending.commitment, body.opening);
    const opening = body.opening as { value?: JsonValue };
    inputs.push(
      input(
        `${from}'s opening`,
        json(body.opening),
        line,
        opened,
        opened
          ? `Opens the commitment${at(cLine)}: ${from}'s secret value was fixed before the fresh values existed.`
          : `Does not open ${from}'s commitment${at(cLine)}: the move is refused and ${from} forfeits.`,
      ),
    );
    if (!opened) {
      out.push(entry('chain', line, label, `refused: ${from} forfeits`, inputs, { player: from }));
      return;
    }
    const fresh: string[] = [];
    for (const p of before.active) {
      if (p === from) continue;
      const value = before.fresh[p] ?? '';
      const fLine = waiting === null ? freshLine.get(p) : before.freshLine[p];
      fresh.push(value);
      const after = fLine !== undefined && cLine !== undefined && fLine > cLine;
      inputs.push(
        input(
          `${p}'s fresh value`,
          value,
          fLine,
          after,
          after
            ? `Published at line ${fLine}, after ${from}'s commitment at line ${cLine}: chosen without knowing ${from}'s value.`
            : `Not published after ${from}'s commitment: it could have been chosen knowing it.`,
        ),
      );
    }
    const value = (opening.value ?? null) as JsonValue;
    inputs.push(
      input('seed', toHex(turnSeed(gameId, before.turn, from, value, fresh)), undefined, undefined, 'H(chain-roll, {game, turn, player, value, fresh}).'),
    );
    const played = playTurn(before, from, value, (body.action ?? null) as JsonValue);
    const same = json(played.draws) === json(body.draws ?? null);
    inputs.push(
      input(
        'draws from the seed',
        json(body.draws ?? null),
        line,
        same,
        same
          ? `The stream of the seed gives exactly these draws ([n, value]: a number below n) for the ${before.gameName} rules.`
          : `The seed gives ${json(played.draws)}: the claimed draws are wrong and ${from} forfeits.`,
      ),
    );
    if (same) {
      inputs.push(...drawBreakdown(before.gameName, played.summary, played.draws));
      samples.turns.push({ game: before.gameName, params, summary: played.summary });
      commitLine.set(from, line);
      freshLine.set(from, line);
    }
    out.push(
      entry('chain', line, label, same ? describeTurn(before.gameName, played.summary) : `refused: ${from} forfeits`, inputs, {
        player: from,
        detail: played.summary,
      }),
    );
  };
}

// ---------------------------------------------------------------- keyed streams (§7.3, seed 000)

type OpList = NonNullable<KeyedState['history'][string]>;
type Op = OpList['op'];

function opsOf(list: OpList | null): Op[] {
  const ops: Op[] = [];
  for (let x = list; x !== null; x = x.rest) ops.push(x.op);
  return ops.reverse();
}

/** The last `count` numbers of a list, oldest first: what one line added, without walking the whole history. */
function newestOps(list: OpList | null, count: number): Op[] {
  const ops: Op[] = [];
  for (let x = list; x !== null && ops.length < count; x = x.rest) ops.push(x.op);
  return ops.reverse();
}

function keyedExplainer(params: { readonly [k: string]: JsonValue }, out: Provenance[], samples: Samples): (step: Step<KeyedState>) => void {
  const keyLine = new Map<string, number>();
  /**
   * Per player, the input each of its numbers (in the order its current stream key drew them) stands in, and
   * the entry holding it (an X's entry is the roll it leads to, known one turn later).
   */
  const refs = new Map<string, { holder: { entry: Provenance | null }; input: ProvenanceInput }[]>();
  let pendingX: { turn: number; holder: { entry: Provenance | null }; input: ProvenanceInput } | null = null;
  const history = (s: KeyedState, p: string): OpList | null => (s.history[p] ?? null) as OpList | null;
  return ({ line, envelope, before, after, events }) => {
    if (envelope === null) return;
    const body = envelope.body;
    const from = envelope.from;
    if (body.type === 'stream-key' && after.keys[from] === body.key) {
      keyLine.set(from, line);
      refs.set(from, []);
    }
    // A decision game (Monopoly) sends the mover's X and the next player's roll as messages of their own, for the
    // roll its rules wait for; the other games send both in a turn.
    if (body.type === 'turn' || body.type === 'x' || body.type === 'roll') {
      const rules = before.rules as Partial<DecisionGame<unknown>>;
      const waiting = typeof rules.waiting === 'function' && before.phase === 'play' ? rules.waiting(before.game) : null;
      const pending = before.pending ?? (waiting?.kind === 'roll' ? { mover: waiting.player, turn: before.turn } : null);
      const newOps = newestOps(history(after, from), (history(after, from)?.length ?? 0) - (history(before, from)?.length ?? 0));
      const mine = refs.get(from) ?? [];
      refs.set(from, mine);
      for (const op of newOps) {
        if (op.kind === 'roll' && pending !== null) {
          const mover = pending.mover;
          const turnEvent = events.find((e) => e.type === 'turn' && e.turn === pending.turn);
          const draws = op.draws;
          const inputs: ProvenanceInput[] = [];
          const xRef = pendingX !== null && pendingX.turn === pending.turn ? pendingX : null;
          if (xRef !== null) inputs.push(xRef.input);
          inputs.push(
            input(
              `${from}'s stream key`,
              before.keys[from] ?? '',
              keyLine.get(from),
              undefined,
              `${from} published this key before it drew anything from its stream.`,
            ),
          );
          const drawsInput = input(
            `${from}'s draws for ${mover}`,
            json(draws),
            line,
            undefined,
            `Drawn by ${from} after skipping 4·X = ${4 * op.skip} bytes of its stream: checked when ${from} reveals its stream secret.`,
          );
          inputs.push(drawsInput);
          let outcome = `draws ${json(draws)}`;
          let detail: JsonValue = draws as JsonValue;
          if (turnEvent !== undefined && before.active.includes(mover)) {
            const summary = before.rules.play(before.game, mover, new ScriptedChance(draws), null).summary;
            inputs.push(...drawBreakdown(before.gameName, summary, draws));
            samples.turns.push({ game: before.gameName, params, summary });
            outcome = describeTurn(before.gameName, summary);
            detail = summary;
          }
          const e = entry('keyed-stream', line, `Turn ${pending.turn}: ${mover}'s roll, drawn by ${from}`, outcome, inputs, { player: mover, detail });
          out.push(e);
          if (xRef !== null) xRef.holder.entry = e;
          mine.push({ holder: { entry: e }, input: drawsInput });
        } else if (op.kind === 'x') {
          const xInput = input(
            `${from}'s X for turn ${before.turn}`,
            String(op.value),
            line,
            undefined,
            `X = below(${op.limit}) from ${from}'s own stream, which tells the roller how far to skip: checked when ${from} reveals its stream secret.`,
          );
          pendingX = { turn: before.turn, holder: { entry: null }, input: xInput };
          mine.push({ holder: pendingX.holder, input: xInput });
        }
      }
    }
    if (body.type === 'audit' && isHex(body.secret, 32)) {
      const epochBefore = before.epochs[from] ?? 0;
      const audited =
        (after.epochs[from] ?? 0) > epochBefore ||
        (after.audited[from] === true && before.audited[from] !== true) ||
        after.forfeits.length > before.forfeits.length;
      if (!audited) return;
      const secret = fromHex(body.secret);
      const keyOk = toHex(ed25519.getPublicKey(secret)) === before.keys[from];
      const ops = opsOf(history(before, from));
      const bad = keyOk ? replayOps(secret, ops) : 0;
      const mine = refs.get(from) ?? [];
      const secretInput = input(
        `${from}'s stream secret`,
        body.secret,
        line,
        keyOk,
        keyOk ? `Belongs to ${from}'s published stream key: its whole stream is now known.` : `Does not belong to ${from}'s published stream key.`,
      );
      const touched = new Set<Provenance>();
      mine.forEach((ref, i) => {
        if (ref.holder.entry !== null) touched.add(ref.holder.entry);
        if (!keyOk) return;
        if (bad < 0 || i < bad) {
          ref.input.ok = true;
          ref.input.says = `Replayed from ${from}'s revealed secret: its stream gives exactly this.`;
        } else if (i === bad) {
          ref.input.ok = false;
          ref.input.says = `Replayed from ${from}'s revealed secret: its stream does not give this (${from}'s number #${i}).`;
        } else {
          ref.input.says = `Not checked: ${from}'s stream already disagreed with its claims at its number #${bad}.`;
        }
      });
      for (const e of touched) e.inputs.push(secretInput);
      refs.set(from, []);
      // An audit during play may carry the player's next stream key: its numbers from here on come from it.
      if (after.keys[from] !== before.keys[from]) keyLine.set(from, line);
    }
  };
}

// ---------------------------------------------------------------- Rochambeau (seed 001)

function rochambeauExplainer(gameId: string, out: Provenance[], samples: Samples): (step: Step<RochambeauState>) => void {
  const commitLine = new Map<string, number>();
  const revealLine = new Map<string, number>();
  return ({ line, envelope, before, after }) => {
    if (envelope !== null) {
      const body = envelope.body;
      if (body.attempt === before.attempt && body.type === 'commit' && after.commits[envelope.from]?.line === line) commitLine.set(envelope.from, line);
      if (body.attempt === before.attempt && body.type === 'reveal') revealLine.set(envelope.from, line);
    }
    if (before.phase !== 'reveal' || (after.attempt === before.attempt && after.phase !== 'done')) return;
    // The judge ran on this line: on the Commits in arrival order and every Reveal in, this one included.
    const reveals: Record<string, string> = Object.fromEntries(Object.entries(before.reveals).map(([p, s]) => [p, s.payload]));
    const body = envelope?.body;
    if (
      envelope !== null &&
      body?.type === 'reveal' &&
      body.attempt === before.attempt &&
      isHex(body.payload) &&
      before.commits[envelope.from] !== undefined &&
      !before.out.includes(envelope.from)
    ) {
      reveals[envelope.from] ??= body.payload;
    }
    const players = before.arrival.map((id) => ({
      id,
      commit: fromHex(before.commits[id]!.payload),
      reveal: reveals[id] === undefined ? null : fromHex(reveals[id]),
    }));
    const verdict = judge({ N: before.N, hash: before.hash, gameId, players });
    const digest = nobleDigest(before.hash);
    const m = gameSize(before.N).m;
    const states = new Map<string, bigint>();
    const inputs: ProvenanceInput[] = [];
    for (const p of players) {
      const cLine = commitLine.get(p.id);
      inputs.push(input(`${p.id}'s Commit`, toHex(p.commit), cLine, undefined, `${p.id} committed to a hidden state before any Reveal.`));
      const out = verdict.disqualified.find((d) => d.id === p.id);
      if (p.reveal === null) {
        inputs.push(input(`${p.id}'s Reveal`, '(none)', undefined, false, `${p.id} sent no Reveal: disqualified.`));
        continue;
      }
      let says: string;
      try {
        const { nonce, M } = decodeReveal(p.reveal, m);
        const matches = equalBytes(digest(p.reveal.subarray(4)), decodeCommit(p.commit, DIGEST_OCTETS[before.hash]));
        const bound = startsWithBinding(nonce, 0, nonceBinding(gameId, p.id));
        const q = decodeState(M);
        if (out === undefined) states.set(p.id, q);
        says = `${matches ? `H(nonce ‖ M) equals the Commit${at(cLine)}` : 'H(nonce ‖ M) is not the Commit'}; the nonce is ${bound ? '' : 'not '}bound to this game and ${p.id}; state ${q}.`;
      } catch (e) {
        says = `The Reveal cannot be read: ${e instanceof Error ? e.message : String(e)}.`;
      }
      if (out !== undefined) says = `Disqualified (${out.code}: ${out.detail}). ${says}`;
      inputs.push(input(`${p.id}'s Reveal`, toHex(p.reveal), revealLine.get(p.id), out === undefined, says));
    }
    const result =
      verdict.outcome === 'winner'
        ? `${verdict.winner!} wins after ${verdict.rounds.length} round(s)`
        : verdict.outcome === 'no_winner'
          ? 'still tied after round 255: a new attempt with fresh Commits'
          : 'no winner: every player was disqualified';
    out.push(
      entry('rochambeau', line, `Rochambeau attempt ${before.attempt}`, result, inputs, { ...(verdict.winner === null ? {} : { player: verdict.winner }) }),
    );
    const N = BigInt(before.N);
    for (const round of verdict.rounds) {
      const ids = [...round.players].map((k) => players[k]!.id);
      const roundInputs: ProvenanceInput[] = [];
      ids.forEach((id, i) => {
        const q = states.get(id);
        const tweak = BigInt(round.tweaks[i]!);
        const assigned = BigInt(round.states[i]!);
        samples.states.push({ N: before.N, value: assigned.toString() });
        const ok = q !== undefined && (q + tweak) % N === assigned;
        roundInputs.push(
          input(
            `${id}'s assigned state`,
            assigned.toString(),
            revealLine.get(id),
            ok,
            `(revealed state ${q ?? '?'} + tweak ${tweak}) mod ${before.N}${ok ? '' : ' does not give it'}; the tweak hashes the round and every other player's Commit, so nobody chose it; score ${round.scores[i]}.`,
          ),
        );
      });
      const best = Math.max(...round.scores);
      const leaders = ids.filter((_, i) => round.scores[i] === best);
      out.push(
        entry(
          'rochambeau',
          line,
          `Rochambeau attempt ${before.attempt}, round ${round.round}`,
          leaders.length === 1 ? `${leaders[0]} scores highest (${best})` : `${leaders.join(', ')} tie on ${best}: they play on`,
          roundInputs,
          { detail: { round: round.round, players: ids, scores: [...round.scores] } },
        ),
      );
    }
  };
}

// ---------------------------------------------------------------- Signidice (seed 002)

function signidiceExplainer(gameId: string, out: Provenance[], samples: Samples): (step: Step<SignidiceState>) => void {
  const lines = new Map<string, number>();
  const proofs = new Map<string, string>();
  const openings = new Map<string, JsonValue>();
  /** HR openings that open their commitments, which the arbiter takes (the others forfeit their bets). */
  const taken = new Set<string>();
  const k = (type: string, round: number, player: string): string => `${type}/${round}/${player}`;
  return ({ line, envelope, before, events }) => {
    if (envelope !== null) {
      const body = envelope.body;
      const from = envelope.from;
      if (body.type === 'bet' && before.phase === 'bet' && body.round === before.round) lines.set(k('bet', before.round, from), line);
      if (
        body.type === 'sign' &&
        before.phase === 'sign' &&
        body.round === before.round &&
        typeof body.player === 'string' &&
        before.bets[body.player] !== undefined
      ) {
        const p = body.player;
        const placed = before.bets[p]!;
        lines.set(k('sign', before.round, p), line);
        proofs.set(k('sign', before.round, p), String(body.pi));
        const sameKey = json(body.key) === json(before.key);
        const verdict = sameKey ? verifyHouseProof(before.key, signidiceAlpha(gameId, before.round, before.playerKeys[p]!, placed.r), body.pi) : null;
        if (verdict === null || !verdict.valid) {
          out.push(
            entry(
              'signidice',
              line,
              `Round ${before.round}: the house's signature for ${p}`,
              'refused: the house forfeits, bets are refunded',
              [
                input(`V = A ‖ R for ${p}`, `${before.playerKeys[p]!}${placed.r}`, lines.get(k('bet', before.round, p))),
                input(
                  "the house's proof",
                  String(body.pi),
                  line,
                  false,
                  verdict === null
                    ? "Made with a key other than the contract's."
                    : `Not the unique signature of V under the contract's ${before.key.scheme} key (${verdict.code}).`,
                ),
              ],
              { player: p },
            ),
          );
        }
      }
      if (body.type === 'hr' && before.phase === 'hr' && body.round === before.round && before.bets[from] !== undefined && before.hrs[from] === undefined) {
        lines.set(k('hr', before.round, from), line);
        openings.set(k('hr', before.round, from), body.opening as JsonValue);
        const ok =
          opens({ game: gameId, player: from, purpose: hrPurpose(before.round) }, before.bets[from].hr, body.opening) &&
          isHex((body.opening as { value?: unknown }).value, 20);
        if (ok) taken.add(k('hr', before.round, from));
        if (!ok) {
          out.push(
            entry(
              'signidice',
              line,
              `Round ${before.round}: ${from}'s spin`,
              `refused: ${from}'s bet goes to the house`,
              [
                input(`${from}'s HR commitment`, before.bets[from].hr, lines.get(k('bet', before.round, from))),
                input(`${from}'s HR opening`, json(body.opening), line, false, `Does not open ${from}'s signed HR commitment: ${from} forfeits.`),
              ],
              { player: from },
            ),
          );
        }
      }
    }
    for (const e of events) {
      if (e.type !== 'spin' || typeof e.player !== 'string' || typeof e.round !== 'number') continue;
      const p = e.player;
      const round = e.round;
      const placed = before.bets[p];
      if (placed === undefined) continue;
      const hrPlayers = [...before.hrOrder];
      const hrValues: Record<string, string> = { ...before.hrs };
      // This line's HR counts when it opened its commitment: a refused one settles the round without it.
      if (envelope !== null && envelope.body.type === 'hr' && taken.has(k('hr', round, envelope.from)) && before.hrs[envelope.from] === undefined) {
        hrPlayers.push(envelope.from);
        hrValues[envelope.from] = String((envelope.body.opening as { value?: unknown }).value);
      }
      const hrs = hrPlayers.map((q) => hrValues[q]!);
      const alpha = signidiceAlpha(gameId, round, before.playerKeys[p]!, placed.r);
      const pi = proofs.get(k('sign', round, p)) ?? '';
      const proof = verifyHouseProof(before.key, alpha, pi);
      const S = proof.valid ? toHex(proof.beta) : '';
      const opening = openings.get(k('hr', round, p));
      const hrOk = opening !== undefined && opens({ game: gameId, player: p, purpose: hrPurpose(round) }, placed.hr, opening);
      const lucky = luckyNumber(gameId, round, p, before.sigs[p] ?? S, hrs, before.wheel);
      samples.lucky.push({ wheel: before.wheel, value: e.lucky as number });
      const betLine = lines.get(k('bet', round, p));
      const inputs = [
        input(`${p}'s bet and R`, `${json(placed.bet)}, R = ${placed.r}`, betLine, undefined, `Signed by ${p} before the house signed anything.`),
        input(
          "the house's proof",
          short(pi),
          lines.get(k('sign', round, p)),
          proof.valid && S === before.sigs[p],
          proof.valid
            ? `A valid ${before.key.scheme} proof on V = A ‖ R (${p}'s key and R) under the contract's key: the one signature the house could give; its output S = ${short(S)}.`
            : `Not a valid proof under the contract's key.`,
        ),
        input(`${p}'s HR commitment`, placed.hr, betLine, undefined, `Signed with the bet, so HR was fixed before the house signed.`),
        input(
          `${p}'s HR`,
          hrValues[p] ?? '',
          lines.get(k('hr', round, p)),
          hrOk,
          hrOk ? `Opens the HR commitment${at(betLine)}.` : 'Does not open the HR commitment.',
        ),
        input('every HR, in the order opened', json(hrs), undefined, undefined, 'All of them go into every lucky number of the round.'),
        input(
          'lucky number',
          String(lucky),
          undefined,
          lucky === e.lucky,
          lucky === e.lucky
            ? `below(${before.wheel === 'dice' ? '6) + 1' : '37)'} on the stream of H(signidice-seed, {game, round, player, S, hr}) recomputed.`
            : `Recomputed as ${lucky}, not ${String(e.lucky)}.`,
        ),
      ];
      const won = e.won as number;
      out.push(
        entry('signidice', line, `Round ${round}: ${p}'s spin`, `lucky number ${String(e.lucky)}: ${won > 0 ? `won ${won}` : `lost ${-won}`}`, inputs, {
          player: p,
          detail: e as unknown as JsonValue,
        }),
      );
    }
  };
}

// ---------------------------------------------------------------- the walk

/**
 * The last analysis, kept for the one after it: a page asks for the provenance and the chart of the same
 * lines in turn, and both come from one walk. Reused only for the very same array, unchanged in length
 * and last line (a page appending lines as a game goes on gets a fresh walk), and the same `verify`.
 */
let last: { lines: readonly string[]; length: number; tail: string | undefined; verify: VerifyFn | undefined; analysis: Analysis } | null = null;

/** Explains every random outcome of a transcript and gathers the samples the chart counts. */
export function analyse(lines: readonly string[], verify?: VerifyFn): Analysis {
  if (last !== null && last.lines === lines && last.length === lines.length && last.tail === lines.at(-1) && last.verify === verify) return last.analysis;
  const analysis = walkAndExplain(lines, verify);
  last = { lines, length: lines.length, tail: lines.at(-1), verify, analysis };
  return analysis;
}

function walkAndExplain(lines: readonly string[], verify?: VerifyFn): Analysis {
  const provenance: Provenance[] = [];
  const samples: Samples = { turns: [], lucky: [], seeds: [], states: [] };
  let visit: ((step: Step<unknown>) => void) | null = null;
  let protocol = '';
  walk<unknown>(
    lines,
    (step, referee) => {
      if (visit === null) {
        const { gameId, setup } = referee.checker;
        protocol = setup.protocol;
        const explain =
          protocol === 'beacon'
            ? beaconExplainer(gameId, provenance, samples)
            : protocol === 'chain'
              ? chainExplainer(gameId, setup.params, provenance, samples)
              : protocol === 'keyed-stream'
                ? keyedExplainer(setup.params, provenance, samples)
                : protocol === 'rochambeau'
                  ? rochambeauExplainer(gameId, provenance, samples)
                  : protocol === 'signidice'
                    ? signidiceExplainer(gameId, provenance, samples)
                    : () => undefined;
        visit = explain as (step: Step<unknown>) => void;
      }
      try {
        visit(step);
      } catch (e) {
        // A signed body the machine could not read either (the referee names its author unexpected_message)
        // has no outcome to explain; anything else is a fault of this module and must show.
        if (!(e instanceof FairtableError) && !(e instanceof TypeError) && !(e instanceof RangeError) && !(e instanceof SyntaxError)) throw e;
        if (step.violations.length === 0) throw e;
      }
    },
    verify,
  );
  for (const p of provenance) p.ok = p.inputs.every((i) => i.ok !== false);
  return { protocol, provenance, samples };
}

/** Every random outcome of a transcript with its inputs, each recomputed and checked (docs/spec/explain.md §2). */
export function explainOutcomes(lines: readonly string[], options: { verify?: VerifyFn } = {}): Provenance[] {
  // A copy: a caller may change what it was given, and the cached walk must not change with it.
  return analyse(lines, options.verify).provenance.map((p) => ({ ...p, inputs: p.inputs.map((i) => ({ ...i })) }));
}
