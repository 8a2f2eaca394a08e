/**
 * The usual names of Rochambeau's hands for 3 and 5 states (docs/spec/rochambeau.md §1.1), by assigned state
 * 0..N−1, placed so that under the draft's Figure 1 (state I beats J when (J − I) mod N is odd) each hand beats
 * exactly the hands it beats in the game people know: rock, paper, scissors; and rock, paper, scissors, lizard,
 * Spock. Other numbers of states have no names: the state is its number.
 */
const THREE = ['rock', 'scissors', 'paper'] as const;
const FIVE = ['rock', 'lizard', 'Spock', 'scissors', 'paper'] as const;

/** The hands' names by assigned state, or null for a number of states without usual names. */
export function handNames(N: string | number | bigint): readonly string[] | null {
  const n = String(N);
  return n === '3' ? THREE : n === '5' ? FIVE : null;
}

/** "2 (paper)" with 3 or 5 states, else the state's number. */
export function handName(state: string | number | bigint, N: string | number | bigint): string {
  const name = handNames(N)?.[Number(state)];
  return name === undefined ? String(state) : `${String(state)} (${name})`;
}
