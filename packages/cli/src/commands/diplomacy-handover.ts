/**
 * A newcomer takes over an absent Diplomacy power from the command line (docs/spec/diplomacy.md §10.15,
 * "Front ends"):
 *
 *   fairtable diplomacy newcomer-consent --game ID --power P --key newcomer.json [--name NAME]
 *     the newcomer's signed consent, as a newcomer file (JSON on stdout) to hand to a player by any channel;
 *   fairtable play --relay URL --key KEY --join ID --propose-newcomer FILE
 *     a player's seat proposes the newcomer once the file's power is held by nobody (civil disorder);
 *   fairtable play --relay URL --key KEY --join ID --approve-newcomer KEY_HEX|PUBLIC_KEY_FILE|NEWCOMER_FILE
 *     a player's seat approves an open proposal of that newcomer key, and no other;
 *   fairtable play --relay URL --key newcomer.json --join ID --as-newcomer
 *     the newcomer waits until a proposal naming its id and key stands in the log (the relay admits it only
 *     from then on), then plays its seat: the machine gives it the power from the round after the last approval.
 *
 * A seat never proposes or approves anyone its player did not name with these flags.
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { RelayGame } from '@fairtable/client';
import { fromHex, isHex, toHex } from '@fairtable/core/bytes.js';
import { verify } from '@fairtable/core/identity.js';
import { parseJson } from '@fairtable/core/jcs.js';
import { newcomerIn, readSetupLine } from '@fairtable/core/transcript.js';
import { standardMap } from '@fairtable/diplomacy';
import {
  approveBody,
  consentBytes,
  HANDOVER_MESSAGES,
  newcomerBody,
  newcomerConsent,
  openHandovers,
  proposalHash,
  type DiplomacyState,
  type Newcomer,
} from '@fairtable/diplomacy/protocol/index.js';
import { fail, failWith } from '../io.js';
import { readKeyFile, readPublicKeyFile } from '../key-files.js';

/** What `newcomer-consent` prints: the game, the power, the newcomer and its consent. */
export interface NewcomerFile {
  readonly type: 'fairtable-newcomer';
  readonly game: string;
  readonly power: string;
  readonly newcomer: Newcomer & { readonly consent: string };
}

/** What this seat's player asked of it: a newcomer to propose, newcomer keys to approve. */
export interface HandoverPlan {
  readonly propose: NewcomerFile | null;
  readonly approve: ReadonlySet<string>;
}

/** Reads a newcomer file; exits 2 with `[bad_newcomer]` for one that is not, `[bad_consent]` for a consent its key did not sign. */
export function readNewcomerFile(path: string): NewcomerFile {
  let value: unknown;
  try {
    value = parseJson(readFileSync(path, 'utf8'), 'newcomer file');
  } catch (e) {
    failWith(e);
  }
  const v = value as Partial<NewcomerFile> | null;
  const shape = HANDOVER_MESSAGES.newcomer.safeParse({ type: 'newcomer', power: v?.power, newcomer: v?.newcomer });
  if (v === null || typeof v !== 'object' || v.type !== 'fairtable-newcomer' || !isHex(v.game, 32) || !shape.success)
    fail(`[bad_newcomer] ${path} is not a newcomer file (fairtable diplomacy newcomer-consent writes one)`);
  const file = { type: v.type, game: v.game, power: shape.data.power, newcomer: shape.data.newcomer };
  const { consent, ...who } = file.newcomer;
  if (!verify(fromHex(consent), consentBytes(file.game, file.power, who), fromHex(who.key)))
    fail(`[bad_consent] ${path}: the consent does not verify under ${who.id}'s key for ${file.power} in game ${file.game}: it is not the newcomer's`);
  return file;
}

/** Whether `path` holds a public key file (keygen's), rather than a newcomer file. */
function publicKeyFile(path: string): boolean {
  try {
    return (JSON.parse(readFileSync(path, 'utf8')) as { type?: unknown } | null)?.type === 'fairtable-public-key';
  } catch {
    return false;
  }
}

/** The plan from `play`'s flags, for the game `gameId`; exits 2 with a coded line for flags that do not fit it. */
export function handoverPlan(opts: { proposeNewcomer?: string; approveNewcomer?: string[] }, gameId: string | undefined): HandoverPlan {
  // A consent names its game: only a game that exists has newcomers to propose. A key to approve may be known before.
  if (opts.proposeNewcomer !== undefined && gameId === undefined) fail('[bad_input] --propose-newcomer is for a game that exists (--join or --resume)');
  const propose = opts.proposeNewcomer === undefined ? null : readNewcomerFile(opts.proposeNewcomer);
  if (propose !== null && propose.game !== gameId) fail(`[bad_newcomer] ${opts.proposeNewcomer} is a consent for game ${propose.game}, not ${gameId}`);
  const approve = new Set<string>();
  for (const a of opts.approveNewcomer ?? []) {
    if (isHex(a.toLowerCase(), 32)) approve.add(a.toLowerCase());
    else if (publicKeyFile(a)) approve.add(readPublicKeyFile(a, 'approve-newcomer').key);
    else approve.add(readNewcomerFile(a).newcomer.key);
  }
  // The proposer's proposal is its approval (§10.15, rule 1).
  if (propose !== null) approve.add(propose.newcomer.key);
  return { propose, approve };
}

/**
 * Proposes and approves what `plan` names, each once, as the seat's state allows: the proposal when this
 * player is active and the power is held by nobody, an approval when an open proposal of a named key waits for it.
 */
