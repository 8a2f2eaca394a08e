/**
 * `fairtable diplomacy`: the Diplomacy engine from the command line
 * (docs/spec/diplomacy.md §8).
 *
 *   adjudicate FILE|-   one position with orders in, the next position with
 *                       a result per order and the position hash out (JSON);
 *                       a retreat phase in the DATC layout may give the
 *                       movement's `results` instead of `contested`
 *   orders FILE --power P --phase S1901M [--position POS] [--strict-unit-type]
 *                       each order of a player's file in canonical form, or
 *                       its error
 *   newcomer-consent --game ID --power P --key FILE [--name NAME]
 *                       a newcomer's signed consent to take over an absent
 *                       power, as a newcomer file (diplomacy-handover.ts)
 *
 * Exit codes: 0 done (orders: every order is good), 1 orders: some order has
 * an error (listed on stdout), 2 unusable input, printed as
 * `fairtable: [code] message`.
 */
import type { Command } from 'commander';
import { FairtableError } from '@fairtable/core/errors.js';
import { randomBytes } from '@fairtable/core/bytes.js';
import { RandomStream } from '@fairtable/core/stream.js';
import { parseJson } from '@fairtable/core/jcs.js';
import {
  assignPowers,
  parsePreferences,
  adjudicate,
  checkOrders,
  encodePosition,
  legalOrdersText,
  positionHash,
  readPosition,
  standardMap,
  startingPosition,
  type OrderInput,
  type Phase,
  type Position,
} from '@fairtable/diplomacy';
import { readInput } from '../io.js';
import { registerNewcomerConsent } from './diplomacy-handover.js';

function readText(path: string): string {
  try {
    return readInput(path);
  } catch (e) {
    throw new FairtableError('bad_input', `cannot read ${path === '-' ? 'standard input' : path}: ${(e as Error).message}`, { field: 'file', cause: e });
  }
}

function readOrderList(value: unknown): OrderInput[] {
  const orders = value ?? [];
  if (!Array.isArray(orders)) throw new FairtableError('bad_input', 'orders must be an array of {power, text}', { field: 'orders' });
  return orders.map((o: unknown, i) => {
    const rec = o as Record<string, unknown> | null;
    if (typeof rec !== 'object' || rec === null || typeof rec['power'] !== 'string' || typeof rec['text'] !== 'string') {
      throw new FairtableError('bad_input', `orders[${i}] must be {power, text}`, { field: `orders[${i}]` });
    }
    return { power: rec['power'].toLowerCase(), text: rec['text'] };
  });
}

interface DatcResult {
  readonly outcome?: unknown;
  readonly move?: { readonly from?: unknown; readonly to?: unknown; readonly viaConvoy?: unknown };
}

/**
 * A retreat-phase input in the DATC case layout may give the movement's
 * results (`results`: `{outcome, move: {from, to, viaConvoy}}`) instead of
 * `contested` and each dislodged unit's `attackerFrom`. Those are derived from
 * the results, as the case file's README describes: the attacker is the one
 * successful move into the unit's province; a province is contested when a
 * move over land failed to enter it, it is empty, and the failed unit was not
 * dislodged by the unit from there.
 */
function withRetreatContext(input: Record<string, unknown>): Record<string, unknown> {
  const results = input['results'];
  if (!Array.isArray(results)) return input;
  const moves = (results as DatcResult[]).filter((r) => typeof r?.move?.from === 'string' && typeof r.move.to === 'string');
  const province = (loc: unknown): string => String(loc).split('/')[0] as string;
  const dislodgedIn = Array.isArray(input['dislodged']) ? (input['dislodged'] as Record<string, unknown>[]) : [];
  const dislodged = dislodgedIn.map((d) => {
    if (typeof d !== 'object' || d === null || 'attackerFrom' in d) return d;
    const by = moves.find((r) => r.outcome === 'success' && province(r.move?.to) === province(d['at']));
    return by === undefined ? d : { ...d, attackerFrom: province(by.move?.from), attackerViaConvoy: by.move?.viaConvoy === true };
  });
  let contested = input['contested'];
  if (contested === undefined) {
    const occupied = new Set((Array.isArray(input['units']) ? (input['units'] as Record<string, unknown>[]) : []).map((u) => province(u?.['at'])));
    const set = new Set<string>();
    for (const r of moves) {
      const to = province(r.move?.to);
      const from = province(r.move?.from);
      if (r.outcome !== 'failure' || r.move?.viaConvoy === true || occupied.has(to)) continue;
      if (dislodged.some((d) => province(d?.['at']) === from && d?.['attackerFrom'] === to)) continue;
      set.add(to);
    }
    contested = [...set].sort();
  }
  return { ...input, dislodged, contested };
}

