/**
 * Witness receipts (docs/spec/relay.md §8): a witness relay's signed word that it held a player's envelope
 * at a time. A witness stores a game's envelopes in each author's own order (`seq`, `prev`), never orders
 * the game, and signs for each
 *
 *   witness receipt = {v: 1, game, from, seq, hash: H(envelope), time}
 *   sig = Ed25519(witness key, utf8("fairtable/witness-receipt/v1") ‖ 0x00 ‖ JCS(receipt without sig))
 *
 * A deadline claim that names a player `withheld` is false when a witness the game names holds that
 * player's next envelope, receipted before the ordering relay receipted the claim (censorship.ts): the
 * orderer, not the player, answers for it. `WitnessBook` is the witness's door: pure, no clock.
 */
import { concatBytes, fromHex, isHex, toHex } from '../bytes.js';
import { canonicalBytes } from '../jcs.js';
import { domainPrefix } from '../hash.js';
import { sign, verify } from '../identity.js';
import { FairtableError } from '../errors.js';
import { MAX_NEWCOMERS, newcomerIn, prepareLine, readSetupLine, type VerifyFn } from '../transcript.js';
import type { Envelope } from '../envelope.js';

export interface UnsignedWitnessReceipt {
  readonly v: 1;
  readonly game: string;
  readonly from: string;
  readonly seq: number;
  /** The envelope hash (SPEC §4). */
  readonly hash: string;
  /** The witness's clock when it stored the envelope, ms. */
  readonly time: number;
}

export interface WitnessReceipt extends UnsignedWitnessReceipt {
  readonly sig: string;
}

const MEMBERS = ['v', 'game', 'from', 'seq', 'hash', 'time', 'sig'];

function witnessBytes(r: UnsignedWitnessReceipt): Uint8Array {
  return concatBytes(domainPrefix('witness-receipt'), canonicalBytes({ v: r.v, game: r.game, from: r.from, seq: r.seq, hash: r.hash, time: r.time }));
}

export function signWitnessReceipt(
  r: UnsignedWitnessReceipt,
  secretKey: Uint8Array,
  signFn: (m: Uint8Array, k: Uint8Array) => Uint8Array = sign,
): WitnessReceipt {
  // Object.assign, not `{ ...r, sig }`: the same object, without a new hidden class for every signature (door.ts).
  return Object.assign({}, r, { sig: toHex(signFn(witnessBytes(r), secretKey)) });
}

/** Why `value` is not a witness receipt signed by `witnessKey`, or null when it is one. */
export function witnessReceiptError(value: unknown, witnessKey: Uint8Array, verifyFn: VerifyFn = verify): string | null {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not an object';
  const r = value as Record<string, unknown>;
  for (const k of Object.keys(r)) if (!MEMBERS.includes(k)) return `unknown member "${k}"`;
  if (r.v !== 1) return 'v must be 1';
  if (!isHex(r.game, 32) || !isHex(r.hash, 32)) return 'game and hash must be 64 hex digits';
  if (typeof r.from !== 'string' || !/^[A-Za-z0-9_.:@-]{1,64}$/.test(r.from)) return 'from must be a player id';
  for (const k of ['seq', 'time'] as const)
    if (typeof r[k] !== 'number' || !Number.isSafeInteger(r[k]) || (r[k] as number) < 0) return `${k} must be a non-negative integer`;
  if (!isHex(r.sig, 64)) return 'sig must be 128 hex digits';
  const ok = verifyFn(fromHex(r.sig as string), witnessBytes(r as unknown as UnsignedWitnessReceipt), witnessKey);
  return ok ? null : "the signature does not verify under the witness's key";
}

/** What a witness answers for a line it is given. */
export type WitnessAdmission =
  | { readonly ok: true; readonly duplicate: boolean; readonly envelope: Envelope; readonly hash: string }
  | { readonly ok: false; readonly code: string; readonly message: string };

/**
 * A witness's door for one game: every envelope checked as the author's next (SPEC §4.2 checks 1–5 and 8,
 * the ones that need no log: shape, player, signature, game, `seq`, `prev`). `at` and `head` are not
 * checked: the witness holds no log. The setup line is its creator's envelope 0.
 */
export class WitnessBook {
  readonly gameId: string;
  /** The setup's players' keys, then each newcomer's a `newcomer` envelope it took introduced (SPEC §4.6). */
  readonly keys: ReadonlyMap<string, Uint8Array>;
  private readonly keyMap: Map<string, Uint8Array>;
  private newcomers = 0;
  /** Per author, the hash of each envelope held, by seq. */
  private readonly chains = new Map<string, string[]>();

  constructor(
    readonly setupLine: string,
    private readonly verifyFn: VerifyFn = verify,
  ) {
    const { envelope, setup, gameId } = readSetupLine(setupLine, verifyFn);
    this.gameId = gameId;
    this.keyMap = new Map(setup.players.map((p) => [p.id, fromHex(p.key, 'key', 32)]));
    this.keys = this.keyMap;
    const first = prepareLine(0, setupLine, this.keys, verifyFn);
    this.chains.set(envelope.from, [first.hash!]);
  }

  /** How many envelopes of `player` the witness holds. */
  count(player: string): number {
    return this.chains.get(player)?.length ?? 0;
  }

  admit(text: string): WitnessAdmission {
    const refuse = (code: string, message: string): WitnessAdmission => ({ ok: false, code, message });
    const p = prepareLine(0, text, this.keys, this.verifyFn);
    if (p.envelope === null || p.hash === null) return refuse('malformed', `not the canonical text of an envelope: ${p.shapeError ?? 'unreadable'}`);
    const e = p.envelope;
    const key = this.keys.get(e.from);
    if (key === undefined) return refuse('unknown_player', `${e.from} is not a player of this game`);
    if (!p.sigOk) return refuse('bad_signature', `the signature does not verify under ${e.from}'s key`);
    if (e.game !== this.gameId) return refuse('wrong_game', 'an envelope of another game');
    const chain = this.chains.get(e.from) ?? [];
    if (e.seq < chain.length) {
      if (chain[e.seq] === p.hash) return { ok: true, duplicate: true, envelope: e, hash: p.hash };
      return refuse('equivocation', `${e.from} already has another envelope at seq ${e.seq} here`);
    }
    if (e.seq > chain.length) return refuse('bad_position', `${e.from}'s next envelope here is seq ${chain.length}, not ${e.seq}`);
    const prev = e.seq === 0 ? this.gameId : chain[e.seq - 1];
    if (e.prev !== prev) return refuse('broken_chain', `prev is not the hash of ${e.from}'s envelope ${e.seq - 1}`);
    chain.push(p.hash);
    this.chains.set(e.from, chain);
    // As the envelope layer does (SPEC §4.6): the newcomer's envelopes are checked against this key from now on.
    const n = newcomerIn(e.body);
    if (n !== null && !this.keyMap.has(n.id) && this.newcomers < MAX_NEWCOMERS) {
      this.keyMap.set(n.id, fromHex(n.key, 'newcomer key', 32));
      this.newcomers++;
    }
    return { ok: true, duplicate: false, envelope: e, hash: p.hash };
  }
}

/** Throws FairtableError('bad_receipt') unless `value` is a witness receipt signed by `witnessKey`. */
export function checkWitnessReceipt(value: unknown, witnessKey: Uint8Array, verifyFn?: VerifyFn): WitnessReceipt {
  const why = witnessReceiptError(value, witnessKey, verifyFn);
  if (why !== null) throw new FairtableError('bad_receipt', `witness receipt: ${why}`, { field: 'receipt' });
  return value as WitnessReceipt;
}
