/**
 * One schema per message type (docs/SPEC.md §7.6): the shape every body of a protocol must have before its
 * machine reads it. The referee checks a body against its machine's schema for the body's type; a body of
 * a known type that does not fit is `unexpected_message`, naming its signer and the member that is wrong,
 * and the machine never sees it. So a machine reads typed members, never guesses at them, and no signed
 * body can crash a seat. Formats that carry their own violation codes (a key that is not a key, a bet the
 * wheel does not know) are the machines' to judge: the schemas check types.
 */
import * as z from 'zod/mini';

/** A schema as the referee uses it: only `safeParse`. */
export interface MessageSchema {
  safeParse(
    value: unknown,
  ): { success: true } | { success: false; error: { issues: readonly { path: readonly PropertyKey[]; message: string; code?: string }[] } };
}

export type MessageSchemas = Readonly<Record<string, MessageSchema>>;

const round = z.int().check(z.minimum(0));
const text = z.string();
const opening = z.object({ nonce: text, value: z.unknown() });
const players = z.array(text);

export const DEADLINE = z.object({ type: z.literal('deadline'), phase: text, round, missing: players });

/**
 * Agreed deadline extensions (docs/SPEC.md §7.4.1), for every protocol: the referee checks these before it
 * reads them, whatever the machine.
 */
export const EXTENSION_MESSAGES: MessageSchemas = {
  extend: z.object({ type: z.literal('extend'), phase: text, until: z.int().check(z.minimum(0)) }),
  'extend-accept': z.object({ type: z.literal('extend-accept'), phase: text, until: z.int().check(z.minimum(0)) }),
};

const sealedShare = z.object({ ephemeral: text, box: text });

// Seed 003's layers (docs/spec/escrow.md §3): the outer layer travels in the commit; its members are checked by the machine.
const onion = z.object({ ephemeral: text, pok: text, layer: z.object({ to: players, boxes: z.array(text), keyHash: text, body: text }) });

export const BEACON_MESSAGES: MessageSchemas = {
  commit: z.object({
    round,
    commitment: text,
    escrow: z.optional(z.object({ commitments: z.array(text), shares: z.array(sealedShare) })),
    onion: z.optional(onion),
  }),
  reveal: z.object({ round, commitSet: text, opening, seed: z.optional(text) }),
  // Layered escrow: a member's exchange for a layer of a withheld value, with its proof.
  peel: z.object({ round, owner: text, shared: text, proof: text }),
  // Threshold escrow (docs/spec/escrow.md §2): each player's word on the shares dealt to it, and a share in the clear.
  check: z.object({ round, commitSet: text, complaints: players }),
  share: z.object({ round, dealer: text, seat: text, share: text }),
  deadline: DEADLINE,
};

export const CHAIN_MESSAGES: MessageSchemas = {
  join: z.object({ commitment: text }),
  ready: z.object({ commitSet: z.unknown(), fresh: text }),
  move: z.object({ turn: round, opening, commitment: text, fresh: text, action: z.unknown(), draws: z.array(z.tuple([z.number(), z.number()])) }),
  answer: z.object({ turn: round, choice: z.unknown(), fresh: z.optional(text) }),
  seal: z.object({ turn: round, commitment: text, fresh: z.optional(text) }),
  unseal: z.object({ turn: round, opening, fresh: z.optional(text) }),
  fresh: z.object({ turn: round, fresh: text }),
  deadline: DEADLINE,
};

export const KEYED_STREAM_MESSAGES: MessageSchemas = {
  'stream-key': z.object({ key: z.unknown() }),
  turn: z.object({ turn: round, roll: z.nullable(z.object({ turn: z.unknown(), draws: z.unknown() })), x: z.optional(z.nullable(z.number())) }),
  audit: z.object({ secret: z.unknown(), key: z.optional(z.unknown()) }),
  'audit-request': z.object({ players }),
  x: z.object({ turn: round, x: z.number() }),
  roll: z.object({ turn: round, draws: z.array(z.tuple([z.number(), z.number()])) }),
  answer: z.object({ turn: round, choice: z.unknown() }),
  seal: z.object({ turn: round, commitment: text }),
  unseal: z.object({ turn: round, opening }),
  deadline: DEADLINE,
};

export const ROCHAMBEAU_MESSAGES: MessageSchemas = {
  commit: z.object({ attempt: round, payload: text, escrow: z.optional(z.object({ commitments: z.array(text), shares: z.array(sealedShare) })) }),
  reveal: z.object({ attempt: round, payload: text }),
  // Threshold escrow (docs/spec/rochambeau.md §11): each player's word on the shares dealt to it, and a share in the clear.
  check: z.object({ attempt: round, complaints: players }),
  share: z.object({ attempt: round, dealer: text, seat: text, share: text }),
  deadline: DEADLINE,
};

export const SIGNIDICE_MESSAGES: MessageSchemas = {
  bet: z.object({ round, bet: z.unknown(), r: text, hr: text }),
  pass: z.object({ round }),
  sign: z.object({ round, player: text, key: z.unknown(), pi: text }),
  hr: z.object({ round, opening }),
  deadline: DEADLINE,
};

/** Why `body` does not fit its type's schema, or null when it does (or its type has none: the machine judges it). */
export function bodyProblem(schemas: MessageSchemas | undefined, body: { readonly type: string }): string | null {
  const schema = schemas !== undefined && Object.hasOwn(schemas, body.type) ? schemas[body.type] : undefined;
  if (schema === undefined) return null;
  const r = schema.safeParse(body);
  if (r.success) return null;
  return r.error.issues
    .slice(0, 3)
    .map((i) => `${i.path.length === 0 ? 'the body' : i.path.map(String).join('.')}: ${i.code ?? 'invalid'} (${i.message})`)
    .join('; ');
}