/** `S1901M`, `F1901R`, `F1901A` (also `W1901A`) → a phase. */
export function parsePhaseCode(code: string): Phase {
  const m = /^([SFW])(\d{1,6})([MRA])$/i.exec(code.trim());
  if (m === null)
    throw new FairtableError('bad_input', `phase "${code}": expected a season letter, a year and a phase letter, e.g. S1901M, F1901R, W1901A`, {
      field: 'phase',
    });
  const season = (m[1] as string).toUpperCase();
  const type = ({ M: 'movement', R: 'retreat', A: 'adjustment' } as const)[(m[3] as string).toUpperCase() as 'M' | 'R' | 'A'];
  if ((season === 'W' && type !== 'adjustment') || (season === 'S' && type === 'adjustment'))
    throw new FairtableError('bad_input', `phase "${code}": adjustments are written F or W, movement and retreats S or F`, { field: 'phase' });
  return { season: season === 'S' ? 'spring' : 'fall', year: Number(m[2]), type };
}

const phaseCode = (p: Phase): string => `${p.type === 'adjustment' ? 'W' : p.season === 'spring' ? 'S' : 'F'}${p.year}${p.type[0]?.toUpperCase() ?? ''}`;

function output(position: Position): Record<string, unknown> {
  const { map: _map, ...layout } = encodePosition(standardMap, position) as Record<string, unknown>;
  return layout;
}