export function attachHandover(game: RelayGame, plan: HandoverPlan, say: (text: string) => void): void {
  if (plan.propose === null && plan.approve.size === 0) return;
  let proposed = false;
  const approved = new Set<string>();
  const look = (): void => {
    const seat = game.seat;
    const s = seat?.referee.state as DiplomacyState | null | undefined;
    if (seat == null || s == null || typeof s !== 'object' || s.handovers === undefined) return;
    if (s.phase === 'done' || s.stage !== 'play' || !s.active.includes(game.id)) return;
    const p = plan.propose;
    if (p !== null && !proposed) {
      const { consent, ...who } = p.newcomer;
      const hash = proposalHash(game.gameId, p.power, who);
      if (!Object.values(s.powers).includes(p.power) && s.handovers[hash] === undefined && !s.closed.includes(hash)) {
        proposed = true;
        approved.add(hash);
        seat.sendUnasked(newcomerBody(p.power, who, consent));
        say(`proposing ${who.name} (${who.id}, key ${who.key.slice(0, 16)}…) for ${p.power}, which nobody holds`);
      }
    }
    for (const o of openHandovers(s)) {
      if (!plan.approve.has(o.handover.key) || !o.waitingFor.includes(game.id) || approved.has(o.proposal)) continue;
      approved.add(o.proposal);
      seat.sendUnasked(approveBody(o.proposal));
      say(`approving ${o.handover.name} (${o.handover.id}) for ${o.handover.power}, proposed by ${o.handover.proposer}`);
    }
  };
  // After the seat has taken the line in (the client tells of a line before its seat reads it).
  game.on('line', () => setImmediate(look));
}

/**
 * Waits until the log of `gameId` holds a `newcomer` line naming `id` with `key` (SPEC §4.6), reading the
 * transcript every second for at most `waitMs`. Exits 2 when the id is a player of the setup, when the log
 * made it an author with another key, or when no proposal came in time. What is read here is only a cue to
 * connect, so the receipts are not fetched with it (a live log grows between two requests): the seat checks
 * every line and its receipt once it plays, as any seat does.
 */
export async function waitToBeIntroduced(
  relayUrl: string,
  gameId: string,
  id: string,
  key: string,
  waitMs: number,
  say: (text: string) => void,
): Promise<void> {
  const url = new URL(`games/${gameId}/transcript`, relayUrl.endsWith('/') ? relayUrl : `${relayUrl}/`).toString();
  const until = Date.now() + waitMs;
  let told = false;
  for (;;) {
    let lines: string[] = [];
    try {
      const r = await fetch(url);
      if (r.status === 404) fail(`[unknown_game] no game ${gameId} on this relay`);
      if (r.ok) lines = (await r.text()).split('\n').filter((l) => l.trim() !== '');
    } catch (e) {
      // Unreachable for now: asked again until the wait is over.
      if (Date.now() >= until) failWith(e);
    }
    if (lines[0] !== undefined && readSetupLine(lines[0]).setup.players.some((p) => p.id === id))
      fail(`[bad_input] ${id} is a player of game ${gameId} already: play it without --as-newcomer`);
    for (const [at, text] of lines.entries()) {
      if (at === 0) continue;
      let n: ReturnType<typeof newcomerIn> = null;
      try {
        n = newcomerIn((JSON.parse(text) as { body: { type: string } }).body);
      } catch {
        n = null;
      }
      if (n === null || n.id !== id) continue;
      if (n.key !== key) fail(`[bad_newcomer] the log of game ${gameId} made ${id} an author with another key (${n.key.slice(0, 16)}…)`);
      say(`a player proposed us at line ${at}: the relay admits our seat from then on`);
      return;
    }
    if (Date.now() >= until) fail(`[not_proposed] no player proposed ${id} with this key in game ${gameId} within ${waitMs} ms`);
    if (!told) say('waiting for a player to propose us (give them our newcomer file)');
    told = true;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** `fairtable diplomacy newcomer-consent`. */
export function registerNewcomerConsent(diplomacy: Command): void {
  diplomacy
    .command('newcomer-consent')
    .requiredOption('--game <id>', 'the game (64 hex digits)')
    .requiredOption('--power <power>', 'the power to take over, e.g. france')
    .requiredOption('--key <file>', "the newcomer's key file (fairtable keygen): its name is the newcomer's id in the game")
    .option('--name <name>', "the name the players know the newcomer by (default: the key's name)")
    .description("a newcomer's signed consent to take over an absent power, as a newcomer file (JSON) for a player to propose (§10.15)")
    .action((options: { game: string; power: string; key: string; name?: string }) => {
      if (!isHex(options.game, 32)) fail('[bad_hex] --game must be a game id (64 hex digits)');
      const power = options.power.toLowerCase();
      if (!standardMap.powers.includes(power)) fail(`[bad_input] unknown power ${power}: one of ${standardMap.powers.join(', ')}`);
      let me: ReturnType<typeof readKeyFile>;
      try {
        me = readKeyFile(options.key);
      } catch (e) {
        failWith(e);
      }
      const name = options.name ?? me.name;
      if (name.length < 1 || name.length > 64) fail('[bad_input] --name must be 1 to 64 characters');
      const who: Newcomer = { id: me.name, key: toHex(me.keys.publicKey), name };
      const consent = newcomerConsent(options.game.toLowerCase(), power, who, me.keys.secretKey);
      const file: NewcomerFile = { type: 'fairtable-newcomer', game: options.game.toLowerCase(), power, newcomer: { ...who, consent } };
      process.stdout.write(`${JSON.stringify(file)}\n`);
    });
}
