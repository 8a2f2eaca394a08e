/**
 * Automatic players' choices (docs/SPEC.md §10.2): what `simulate` and the
 * tests answer when a machine asks its player for a decision. A person
 * answers through the seat (seat/seat.ts); these strategies stand in for one.
 * Random choices are uniform: every draw goes through an unbiased `below`.
 */
import { FairtableError } from '../errors.js';
import type { JsonValue } from '../jcs.js';
import type { Choices, Decision } from '../protocols/machine.js';
import { RandomStream } from '../stream.js';

export type Strategy = (decision: Decision) => JsonValue;

/** A uniform integer in [0, n) for any n ≥ 1, by rejection on whole bytes masked to n's bit length. */
export function belowBig(stream: RandomStream, n: bigint): bigint {
  if (n < 1n) throw new FairtableError('out_of_range', `below: n must be at least 1, got ${n}`, { field: 'n' });
  if (n <= BigInt(2 ** 53)) return BigInt(stream.below(Number(n)));
  const bits = (n - 1n).toString(2).length;
  const octets = Math.ceil(bits / 8);
  const mask = 0xff >> (8 * octets - bits);
  for (;;) {
    const bytes = stream.bytes(octets);
    let v = BigInt(bytes[0]! & mask);
    for (let i = 1; i < octets; i++) v = (v << 8n) | BigInt(bytes[i]!);
    if (v < n) return v;
  }
}

/** A uniformly drawn answer to `choices` (each alternative of an any-of equally likely, then each field). */
export function randomChoice(choices: Choices, stream: RandomStream): JsonValue {
  switch (choices.type) {
    case 'integer': {
      const min = BigInt(choices.min);
      const v = min + belowBig(stream, BigInt(choices.max) - min + 1n);
      return Number.isSafeInteger(Number(v)) ? Number(v) : v.toString();
    }
    case 'one-of':
      return choices.values[stream.below(choices.values.length)]!;
    case 'record': {
      const out: Record<string, JsonValue> = {};
      for (const [k, c] of Object.entries(choices.fields)) out[k] = randomChoice(c, stream);
      return out;
    }
    case 'any-of':
      return randomChoice(choices.options[stream.below(choices.options.length)]!, stream);
    case 'text':
      if (choices.examples.length === 0)
        throw new FairtableError('bad_input', 'a text decision without examples has no automatic answer', { field: 'choices' });
      return choices.examples[stream.below(choices.examples.length)]!;
    case 'list': {
      const items: JsonValue[] = [];
      const keys = new Set<string>();
      for (let n = stream.below(choices.max + 1); n > 0; n--) {
        const item = randomChoice(choices.of, stream);
        const key = JSON.stringify(item);
        if (!keys.has(key)) items.push(item);
        keys.add(key);
      }
      return items;
    }
  }
}

/** Uniformly random legal answers to every decision. */
export function randomStrategy(seed: Uint8Array): Strategy {
  const stream = new RandomStream(seed, 'strategy');
  return (decision) => randomChoice(decision.choices, stream);
}

/**
 * The simulator's default: uniformly random, except that a bettor always bets (it never sits a round
 * out, which would end a short game early) and stakes at most `maxStake`, so a simulated game runs its
 * rounds instead of going broke on the first spin.
 */
export function simStrategy(seed: Uint8Array, maxStake = 10): Strategy {
  const stream = new RandomStream(seed, 'strategy');
  return (decision) => {
    if (decision.kind !== 'bet' || decision.choices.type !== 'any-of') return randomChoice(decision.choices, stream);
    const bets = decision.choices.options.filter((o) => o.type === 'record');
    if (bets.length === 0) return randomChoice(decision.choices, stream);
    const form = bets[stream.below(bets.length)]! as Extract<Choices, { type: 'record' }>;
    const amount = form.fields.amount;
    const capped: Choices =
      amount?.type === 'integer'
        ? { type: 'record', fields: { ...form.fields, amount: { type: 'integer', min: amount.min, max: String(Math.min(Number(amount.max), maxStake)) } } }
        : form;
    return randomChoice(capped, stream);
  };
}
