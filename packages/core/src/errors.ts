/**
 * Errors and violations.
 *
 * Two different things go wrong in fairtable and they are kept apart:
 * - a `FairtableError` is thrown when a caller hands us something unusable
 *   (bad hex, a key of the wrong length, an unknown option). It has a stable
 *   `code` and names the field that was wrong.
 * - a `Violation` is a finding about a game: a player broke a protocol rule.
 *   It names the player, the transcript position and the evidence, and is
 *   returned as data, never thrown. See docs/SPEC.md §Violations.
 */

export type ErrorCode =
  | 'bad_input'
  | 'bad_hex'
  | 'bad_length'
  | 'bad_json'
  // a transcript whose line 0 is not a setup its creator signed at its first position (docs/SPEC.md §4.1)
  | 'bad_setup'
  | 'not_canonical'
  | 'bad_key_file'
  | 'bad_armor'
  | 'bad_checksum'
  | 'unknown_protocol'
  | 'out_of_range'
  | 'illegal_choice'
  | 'bad_receipt'
  | 'bad_share'
  | 'unknown_game'
  // a setup naming a witness URL no client may post to (docs/spec/relay.md §8)
  | 'bad_witness_url'
  // the door: what an orderer refuses at submission (docs/SPEC.md §10.1)
  | 'refused'
  // verifiable random functions (docs/spec/vrf.md)
  | 'bad_proof'
  | 'bad_public_key'
  | 'weak_key'
  // Signidice (docs/spec/signidice.md)
  | 'non_unique_signature'
  // the table over TCP and its clients (docs/SPEC.md §10.4)
  | 'bad_message'
  /** Press the game's rules forbid (docs/spec/press.md §2): none at all, or private press in a public-only game. */
  | 'no_press'
  | 'bad_hello'
  | 'line_too_long'
  | 'rate_limited'
  | 'slow_reader'
  | 'hello_timeout'
  | 'too_many_connections'
  | 'too_many_connections_from_address'
  | 'connection_refused'
  | 'connection_failed'
  | 'connection_closed'
  | 'table_silent'
  | 'bad_challenge'
  | 'wrong_table'
  | 'bad_journal'
  | 'store_failed'
  // the relay on Postgres (docs/spec/relay.md §4): a game's lease taken over by another process; a schema newer than the code
  | 'lease_lost'
  | 'schema_too_new'
  // games partitioned across several Postgres databases (relay.md §4, "Beyond one Postgres"): a process given them in another order
  | 'shard_mismatch'
  // the command line: a cheat its cheater cannot commit
  | 'bad_cheater'
  // Diplomacy (docs/spec/diplomacy.md)
  | 'bad_order'
  | 'illegal_order'
  // more builds or removals in an orders file than are due (docs/spec/diplomacy-by-hand.md §2)
  | 'too_many_orders'
  | 'unknown_province'
  | 'bad_position'
  | 'game_over'
  // `play --ask`: standard input ended before a decision was answered (docs/spec/diplomacy-by-hand.md §1)
  | 'no_answer'
  // OpenPGP (docs/spec/pgp.md): unreadable input, thrown
  | 'bad_pgp_key'
  | 'bad_pgp_data'
  | 'pgp_locked_key'
  | 'pgp_cannot_decrypt'
  // OpenPGP (docs/spec/pgp.md): why a signature or binding is not valid, returned in a verdict
  | 'bad_pgp_signature'
  | 'pgp_wrong_signer'
  | 'pgp_key_unusable'
  | 'bad_binding'
  // a dice expression (3d6+2, 4d6kh3) that cannot be read or is over the limits (docs/spec/dice.md)
  | 'bad_dice_expression';

