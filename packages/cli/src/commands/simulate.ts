/**
 * `fairtable simulate PROTOCOL`: honest or cheating players on the in-memory
 * network; writes the transcript. A cheat must be one its cheater can commit
 * in the protocol: the house's cheats are the house's (and default to it), the
 * players' Signidice cheats are a player's, and a cheat that leaves no trace
 * in the transcript (nothing the auditor names the cheater for) is refused
 * with `bad_cheater` rather than written as an honest game. `diplomacy` is
 * simulated through the core's simulator with the Diplomacy machine, its
 * registry and its own cheats injected (docs/spec/diplomacy.md §10.7).
 * The players sign, and the simulator's audits check, with Node's OpenSSL Ed25519 (packages/node's fast path:
 * the same signatures as noble's, and noble's verdict wherever OpenSSL says no).
 */
import { writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { fromHex, randomBytes, toHex } from '@fairtable/core/bytes.js';
import { simulate, SIM_PROTOCOLS, CHEATS, GENERIC_CHEATS, type Cheat } from '@fairtable/core/testing';
import { cliRegistry } from '../registry.js';
import { diplomacySim, DIPLOMACY_CHEATS } from '@fairtable/diplomacy/protocol/sim.js';
import { holdemSim, holdemStrategy, HOLDEM_CHEATS } from '@fairtable/core/protocols/holdem/sim.js';
import { eightsSim, eightsStrategy, EIGHTS_CHEATS } from '@fairtable/core/protocols/crazy-eights/sim.js';
import { taggedHash } from '@fairtable/core/hash.js';
import { BUILTIN_GAMES } from '@fairtable/core/games/index.js';
import { Auditor, auditLines } from '@fairtable/core/audit.js';
import type { RefereeOptions } from '@fairtable/core/referee.js';
import { HOUSE } from '@fairtable/core/signidice/arbiter.js';
import { nativeSign, nativeVerify } from '@fairtable/node/native-verify.js';
import { fail, failWith } from '../io.js';

/**
 * Who commits `cheat`: the house's cheats are the house's (the default cheater
 * for them), the players' Signidice cheats a player's, and either kind exists
 * only in Signidice. Exits with `bad_cheater` for a cheat its cheater cannot commit.
 */
const PROTOCOLS: readonly string[] = [...SIM_PROTOCOLS, 'diplomacy', 'holdem', 'crazy-eights'];
const ALL_CHEATS: readonly string[] = [...new Set([...CHEATS, ...DIPLOMACY_CHEATS, ...HOLDEM_CHEATS, ...EIGHTS_CHEATS])];

function cheaterFor(protocol: string, cheat: string, cheater: string | undefined): string {
  if ((DIPLOMACY_CHEATS as readonly string[]).includes(cheat)) {
    if (protocol !== 'diplomacy') fail(`[bad_cheater] "${cheat}" is a Diplomacy cheat; ${protocol} has no such move`);
    return cheater ?? 'p1';
  }
  if (protocol === 'crazy-eights') {
    if (!(EIGHTS_CHEATS as readonly string[]).includes(cheat) && !(GENERIC_CHEATS as readonly string[]).includes(cheat))
      fail(`[bad_cheater] "${cheat}" is not a Crazy Eights cheat; choose one of ${[...EIGHTS_CHEATS, ...GENERIC_CHEATS].join(', ')}`);
    return cheater ?? 'p1';
  }
  if ((EIGHTS_CHEATS as readonly string[]).includes(cheat) && !(HOLDEM_CHEATS as readonly string[]).includes(cheat))
    fail(`[bad_cheater] "${cheat}" is a Crazy Eights cheat; ${protocol} has no such move`);
  if ((HOLDEM_CHEATS as readonly string[]).includes(cheat)) {
    if (protocol !== 'holdem') fail(`[bad_cheater] "${cheat}" is a Hold'em cheat; ${protocol} has no such move`);
    return cheater ?? 'p1';
  }
  const generic = (GENERIC_CHEATS as readonly string[]).includes(cheat);
  if (cheat.startsWith('escrow-')) {
    if (protocol !== 'beacon') fail(`[bad_cheater] "${cheat}" is a cheat on the beacon's escrow; ${protocol} has no such move (use beacon --escrow vss)`);
    return cheater ?? 'p1';
  }
  if (cheat.startsWith('layers-')) {
    if (protocol !== 'beacon' && protocol !== 'diplomacy')
      fail(`[bad_cheater] "${cheat}" is a cheat on layered escrow; ${protocol} has no such move (use beacon or diplomacy --escrow layers)`);
    return cheater ?? 'p1';
  }
  if (!generic && protocol !== 'signidice') fail(`[bad_cheater] "${cheat}" is a Signidice cheat; ${protocol} has no such move`);
  if (cheat.startsWith('house-')) {
    if (cheater !== undefined && cheater !== HOUSE)
      fail(`[bad_cheater] "${cheat}" is a cheat of the house; ${cheater} cannot commit it (leave out --cheater, or pass --cheater ${HOUSE})`);
    return HOUSE;
  }
  if (cheat.startsWith('player-') && cheater === HOUSE) fail(`[bad_cheater] "${cheat}" is a player's cheat; the house cannot commit it`);
  return cheater ?? 'p1';
}

function num(value: string | undefined, name: string, min: number, max: number, integer = true): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n)))
    fail(`[out_of_range] ${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
  return n;
}

export function register(program: Command): void {
  program
    .command('simulate')
    .description(`run simulated players on the in-memory network and write the transcript (protocols: ${PROTOCOLS.join(', ')})`)
    .argument('<protocol>', PROTOCOLS.join(' | '))
    .requiredOption('--players <n>', 'number of players, named p0 … p{n-1}')
    .requiredOption('--out <file>', 'where to write the transcript (JSON Lines)')
    .option('--seed <hex>', '32-byte seed (64 hex digits) that fixes keys, moves and the network; random if absent')
    .option('--turns <t>', 'rounds of the game (beacon: how many joint numbers; holdem: hands, default 1)')
    .option('--states <n>', 'rochambeau: the number of states N (odd, at least 3)', '3')
    .option('--hash <name>', 'rochambeau: sha-256, sha-384, sha-512 or sha3-256', 'sha-256')
    .option('--game <name>', `keyed-stream, chain: the game played (${[...BUILTIN_GAMES.keys()].join(', ')}; default dice)`)
    .option('--audit-every <k>', 'keyed-stream: honest players ask for an audit of the last roller every k turns (default: never)')
    .option('--years <y>', 'diplomacy: game years to play (default 2)')
    .option('--assign <method>', 'diplomacy: power assignment, weighted | serial | fixed (seat order)', 'weighted')
    .option(
      '--escrow <kind>',
      "diplomacy: none | threshold | layers; beacon: none | vss | layers (k of the others, or seed 003's layers peeled by the others, open a withheld reveal; default threshold for diplomacy, vss for the beacon)",
    )
    .option('--threshold <k>', 'with --escrow threshold or vss: shares needed to open (diplomacy: default a majority of the others; beacon: default 2)')
    .option('--typos <rule>', 'diplomacy: a wrong unit letter is ignore-unit-letter | strict (the order is void)', 'ignore-unit-letter')
    .option(
      '--cheat <kind>',
      `one of: ${ALL_CHEATS.join(', ')} (diplomacy only: ${DIPLOMACY_CHEATS.join(', ')}; holdem only: ${HOLDEM_CHEATS.join(', ')}; crazy-eights only: ${EIGHTS_CHEATS.join(', ')})`,
    )
    .option('--cheater <id>', `which player cheats (default p1; the house for the house's cheats)`)
    .option(
      '--accomplice <id=cheat>',
      'another player and its cheat, repeatable (e.g. --cheat withhold --accomplice p0=layers-refuse-peel: a member who will not peel)',
      (v: string, acc: string[]) => [...acc, v],
      [] as string[],
    )
    .option('--drop <p>', 'probability a message is lost', '0')
    .option('--duplicate <p>', 'probability a message is delivered twice', '0')
    .option('--max-delay <ms>', 'largest network delay; a spread reorders messages', '20')
    .action((protocol: string, opts: Record<string, string | undefined> & { accomplice?: string[] }) => {
      if (!PROTOCOLS.includes(protocol)) fail(`[unknown_protocol] "${protocol}": choose one of ${PROTOCOLS.join(', ')}`);
      if (opts.cheat !== undefined && !ALL_CHEATS.includes(opts.cheat))
        fail(`[bad_input] unknown cheat "${opts.cheat}": choose one of ${ALL_CHEATS.join(', ')}`);
      const isDiplomacy = protocol === 'diplomacy';
      const isHoldem = protocol === 'holdem';
      const isEights = protocol === 'crazy-eights';
      // Escrow is on by default where a protocol has it (docs/SPEC.md §7.4): withholding gains nothing, an absentee stalls nothing.
      opts.escrow ??= isDiplomacy ? (Number(opts.players ?? 7) >= 2 ? 'threshold' : 'none') : protocol === 'beacon' ? 'vss' : 'none';
      if (!isDiplomacy && opts.years !== undefined) fail('[bad_input] --years is for diplomacy');
      if (isDiplomacy && !['weighted', 'serial', 'fixed'].includes(opts.assign!)) fail('[bad_input] --assign must be weighted, serial or fixed');
      if (isDiplomacy && !['ignore-unit-letter', 'strict'].includes(opts.typos!)) fail('[bad_input] --typos must be ignore-unit-letter or strict');
      if (isDiplomacy && !['none', 'threshold', 'layers'].includes(opts.escrow!)) fail('[bad_input] --escrow must be none, threshold or layers');
      const isBeacon = protocol === 'beacon';
      if (isBeacon && !['none', 'vss', 'layers'].includes(opts.escrow!)) fail('[bad_input] --escrow must be none, vss or layers for the beacon');
      if (!isDiplomacy && !isBeacon && opts.escrow !== 'none') fail('[bad_input] --escrow is for beacon and diplomacy');
      if (opts.threshold !== undefined && opts.escrow !== 'threshold' && opts.escrow !== 'vss')
        fail('[bad_input] --threshold needs --escrow threshold or vss (layers have no threshold)');
      if (opts.cheat?.startsWith('escrow-') === true && !(isBeacon && opts.escrow === 'vss'))
        fail(`[bad_cheater] "${opts.cheat}" is a cheat on the beacon's escrow: use beacon --escrow vss`);
      const layerCheats = [opts.cheat, ...(opts.accomplice ?? []).map((a) => a.split('=')[1])].filter((c) => c?.startsWith('layers-') === true);
      if (layerCheats.length > 0 && opts.escrow !== 'layers') fail(`[bad_cheater] "${layerCheats[0]}" is a cheat on layered escrow: use --escrow layers`);
      if (opts.cheater !== undefined && opts.cheat === undefined) fail('[bad_input] --cheater needs --cheat');
      const accomplices: Record<string, Cheat> = {};
      for (const a of opts.accomplice ?? []) {
        const [id, c] = a.split('=');
        if (id === undefined || c === undefined || !/^p\d+$/.test(id) || !(CHEATS as readonly string[]).includes(c))
          fail(`[bad_input] --accomplice ${a}: expected <player>=<cheat>, the cheat one of ${CHEATS.join(', ')}`);
        if (opts.cheat === undefined) fail('[bad_input] --accomplice needs --cheat');
        accomplices[id] = c as Cheat;
      }
      if (opts.game !== undefined && protocol !== 'keyed-stream' && protocol !== 'chain') fail('[bad_input] --game is for keyed-stream and chain');
      if (opts.game !== undefined && !BUILTIN_GAMES.has(opts.game))
        fail(`[bad_input] unknown game "${opts.game}": choose one of ${[...BUILTIN_GAMES.keys()].join(', ')}`);
      if (opts.auditEvery !== undefined && protocol !== 'keyed-stream') fail('[bad_input] --audit-every is for keyed-stream');
      let seed: Uint8Array;
      try {
        seed = opts.seed === undefined ? randomBytes(32) : fromHex(opts.seed, '--seed', 32);
      } catch (e) {
        fail(`[bad_hex] ${(e as Error).message}`);
      }
      const cheat = opts.cheat as Cheat | undefined;
      const registry = isDiplomacy || isHoldem || isEights ? { registry: cliRegistry } : {};
      const audited = { ...registry, verify: nativeVerify };
      let result: ReturnType<typeof simulate>;
      try {
        const turns = num(opts.turns, '--turns', 1, 1_000_000);
        const auditEvery = num(opts.auditEvery, '--audit-every', 1, 1_000_000);
        const years = num(opts.years, '--years', 1, 200);
        const threshold = num(opts.threshold, '--threshold', 1, 15);
        result = simulate({
          protocol,
          sign: nativeSign,
          verify: nativeVerify,
          ...(isDiplomacy
            ? {
                extension: diplomacySim,
                ...registry,
                params: {
                  years: years ?? 2,
                  assign: opts.assign!,
                  typos: opts.typos!,
                  escrow: opts.escrow!,
                  ...(threshold === undefined ? {} : { threshold }),
                },
              }
            : {}),
          ...(isHoldem
            ? {
                extension: holdemSim,
                ...registry,
                // Players who never fold, so that a hand reaches its showdown (where shown cards are checked).
                strategy: (id: string) => holdemStrategy(taggedHash('holdem-strategy', seed, new TextEncoder().encode(id))),
                params: { hands: turns ?? 1 },
              }
            : {}),
          ...(isEights
            ? {
                extension: eightsSim,
                ...registry,
                // Players who play a card whenever they can, so that a game ends by a hand emptied.
                strategy: (id: string) => eightsStrategy(taggedHash('crazy-eights-strategy', seed, new TextEncoder().encode(id))),
              }
            : {}),
          players: num(opts.players, '--players', isDiplomacy ? 1 : 2, isDiplomacy ? 16 : isHoldem ? 9 : isEights ? 5 : 1000)!,
          seed,
          ...(turns !== undefined ? { turns } : {}),
          ...(cheat !== undefined ? { cheat, cheater: cheaterFor(protocol, cheat, opts.cheater) } : {}),
          ...(Object.keys(accomplices).length > 0 ? { accomplices } : {}),
          drop: num(opts.drop, '--drop', 0, 0.9, false)!,
          duplicate: num(opts.duplicate, '--duplicate', 0, 0.9, false)!,
          maxDelay: num(opts.maxDelay, '--max-delay', 1, 10_000)!,
          ...(protocol === 'rochambeau' ? { params: { N: opts.states!, hash: opts.hash! } } : {}),
          ...(opts.game !== undefined ? { game: opts.game } : {}),
          ...(auditEvery !== undefined ? { params: { auditEvery } } : {}),
          ...(isBeacon && opts.escrow === 'vss' ? { params: { escrow: { scheme: 'vss', threshold: threshold ?? 2 } } } : {}),
          ...(isBeacon && opts.escrow === 'layers' ? { params: { escrow: { scheme: 'layers' } } } : {}),
        });
      } catch (e) {
        failWith(e);
      }
      // The simulator's audit of the transcript, made once: to check a cheat left a trace, and for Diplomacy to print.
      let verdict: ReturnType<typeof auditLines> | undefined;
      if (cheat !== undefined) {
        // A cheat that left no trace would be written as an honest game: refuse it instead.
        const cheater = cheaterFor(protocol, cheat, opts.cheater);
        verdict = auditLines(result.lines, audited);
        // A value withheld under escrow and opened from it names nobody (docs/SPEC.md §7.4): the opening is its trace.
        const seeds = (verdict.outcome?.summary as { seeds?: { opened?: unknown }[] } | undefined)?.seeds ?? [];
        const opened =
          seeds.some((x) => Array.isArray(x.opened) && x.opened.includes(cheater)) || (isDiplomacy && openedFromEscrow(result.lines, audited, cheater));
        const named =
          opened ||
          result.refusals.some((r) => r.player === cheater) ||
          result.violations.some((v) => v.player === cheater) ||
          verdict.violations.some((v) => v.player === cheater);
        if (!named)
          fail(
            `[bad_cheater] ${cheater}'s "${cheat}" left no trace in this ${protocol} game (no chance to commit it, or the network lost it); no transcript written`,
          );
      }
      writeFileSync(opts.out!, result.lines.join('\n') + '\n');
      const o = result.outcome;
      process.stderr.write(
        `seed ${toHex(seed)}\nwrote ${result.lines.length} lines to ${opts.out}; ${o === null ? 'the game did not finish' : `winners: ${o.winners.join(', ') || '(none)'}`}` +
          `${o && o.forfeits.length ? `; forfeited: ${o.forfeits.map((f) => `${f.player} (${f.code})`).join(', ')}` : ''}\n` +
          `${result.messages.sent} messages sent, ${result.messages.dropped} dropped, ${result.simulatedMs} ms simulated\n` +
          // What the table refused at its door is never in the transcript: say who submitted it.
          result.refusals
            .slice(0, 10)
            .map((r) => `refused at the table's door: ${r.code} by ${r.player}: ${r.message}\n`)
            .join(''),
      );
      if (isDiplomacy) {
        // The whole game audited as anyone would audit the file: valid, or each player named with the rule broken.
        verdict ??= auditLines(result.lines, audited);
        process.stderr.write(
          verdict.valid
            ? `audit: valid (${JSON.stringify(o?.summary ?? null)})\n`
            : `audit: ${verdict.violations.length} violation(s)\n${verdict.violations
                .slice(0, 10)
                .map((v) => `  line ${v.seq}: ${v.code} by ${v.player ?? 'nobody'}: ${v.message}\n`)
                .join('')}`,
        );
      }
    });
}

/** Whether a Diplomacy value of `player` (orders, or the assignment round's preferences) was opened from escrow. */
function openedFromEscrow(lines: readonly string[], options: RefereeOptions, player: string): boolean {
  const a = new Auditor(lines[0]!, { ...options, keepEvents: true });
  for (const l of lines.slice(1)) a.add(l);
  return a.referee.events.some((e) => e.type === 'escrow-opened' && e.player === player);
}
