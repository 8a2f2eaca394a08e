/**
 * Endings by agreement (docs/spec/diplomacy.md §10.12): a draw, a concession to one power, or a cancel,
 * voted in the orders file a power commits to, so each vote is sealed exactly as orders are and nobody sees
 * another's vote before every vote is in. A vote is a line of its own:
 *
 *     VOTE DRAW            the game ends in a draw shared by every power still in it
 *     VOTE CONCEDE FRANCE  the game ends with France the sole winner
 *     VOTE CANCEL          the game ends with no result
 *     VOTE PAUSE           the next phase has no deadline until a power sends its orders
 *
 * An ending is agreed in a phase when every voter cast the same vote (for a concession: every voter but the
 * power conceded to). The voters are the powers held by a player still in the game and still on the board
 * when the phase is adjudicated; a power in civil disorder has nobody to vote for it and does not block an
 * ending (the draw still includes it). A file with more than one VOTE line, or a VOTE line the rules do not
 * know, votes nothing: the file is its author's own business, so that is no violation, only no vote. Votes
 * never enter the adjudication.
 */
import { FairtableError } from '@fairtable/core/errors.js';

export type Vote = { readonly kind: 'draw' } | { readonly kind: 'cancel' } | { readonly kind: 'pause' } | { readonly kind: 'concede'; readonly to: string };

/** An agreed ending, as the game's events and outcome carry it. */
export type Ending = Vote;

const VOTE_LINE = /^VOTE\b/i;

/** Whether a line of an orders file is a vote rather than an order. */
export function isVoteLine(line: string): boolean {
  return VOTE_LINE.test(line.trim());
}

/** The vote a line casts, or null for a line that is not a vote the rules know. `powers` are the map's powers. */
export function parseVote(line: string, powers: readonly string[]): Vote | null {
  const words = line.trim().toUpperCase().split(/\s+/);
  if (words[0] !== 'VOTE') return null;
  if (words.length === 2 && words[1] === 'DRAW') return { kind: 'draw' };
  if (words.length === 2 && words[1] === 'CANCEL') return { kind: 'cancel' };
  if (words.length === 2 && words[1] === 'PAUSE') return { kind: 'pause' };
  if (words.length === 3 && words[1] === 'CONCEDE') {
    const to = powers.find((p) => p.toUpperCase() === words[2]);
    return to === undefined ? null : { kind: 'concede', to };
  }
  return null;
}

/** The line that casts a vote, as the front ends write it. */
export function voteLine(vote: Vote): string {
  return vote.kind === 'concede' ? `VOTE CONCEDE ${vote.to.toUpperCase()}` : `VOTE ${vote.kind.toUpperCase()}`;
}

/** A vote as a decision's answer names it: 'draw', 'cancel', 'concede:France'; 'none' for none. */
export function voteFromAnswer(answer: string, powers: readonly string[]): Vote | null {
  if (answer === 'none') return null;
  if (answer === 'draw' || answer === 'cancel' || answer === 'pause') return { kind: answer };
  const to = answer.startsWith('concede:') ? powers.find((p) => p === answer.slice('concede:'.length)) : undefined;
  if (to === undefined) throw new FairtableError('illegal_choice', `vote: "${answer}" is not a vote (draw, cancel or concede:<power>)`, { field: 'vote' });
  return { kind: 'concede', to };
}

/** The answer naming a vote ('draw', 'cancel', 'concede:France'). */
export function voteAnswer(vote: Vote): string {
  return vote.kind === 'concede' ? `concede:${vote.to}` : vote.kind;
}

/** The votes a power may cast in a phase, as a decision's one-of: none first, then draw, cancel, and a concession to each other power on the board. */
export function voteValues(me: string, onBoard: readonly string[]): string[] {
  return ['none', 'draw', 'cancel', 'pause', ...onBoard.filter((p) => p !== me).map((p) => `concede:${p}`)];
}

/** An orders file's lines split into its orders and its vote (null: none, or more than one VOTE line, or one not known). */
export function splitVotes(lines: readonly string[], powers: readonly string[]): { orders: string[]; vote: Vote | null } {
  const orders = lines.filter((l) => !isVoteLine(l));
  const votes = lines.filter(isVoteLine);
  return { orders, vote: votes.length === 1 ? parseVote(votes[0]!, powers) : null };
}

const same = (a: Vote, b: Vote): boolean => a.kind === b.kind && (a.kind !== 'concede' || (b.kind === 'concede' && a.to === b.to));

/**
 * The ending the voters agree on, or null. `votes` are by power, for every voter (null: no vote);
 * `inGame` tells whether a power is still on the board (a concession goes only to such a power).
 */
export function agreedEnding(votes: ReadonlyMap<string, Vote | null>, inGame: (power: string) => boolean): Ending | null {
  const voters = [...votes.keys()];
  if (voters.length === 0) return null;
  const first = votes.get(voters[0]!) ?? null;
  // A concession: every voter but the power conceded to concedes to it (its own vote does not count).
  const concede = [...votes.values()].find((v): v is Extract<Vote, { kind: 'concede' }> => v?.kind === 'concede');
  if (concede !== undefined && inGame(concede.to)) {
    const others = voters.filter((p) => p !== concede.to);
    if (
      others.length > 0 &&
      others.every((p) => {
        const v = votes.get(p) ?? null;
        return v !== null && same(v, concede);
      })
    )
      return concede;
  }
  if (first === null || first.kind === 'concede') return null;
  return voters.every((p) => {
    const v = votes.get(p) ?? null;
    return v !== null && same(v, first);
  })
    ? first
    : null;
}

/** The ending in words, for events and front ends. */
export function endingWords(e: Ending): string {
  switch (e.kind) {
    case 'draw':
      return 'a draw agreed by every power still playing';
    case 'cancel':
      return 'cancelled by every power still playing: no result';
    case 'pause':
      return 'paused by every power still playing: the next phase has no deadline until somebody sends orders';
    case 'concede':
      return `every other power conceded to ${e.to}`;
  }
}