export class FairtableError extends Error {
  readonly code: ErrorCode;
  readonly field: string | undefined;
  constructor(code: ErrorCode, message: string, options?: { field?: string; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'FairtableError';
    this.code = code;
    this.field = options?.field;
  }
}

/** A transcript that cannot be audited at all (docs/SPEC.md §4.1): no usable setup, no line 0. */
export class TranscriptError extends FairtableError {}

/** Stable violation codes; the same strings appear in the API, the CLI and on the wire. */
export type ViolationCode =
  // envelope layer
  | 'malformed'
  | 'bad_signature'
  | 'unknown_player'
  | 'wrong_game'
  | 'bad_position'
  | 'broken_chain'
  | 'equivocation'
  /** The log itself shows it was altered after its envelopes were signed: names nobody (docs/SPEC.md §4.4). */
  | 'altered_log'
  // protocol layer
  | 'out_of_turn'
  | 'unexpected_message'
  | 'duplicate_commit'
  | 'commit_mismatch'
  | 'commit_set_mismatch'
  | 'withheld'
  | 'false_deadline_claim'
  | 'wrong_result'
  | 'bad_key'
  | 'audit_mismatch'
  | 'copied_commitment'
  /** A decision a game refuses (docs/SPEC.md §7.7): the game takes the decision's default instead. */
  | 'illegal_answer'
  // Signidice (docs/spec/signidice.md)
  | 'bad_vrf_proof'
  | 'key_swap'
  | 'reused_r'
  | 'rejected_bet'
  // Rochambeau (docs/spec/rochambeau.md)
  | 'bad_payload'
  // Diplomacy (docs/spec/diplomacy.md §10): a seat signed another position than the one the revealed orders give
  | 'position_mismatch'
  // escrow (docs/spec/escrow.md): a published share that does not match its dealer's commitments
  | 'bad_share'
  // Diplomacy's gpg-only players (docs/spec/diplomacy.md §11): a seat carried, as such a player's commitment, what is not that player's
  | 'bad_carry'
  // layered escrow (docs/spec/escrow.md §3): an onion its owner sealed wrong, or whose core is not the value revealed
  | 'bad_layer'
  // the orderer, named by its own receipts (docs/spec/relay.md §9)
  | 'relay_forked'
  | 'relay_censored'
  /** The orderer's receipt times go backwards along its log (docs/spec/time.md §3): names the relay, never a player. */
  | 'relay_clock'
  /** With the relay's clock not trusted, the players' times and the receipt times disagree about a deadline: names nobody (time.md §3). */
  | 'clock_disagreement'
  | 'receipt_mismatch'
  // a deck nobody controls (docs/spec/deck.md §6)
  | 'bad_key_share'
  | 'reused_key'
  | 'bad_shuffle'
  | 'bad_decryption_share'
  | 'card_not_dealt';

export interface Evidence {
  /** 0-based line of the transcript the envelope stands on, when known. */
  readonly line?: number;
  /** Envelope hash (hex). */
  readonly hash?: string;
  /** The envelope itself, as it stands in the transcript. */
  readonly envelope?: unknown;
  /** Free text a third party can check against the envelopes. */
  readonly note?: string;
}

/**
 * What a finding says of its player (docs/SPEC.md §12): `rule`, a rule broken (two histories signed, a
 * commitment opened wrongly, a reveal withheld by one who could see what it decides); `absence`, a
 * deadline missed where going silent gained nothing (the game took its default and went on). A verdict's
 * `valid` is about rules only.
 */
export type ViolationKind = 'rule' | 'absence';

export interface Violation {
  readonly code: ViolationCode;
  /** `absence` for a missed deadline that steered nothing; a rule broken when absent. */
  readonly kind?: ViolationKind;
  /** The player responsible, or null when the transcript alone cannot say. */
  readonly player: string | null;
  /** Transcript line (0-based) where the violation shows. */
  readonly seq: number;
  readonly message: string;
  readonly evidence: readonly Evidence[];
  /** The orderer (relay public key, hex) its own receipts name, for the relay's codes (docs/spec/relay.md §9). */
  readonly relay?: string;
}

/** A finding's kind: `absence` only where its machine said so. */
export function violationKind(v: Pick<Violation, 'kind'>): ViolationKind {
  return v.kind ?? 'rule';
}