export function register(program: Command): void {
  const diplomacy = program.command('diplomacy').description("Diplomacy: adjudicate a phase, check a player's orders (standard map, DATC rules)");
  registerNewcomerConsent(diplomacy);

  diplomacy
    .command('adjudicate')
    .argument('<file>', 'JSON {phase, units, dislodged, supplyCenterOwners, orders: [{power, text}]}, or - for standard input')
    .option('--strict-unit-type', 'an order with the wrong unit letter is invalid (default: the letter is ignored, as the DATC prefers)')
    .description('adjudicate one phase; prints the next position, a result per order and the position hash as JSON')
    .action((file: string, options: { strictUnitType?: boolean }) => {
      const input = parseJson(readText(file), 'file');
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        throw new FairtableError('bad_input', 'the input must be a JSON object', { field: 'file' });
      const position = readPosition(standardMap, withRetreatContext(input as Record<string, unknown>));
      const orders = readOrderList((input as Record<string, unknown>)['orders']);
      const { position: next, results } = adjudicate(standardMap, position, orders, { strictUnitType: options.strictUnitType === true });
      process.stdout.write(`${JSON.stringify({ ...output(next), results, hash: positionHash(standardMap, next) }, null, 2)}\n`);
    });

  diplomacy
    .command('orders')
    .argument('[file]', 'a player\'s orders, one per line ("#" starts a comment line), or - for standard input')
    .requiredOption('--power <power>', 'the power giving the orders, e.g. france')
    .requiredOption('--phase <phase>', 'the phase, e.g. S1901M, F1901R, W1901A')
    .option('--position <file>', 'the position the orders are for (JSON, as for adjudicate); default: the start of the game')
    .option('--json', 'print [{text, order, error}] as JSON')
    .option('--strict-unit-type', 'an order with the wrong unit letter is an error')
    .option('--offered', 'list every order a game offers the power in the position, by unit (what the web form, mail and play --orders take); no file needed')
    .description("check a player's orders against a position: each order's canonical form or its error; or list the orders offered")
    .action(
      (file: string | undefined, options: { power: string; phase: string; position?: string; json?: boolean; strictUnitType?: boolean; offered?: boolean }) => {
        const phase = parsePhaseCode(options.phase);
        const position =
          options.position === undefined ? startingPosition(standardMap) : readPosition(standardMap, parseJson(readText(options.position), 'position'));
        const p = position.phase;
        if (p.season !== phase.season || p.year !== phase.year || p.type !== phase.type) {
          throw new FairtableError('bad_input', `the orders are for ${options.phase} but the position is ${phaseCode(p)}`, { field: 'phase' });
        }
        const power = options.power.toLowerCase();
        if (!standardMap.powers.includes(power)) throw new FairtableError('bad_input', `unknown power ${power}`, { field: 'power' });
        if (options.offered === true) process.stdout.write(legalOrdersText(standardMap, position, power));
        if (file === undefined) {
          if (options.offered !== true) throw new FairtableError('bad_input', 'give an orders file (or - for standard input), or --offered', { field: 'file' });
          return;
        }
        const lines = readText(file)
          .split(/\r?\n/)
          .map((l) => l.trim())
          .filter((l) => l !== '' && !l.startsWith('#'));
        const checked = checkOrders(standardMap, position, power, lines, { strictUnitType: options.strictUnitType === true });
        if (options.json === true) process.stdout.write(`${JSON.stringify(checked, null, 2)}\n`);
        else for (const c of checked) process.stdout.write(c.error === null ? `${c.order}\n` : `${c.text}\t[${c.error.code}] ${c.error.message}\n`);
        if (checked.some((c) => c.error !== null)) process.exitCode = 1;
      },
    );
  diplomacy
    .command('assign')
    .requiredOption('--prefs <file>', 'preference lists in the seed notation, one player a line: "3 (EFG)TI(AR)", "5", "8 %REG" (or - for standard input)')
    .option('--method <method>', "weighted (the seed's lotteries) or serial (random serial dictatorship)", 'weighted')
    .option('--numbers <list>', 'the lottery results to replay, comma-separated, each in [0, outcomes); default: drawn here at random and printed')
    .option('--json', 'print {"contests", "assignment", "numbers"} as JSON')
    .description("assign the powers from the players' preference lists, as seed 003 describes (docs/spec/diplomacy.md §9)")
    .action((options: { prefs: string; method: string; numbers?: string; json?: boolean }) => {
      if (options.method !== 'weighted' && options.method !== 'serial')
        throw new FairtableError('bad_input', `--method must be weighted or serial, not "${options.method}"`, { field: 'method' });
      let numbers: readonly number[] | ((outcomes: number) => number);
      if (options.numbers === undefined) {
        const stream = new RandomStream(randomBytes(32), 'diplomacy-assign');
        numbers = (outcomes) => stream.below(outcomes);
      } else {
        const parts = options.numbers.split(',').map((t) => t.trim());
        if (parts.some((t) => !/^\d{1,15}$/.test(t)))
          throw new FairtableError('bad_input', `--numbers must be whole numbers separated by commas, not "${options.numbers}"`, { field: 'numbers' });
        numbers = parts.map(Number);
      }
      const result = assignPowers(parsePreferences(readText(options.prefs)), options.method, numbers);
      if (options.json === true) {
        const { contests, assignment, numbers: used, order } = result;
        process.stdout.write(`${JSON.stringify({ contests, assignment, numbers: used, ...(order === undefined ? {} : { order }) })}\n`);
        return;
      }
      if (result.order !== undefined) process.stdout.write(`order: ${result.order.join(', ')}\n`);
      for (const c of result.contests) {
        const chances = Object.entries(c.chances)
          .map(([p, n]) => `player ${p}: ${n}`)
          .join(', ');
        process.stdout.write(
          `${c.pass === 0 ? 'no preference left' : `pass ${c.pass}`}: ${c.power}, ${c.outcomes} outcomes (${chances}); number ${c.number}: player ${c.winner}\n`,
        );
      }
      for (const [player, power] of Object.entries(result.assignment)) process.stdout.write(`player ${player}: ${power}\n`);
    });
}
