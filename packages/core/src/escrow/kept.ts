/**
 * Answers of the onion checks kept by the text of their inputs. Every replica of a game in one process (a seat,
 * the audit of its transcript, the simulator's seven seats) checks the same onion heads, background checks and
 * proven exchanges, and each answer is a pure function of those inputs: the second replica reads the first's
 * answer instead of multiplying the same points again. The key is the canonical JSON of every input (RFC 8785:
 * one text for one JSON value), so two inputs share an answer only when they are the same value; an input that
 * is not JSON (no canonical text) is checked afresh. Bounded: cleared when `limit` answers are kept.
 */
import { canonicalize } from '../jcs.js';

/** A keeper of up to `limit` answers: `kept(inputs, check)` runs `check` once per canonical text of `inputs`. */
export function answersKept<T>(limit: number): (inputs: readonly unknown[], check: () => T) => T {
  const answers = new Map<string, T>();
  return (inputs, check) => {
    let id: string;
    try {
      id = canonicalize(inputs);
    } catch {
      return check();
    }
    if (answers.has(id)) return answers.get(id) as T;
    const answer = check();
    if (answers.size >= limit) answers.clear();
    answers.set(id, answer);
    return answer;
  };
}
