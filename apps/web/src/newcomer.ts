/**
 * A newcomer taking over an absent Diplomacy power from the browser (docs/spec/diplomacy.md §10.15, "Front ends"):
 * the newcomer file, the same JSON `fairtable diplomacy newcomer-consent` prints, so that the command line and the
 * web app hand it to each other; the powers in civil disorder; whether the log proposed a newcomer yet. Loaded
 * with the Diplomacy page only.
 */
import { fromHex, isHex } from '@fairtable/core/bytes.js';
import { verify } from '@fairtable/core/identity.js';
import { newcomerIn, readSetupLine } from '@fairtable/core/transcript.js';
import { consentBytes, HANDOVER_MESSAGES, newcomerConsent, type DiplomacyState, type Newcomer } from '@fairtable/diplomacy/protocol/index.js';
import { alive, map } from '@fairtable/diplomacy/protocol/state.js';

/** The newcomer file: the game, the power, the newcomer and its consent (the CLI's `NewcomerFile`). */
export interface NewcomerFile {
  readonly type: 'fairtable-newcomer';
  readonly game: string;
  readonly power: string;
  readonly newcomer: Newcomer & { readonly consent: string };
}

/** The newcomer file of `who` for `power` in `gameId`, its consent signed with `secretKey`, as the CLI writes it. */
export function makeNewcomerFile(gameId: string, power: string, who: Newcomer, secretKey: Uint8Array): NewcomerFile {
  const consent = newcomerConsent(gameId, power, who, secretKey);
  return { type: 'fairtable-newcomer', game: gameId, power, newcomer: { id: who.id, key: who.key, name: who.name, consent } };
}

/** The text the page shows to copy: one line of JSON, as `newcomer-consent` prints it. */
export const newcomerFileText = (file: NewcomerFile): string => JSON.stringify(file);

/**
 * Reads a pasted newcomer file for game `gameId`: the file, or the words that say what is wrong with it (not a
 * newcomer file, another game's, a consent its key did not sign).
 */
export function readNewcomerFile(text: string, gameId: string): NewcomerFile | string {
  let v: Partial<NewcomerFile> | null;
  try {
    v = JSON.parse(text) as Partial<NewcomerFile> | null;
  } catch {
    return 'This is not a newcomer file: it is not JSON.';
  }
  const shape = HANDOVER_MESSAGES.newcomer.safeParse({ type: 'newcomer', power: v?.power, newcomer: v?.newcomer });
  if (v === null || typeof v !== 'object' || v.type !== 'fairtable-newcomer' || !isHex(v.game, 32) || !shape.success)
    return 'This is not a newcomer file (the newcomer makes one on the game page, or with fairtable diplomacy newcomer-consent).';
  if (v.game !== gameId) return `This newcomer file is for game ${v.game.slice(0, 12)}…, not this one.`;
  const file: NewcomerFile = { type: 'fairtable-newcomer', game: v.game, power: shape.data.power, newcomer: shape.data.newcomer };
  const { consent, ...who } = file.newcomer;
  if (!verify(fromHex(consent), consentBytes(file.game, file.power, who), fromHex(who.key)))
    return `The consent in this file is not signed by ${who.id}'s key for ${file.power} in this game: it is not the newcomer's.`;
  return file;
}

/** A key's fingerprint as the players compare it by voice or chat: its first 16 hex digits, in groups of four. */
export const fingerprint = (key: string): string => (key.slice(0, 16).match(/.{1,4}/g) ?? []).join(' ');

/** The powers in civil disorder: on the board still, held by no player. */
export function powersInDisorder(s: DiplomacyState): string[] {
  const held = new Set(Object.values(s.powers));
  return map.powers.filter((p) => !held.has(p) && alive(s.position, p));
}

/**
 * Whether the log `lines` (the transcript's lines, setup first) holds a proposal of `id` with `key`: 'proposed',
 * 'waiting' while none does, or the words that say why this newcomer cannot join (the id is a player of the
 * setup already, or the log made it an author with another key).
 */
export function proposalFor(lines: readonly string[], id: string, key: string): 'proposed' | 'waiting' | string {
  const [first, ...rest] = lines;
  if (first === undefined) return 'waiting';
  if (readSetupLine(first).setup.players.some((p) => p.id === id)) return `${id} is a player of this game already: play it as a player.`;
  for (const text of rest) {
    let body: unknown;
    try {
      body = (JSON.parse(text) as { body?: unknown }).body;
    } catch {
      continue;
    }
    if (body === null || typeof body !== 'object' || typeof (body as { type?: unknown }).type !== 'string') continue;
    const n = newcomerIn(body as Parameters<typeof newcomerIn>[0]);
    if (n === null || n.id !== id) continue;
    if (n.key !== key) return `The log made ${id} a newcomer with another key (${fingerprint(n.key)}…): choose another name.`;
    return 'proposed';
  }
  return 'waiting';
}
