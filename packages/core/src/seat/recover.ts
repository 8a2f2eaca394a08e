/**
 * What a player decided, read back from the log (docs/SPEC.md §10.2, "A seat follows its key"): a seat
 * rebuilt from the key and the log alone meets its own envelopes there, and finds the answer to each
 * decision by trying the decision's legal choices until one makes the machine sign exactly the body in
 * the log. With the secrets derived from the key (derive.ts) the body of any other choice differs (a
 * commitment to another hand, another bid in the open), so at most one choice fits; the machine is pure,
 * so trying costs nothing but time.
 *
 * A machine that seals the answer to the player's own key in the body (`readBack`, own-answer.ts: Diplomacy's
 * orders and preferences) is asked first. Otherwise only finite choice sets are tried, at most `MAX_TRIES`
 * answers; an answer that cannot be read back leaves the seat unable to follow (another device then watches).
 */
import { canonicalize, type JsonValue } from '../jcs.js';
import type { Body } from '../envelope.js';
import type { Choices, Ctx, Decision, Machine } from '../protocols/machine.js';

/** The most answers tried for one decision. */
export const MAX_TRIES = 4096;

/** Every answer of `choices`, or null when there are more than `cap` (or they cannot be listed). */
export function listChoices(choices: Choices, cap = MAX_TRIES): JsonValue[] | null {
  switch (choices.type) {
    case 'one-of':
      return choices.values.length <= cap ? [...choices.values] : null;
    case 'integer': {
      const min = BigInt(choices.min);
      const max = BigInt(choices.max);
      if (max < min || max - min + 1n > BigInt(cap)) return null;
      const out: JsonValue[] = [];
      // Integers within 2^53 are answered as numbers, larger ones as decimal strings (§7.5).
      for (let v = min; v <= max; v++) out.push(v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= -BigInt(Number.MAX_SAFE_INTEGER) ? Number(v) : v.toString());
      return out;
    }
    case 'any-of': {
      const out: JsonValue[] = [];
      for (const o of choices.options) {
        const part = listChoices(o, cap - out.length);
        if (part === null) return null;
        out.push(...part);
      }
      return out;
    }
    case 'record': {
      let out: { [name: string]: JsonValue }[] = [{}];
      for (const [name, field] of Object.entries(choices.fields)) {
        const values = listChoices(field, cap);
        if (values === null || out.length * values.length > cap) return null;
        out = out.flatMap((r) => values.map((v) => ({ ...r, [name]: v })));
      }
      // An optional member: each answer without it, and with each of its values.
      for (const [name, field] of Object.entries(choices.optional ?? {})) {
        const values = listChoices(field, cap);
        if (values === null || out.length * (values.length + 1) > cap) return null;
        out = out.flatMap((r) => [r, ...values.map((v) => ({ ...r, [name]: v }))]);
      }
      return out;
    }
    case 'text':
    case 'list':
      return null;
  }
}

/**
 * The answer to `decision` that makes `machine` send `body` first from `state` (null may be an answer, so it
 * comes wrapped), or null when no listed
 * answer does (or the choices cannot be listed). `ctx` must give the same draws as the original answer's
 * (the decision's derived source, rebuilt for every try).
 */
export function recoverChoice<S>(machine: Machine<S>, state: S, decision: Decision, body: Body, ctx: () => Ctx): { readonly choice: JsonValue } | null {
  const want = canonicalize(body);
  const fits = (c: JsonValue): boolean => {
    try {
      const out = machine.decide(state, c, ctx()).out;
      return out.length > 0 && canonicalize(out[0]!) === want;
    } catch {
      return false;
    }
  };
  // An answer the machine sealed to the player's own key inside the body, checked like any other.
  const sealed = machine.readBack?.(state, body, ctx()) ?? null;
  if (sealed !== null && fits(sealed)) return { choice: sealed };
  const candidates = listChoices(decision.choices);
  if (candidates === null) return null;
  for (const c of candidates) if (fits(c)) return { choice: c };
  return null;
}
