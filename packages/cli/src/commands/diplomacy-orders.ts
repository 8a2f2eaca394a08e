/**
 * A person at the command line answering `fairtable play`'s decisions (docs/spec/diplomacy-by-hand.md).
 *
 *   --orders DIR   each Diplomacy phase: the position and the legal orders go to stderr (and to
 *                  DIR/<PHASE>.position.txt); the seat reads DIR/<PHASE>.txt (S1901M.txt, F1901R.txt,
 *                  W1901A.txt), waiting for it until shortly before the phase's deadline;
 *   --orders -     the same, asked on stdin unit by unit: a number from the list or an order;
 *   --ask          every other decision asked on stdin (a numbered list, a range, or text with its pattern).
 *
 * A file with a bad line is not committed: each problem is printed with its code and line, and the seat
 * waits for the file to change. If the deadline comes first, the seat commits the file's good lines and
 * the rules' defaults for the rest (hold, disband, waive, civil-disorder removals), and says which; with
 * no file at all, every unit takes the default. Answers go through `RelayGame.decide`, so nothing here
 * can commit an order the phase's choices do not hold.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { RelayGame } from '@fairtable/client';
import { checkChoice, type Decision } from '@fairtable/core';
import type { Choices } from '@fairtable/core/protocols/machine.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { Referee } from '@fairtable/core/referee.js';
import { nativeVerify } from '@fairtable/node/native-verify.js';
import { diplomacyRegistry, phaseLabel, type DiplomacyState, type TypoRule } from '@fairtable/diplomacy/protocol/index.js';
import { standardMap } from '@fairtable/diplomacy/standard.js';
import { defaultOrders, legalOrdersText, phaseName, positionText, readOrdersFile, type OrdersFileReading } from '@fairtable/diplomacy/orders-file.js';
import type { Position } from '@fairtable/diplomacy/position.js';
import { FairtableError } from '@fairtable/core/errors.js';
import { fail } from '../io.js';
import { describeChoices } from '../mail/choice-text.js';

const map = standardMap;
/** How often the orders directory is looked at, ms. */
const POLL_MS = 250;
/** How often a seat still waiting for a file says so, ms. */
const REMIND_MS = 30_000;

/** Stdin as a queue of lines: lines typed (or piped) before a question is asked are kept for it. */
class Lines {
  private readonly queue: string[] = [];
  private readonly waiting: ((line: string | null) => void)[] = [];
  private ended = false;
  private readonly rl: Interface;
  constructor(input: NodeJS.ReadableStream) {
    this.rl = createInterface({ input, terminal: false });
    this.rl.on('line', (line) => {
      const w = this.waiting.shift();
      if (w === undefined) this.queue.push(line);
      else w(line);
    });
    this.rl.on('close', () => {
      this.ended = true;
      for (const w of this.waiting.splice(0)) w(null);
    });
  }
  /** The next line, or null at the end of input or when `signal` aborts. */
  next(signal: AbortSignal): Promise<string | null> {
    const queued = this.queue.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    if (this.ended || signal.aborted) return Promise.resolve(null);
    return new Promise((resolve) => {
      const done = (line: string | null): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(line);
      };
      const onAbort = (): void => {
        const i = this.waiting.indexOf(done);
        if (i >= 0) this.waiting.splice(i, 1);
        done(null);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiting.push(done);
    });
  }
  /** Nothing more will come: the input ended and every line was taken. */
  get closed(): boolean {
    return this.ended && this.queue.length === 0;
  }
  close(): void {
    this.rl.close();
  }
}

/** The observer's replay of the seat's log: the Diplomacy state every seat computes, for the position and the game's rules. */
class Observer {
  private referee: Referee<DiplomacyState> | null = null;
  private fed = 0;
  constructor(private readonly game: RelayGame) {}
  state(): DiplomacyState | null {
    const lines = this.game.lines;
    if (lines.length === 0) return null;
    if (this.referee === null) {
      this.referee = new Referee<DiplomacyState>(lines[0]!, null, undefined, {
        registry: diplomacyRegistry,
        verify: nativeVerify,
        timeOf: (line) => this.game.receipts[line]?.time,
      });
      this.fed = 1;
    }
    for (; this.fed < lines.length; this.fed++) this.referee.feedText(this.fed, lines[this.fed]!);
    return this.referee.machine.protocol === 'diplomacy' ? this.referee.state : null;
  }
}

const sleep = (ms: number, signal: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });

const seconds = (ms: number): string => `${Math.max(0, Math.round(ms / 1000))} s`;

/** What a person answers, and how. */
export interface PersonOptions {
  /** A directory of orders files, or "-" for stdin. */
  readonly orders?: string;
  readonly ask?: boolean;
}

/** The flags that name a decision's answer outright: those decisions are not asked. */
const ANSWERED_BY_FLAG: Readonly<Record<string, string>> = { preferences: 'prefs', hand: 'hand', bet: 'bet' };

export class Person {
  private current: string | null = null;
  private abort: AbortController | null = null;
  private lines: Lines | null = null;
  private game: RelayGame | null = null;
  private observer: Observer | null = null;
  private automatic: ((d: Decision) => JsonValue) | null = null;

  constructor(
    private readonly options: PersonOptions,
    private readonly flags: Record<string, string | undefined>,
    private readonly say: (text: string) => void,
  ) {}

  /** Answers the game's decisions from now on: by hand where the options say so, by `automatic` otherwise. */
  attach(game: RelayGame, automatic: (d: Decision) => JsonValue): void {
    this.game = game;
    this.automatic = automatic;
    this.observer = new Observer(game);
    game.on('decision', (d) => this.onDecision(d));
    game.on('event', (e) => {
      const s = this.observer?.state() ?? null;
      const me = s?.powers[game.id];
      if (e.type === 'assignment' && me !== undefined) this.say(`you play ${me}`);
      if (e.type === 'adjudicated' && me !== undefined && Array.isArray(e.results)) {
        const mine = (e.results as { power: string; order: string; status: string; reason: string | null }[]).filter((r) => r.power === me);
        if (mine.length > 0)
          this.say(`${String(e.phase)} results for ${me}: ${mine.map((r) => `${r.order} ${r.status}${r.reason === null ? '' : ` (${r.reason})`}`).join('; ')}`);
      }
    });
    const close = (): void => this.close();
    game.finished.then(close, close);
  }

  close(): void {
    this.abort?.abort();
    this.lines?.close();
    this.lines = null;
  }

  private stdin(): Lines {
    this.lines ??= new Lines(process.stdin);
    return this.lines;
  }

  private onDecision(d: Decision): void {
    // The client announces a decision again when lines arrive; the same decision is answered once.
    const key = JSON.stringify(d);
    if (key === this.current) return;
    this.current = key;
    this.abort?.abort();
    const abort = new AbortController();
    this.abort = abort;
    const byFlag = ANSWERED_BY_FLAG[d.kind];
    let work: Promise<JsonValue>;
    if (d.kind === 'orders' && this.options.orders !== undefined) work = this.orders(d, this.options.orders, abort.signal);
    else if (this.options.ask === true && (byFlag === undefined || this.flags[byFlag] === undefined)) work = this.ask(d, abort.signal);
    else work = Promise.resolve().then(() => this.automatic!(d));
    work.then(
      (value) => this.answer(key, value),
      (e: unknown) => {
        if (e instanceof FairtableError && e.code === 'no_answer') {
          const resume = this.flags.out === undefined ? '' : ` (fairtable play --resume ${this.flags.out} answers it before the deadline)`;
          fail(`[no_answer] ${e.message}${resume}`);
        }
        this.say(`could not answer ${d.kind}: ${(e as Error).message}`);
        // Still open (the state was not readable, say): answered automatically rather than left to the deadline.
        if (JSON.stringify(this.game!.decision()) === key) {
          this.say(`answering ${d.kind} automatically`);
          this.answer(key, this.automatic!(d));
        }
      },
    );
  }

  private answer(key: string, value: JsonValue): void {
    const game = this.game!;
    if (JSON.stringify(game.decision()) !== key) {
      this.say('too late: that decision is no longer open (the phase moved on)');
      return;
    }
    try {
      game.decide(value);
    } catch (e) {
      this.say(`the answer was refused: ${(e as Error).message}`);
    }
  }

  /** The time, on the seat's clock, by which the seat commits whatever it has. */
  private cutoff(d: Decision, timeoutMs: number): number {
    const margin = Math.min(10_000, Math.max(500, Math.floor(timeoutMs / 10)));
    return d.deadline - margin;
  }

  private now(): number {
    return Date.now() + (this.game?.clockOffset ?? 0);
  }

  /** Aborts with `signal`, or at `at` on the seat's clock. */
  private until(at: number, signal: AbortSignal): AbortSignal {
    const c = new AbortController();
    const t = setTimeout(() => c.abort(), Math.max(0, at - this.now()));
    signal.addEventListener('abort', () => c.abort(), { once: true });
    c.signal.addEventListener('abort', () => clearTimeout(t), { once: true });
    return c.signal;
  }

  private async orders(d: Decision, where: string, signal: AbortSignal): Promise<JsonValue> {
    const s = this.observer!.state();
    const power = s?.powers[this.game!.id];
    if (s === null || power === undefined) throw new Error('the Diplomacy state is not known yet');
    const position = s.position;
    const phase = phaseLabel(position);
    const fields = Object.keys((d.choices as Extract<Choices, { type: 'record' }>).fields);
    if (fields.length === 0) {
      this.say(`${phaseName(position)} (${phase}): ${power} has nothing to order; committing an empty orders file`);
      return {};
    }
    const cutoff = this.cutoff(d, s.timeoutMs);
    const heading = `\n== ${phaseName(position)} (${phase}): ${power} to order, ${seconds(cutoff - this.now())} to answer ==\n`;
    // The same text as a game by mail: the position (the seat's power marked), then the orders offered.
    const you = { [power]: 'you' };
    if (where === '-') {
      process.stderr.write(`${heading}${positionText(map, position, you).trimEnd()}\n`);
      return this.ordersFromStdin(position, power, s.typos, d, this.until(cutoff, signal));
    }
    const board = `${positionText(map, position, you)}Your orders for ${power} (one a line), from the orders offered:\n${legalOrdersText(map, position, power).trimEnd()}`;
    process.stderr.write(`${heading}${board}\n`);
    return this.ordersFromFile(position, power, s.typos, where, board, cutoff, signal);
  }

  private async ordersFromFile(
    position: Position,
    power: string,
    typos: TypoRule,
    dir: string,
    board: string,
    cutoff: number,
    signal: AbortSignal,
  ): Promise<JsonValue> {
    const phase = phaseLabel(position);
    const path = join(dir, `${phase}.txt`);
    const alternative = join(dir, `${phase.toLowerCase()}.txt`);
    try {
      writeFileSync(
        join(dir, `${phase}.position.txt`),
        `${board
          .split('\n')
          .map((l) => `# ${l}`)
          .join('\n')}\n# Copy to ${phase}.txt and edit: units left out hold.\n`,
      );
    } catch (e) {
      this.say(`could not write ${phase}.position.txt in ${dir}: ${(e as Error).message}`);
    }
    this.say(`waiting for ${path} (seed notation, one order a line, # comments; write it whole or rename it into place)`);
    const readText = (): string | null => {
      for (const p of [path, alternative]) {
        try {
          return readFileSync(p, 'utf8');
        } catch {
          // not written yet
        }
      }
      return null;
    };
    let previous: string | null = null;
    let examined: string | null = null;
    let remind = this.now() + REMIND_MS;
    while (!signal.aborted && this.now() < cutoff) {
      const text = readText();
      // Acted on only once it reads the same twice in a row: a file half written is not taken.
      if (text !== null && text === previous && text !== examined) {
        examined = text;
        const r = readOrdersFile(map, position, power, text, typos);
        this.report(path, r);
        if (r.problems.length === 0) return this.commit(phase, power, r, 'from the file');
        this.say(
          `fix ${path}: waiting for it to change (${seconds(cutoff - this.now())} left; then the good lines are committed and the rest take the defaults)`,
        );
      }
      previous = text;
      if (this.now() >= remind) {
        this.say(`still waiting for ${path}: ${seconds(cutoff - this.now())} left`);
        remind = this.now() + REMIND_MS;
      }
      await sleep(POLL_MS, signal);
    }
    if (signal.aborted) throw new Error(`${phase} moved on before the orders were read`);
    // The cutoff: the file as it stands now, if there is one (also when the decision came too late to wait at all).
    const text = readText();
    if (text !== null) {
      const r = readOrdersFile(map, position, power, text, typos);
      if (text !== examined) this.report(path, r);
      return this.commit(phase, power, r, r.problems.length === 0 ? 'from the file' : `the good lines of ${path}; the lines with problems take the defaults`);
    }
    const answer = defaultOrders(map, position, power);
    this.say(`no orders file ${path} by the deadline: ${power} takes the defaults: ${Object.values(answer).join('; ')}`);
    return answer;
  }

  private report(path: string, r: OrdersFileReading): void {
    for (const p of r.problems) process.stderr.write(`fairtable: [${p.code}] ${path} line ${p.line}: "${p.text}": ${p.message}\n`);
    for (const n of r.notes) this.say(`${path} line ${n.line}: "${n.text}": ${n.message}`);
  }

  private commit(phase: string, power: string, r: OrdersFileReading, how: string): JsonValue {
    if (r.defaulted.length > 0) this.say(`${phase}: no order for ${r.defaulted.map((x) => x.field).join(', ')}: ${r.defaulted.map((x) => x.order).join('; ')}`);
    this.say(`${phase}: committing ${power}'s orders (${how}): ${Object.values(r.answer).join('; ')}${r.vote === null ? '' : `, and the vote ${r.vote}`}`);
    return r.vote === null ? r.answer : { ...r.answer, vote: r.vote };
  }

  private async ordersFromStdin(position: Position, power: string, typos: TypoRule, d: Decision, signal: AbortSignal): Promise<JsonValue> {
    const phase = phaseLabel(position);
    const record = d.choices as Extract<Choices, { type: 'record' }>;
    const given: Record<string, string> = {};
    const lines = this.stdin();
    for (const [field, f] of Object.entries(record.fields)) {
      const values = f.type === 'one-of' ? f.values.map(String) : [];
      process.stderr.write(`${field}:\n${values.map((v, i) => `  ${String(i + 1).padStart(3)}) ${v}`).join('\n')}\n`);
      for (;;) {
        process.stderr.write(`${phase} ${field}: a number, an order, or nothing for the default > `);
        const line = await lines.next(signal);
        if (line === null) break;
        const text = line.trim();
        if (text === '') break;
        let value: string | undefined;
        if (/^\d+$/.test(text)) {
          value = values[Number(text) - 1];
          if (value === undefined) {
            process.stderr.write(`fairtable: [out_of_range] choose 1 to ${values.length}\n`);
            continue;
          }
        } else {
          const r = readOrdersFile(map, position, power, text, typos);
          if (r.problems.length > 0) {
            this.report('stdin', r);
            continue;
          }
          for (const n of r.notes) this.say(n.message);
          const named = Object.keys(r.answer).find((k) => !r.defaulted.some((x) => x.field === k));
          value = named === undefined ? undefined : r.answer[named];
          if (value === undefined || !values.includes(value)) {
            process.stderr.write(`fairtable: [illegal_order] "${text}" is not an order for ${field}\n`);
            continue;
          }
        }
        if (field.startsWith('remove ') && Object.values(given).includes(value)) {
          process.stderr.write(`fairtable: [illegal_order] ${value} is already given\n`);
          continue;
        }
        given[field] = value;
        break;
      }
      if (signal.aborted || lines.closed) break;
    }
    if (signal.aborted) this.say(`${phase}: the time to answer ran out`);
    const answer = defaultOrders(map, position, power, given);
    const left = Object.keys(answer).filter((k) => given[k] === undefined);
    if (left.length > 0) this.say(`${phase}: no order for ${left.join(', ')}: ${left.map((k) => answer[k]).join('; ')}`);
    this.say(`${phase}: committing ${power}'s orders: ${Object.values(answer).join('; ')}`);
    return answer;
  }

  /** Any decision asked on stdin from its choices; the automatic answer when the time runs out or stdin ends. */
  private async ask(d: Decision, signal: AbortSignal): Promise<JsonValue> {
    const margin = Math.min(10_000, Math.max(500, Math.floor((d.deadline - this.now()) / 10)));
    const until = this.until(d.deadline - margin, signal);
    process.stderr.write(`\n== ${d.kind}: ${d.prompt} (${seconds(d.deadline - margin - this.now())} to answer) ==\n`);
    const value = await this.askChoices(d.choices, d.kind, until);
    if (value !== undefined) return value;
    if (signal.aborted) throw new Error(`the ${d.kind} decision closed before it was answered`);
    // The person is gone, not late: nothing is played in their name.
    if (this.lines?.closed === true && !until.aborted)
      throw new FairtableError('no_answer', `standard input ended before the ${d.kind} decision was answered; nothing was sent for it`);
    const auto = this.automatic!(d);
    this.say(`no answer to ${d.kind}: answering ${JSON.stringify(auto)} at random`);
    return auto;
  }

  private async askChoices(choices: Choices, label: string, signal: AbortSignal): Promise<JsonValue | undefined> {
    if (choices.type === 'record') {
      const out: Record<string, JsonValue> = {};
      for (const [name, f] of Object.entries(choices.fields)) {
        const v = await this.askChoices(f, `${label}.${name}`, signal);
        if (v === undefined) return undefined;
        out[name] = v;
      }
      // A member that may be left out (a Diplomacy vote): asked too, its first value ('none') meaning nothing.
      for (const [name, f] of Object.entries(choices.optional ?? {})) {
        const v = await this.askChoices(f, `${label}.${name}`, signal);
        if (v === undefined) return undefined;
        out[name] = v;
      }
      return out;
    }
    const lines = this.stdin();
    if (choices.type === 'any-of') {
      // Several kinds of answer (a roll, or a trade, say): which kind first, from a numbered menu, then that kind's answer.
      if (choices.options.length === 1) return this.askChoices(choices.options[0]!, label, signal);
      const menu = choices.options.map((o, i) => `  ${String(i + 1).padStart(3)}) ${describeChoices(o)}`).join('\n');
      for (;;) {
        process.stderr.write(`${menu}\n${label}: which kind of answer, a number > `);
        const line = await lines.next(signal);
        if (line === null) return undefined;
        const n = Number(line.trim());
        const option = /^\d+$/.test(line.trim()) ? choices.options[n - 1] : undefined;
        if (option === undefined) {
          process.stderr.write(`fairtable: [illegal_choice] choose 1 to ${choices.options.length}\n`);
          continue;
        }
        return this.askChoices(option, label, signal);
      }
    }
    const hint =
      choices.type === 'one-of'
        ? `${choices.values.map((v, i) => `  ${String(i + 1).padStart(3)}) ${typeof v === 'string' ? v : JSON.stringify(v)}`).join('\n')}\n${label}: a number > `
        : choices.type === 'integer'
          ? `${label}: an integer from ${choices.min} to ${choices.max} > `
          : choices.type === 'text'
            ? `${label}: text matching ${choices.pattern}${
                choices.examples.length > 0
                  ? `, e.g. ${choices.examples
                      .slice(0, 3)
                      .map((e) => JSON.stringify(e))
                      .join(', ')}`
                  : ''
              } > `
            : `${label}: JSON, ${describeChoices(choices)} > `;
    for (;;) {
      process.stderr.write(hint);
      const line = await lines.next(signal);
      if (line === null) return undefined;
      let value: JsonValue;
      const text = line.trim();
      if (choices.type === 'one-of') {
        const n = Number(text);
        const found = /^\d+$/.test(text) ? choices.values[n - 1] : choices.values.find((v) => v === text || JSON.stringify(v) === text);
        if (found === undefined) {
          process.stderr.write(`fairtable: [illegal_choice] choose 1 to ${choices.values.length}\n`);
          continue;
        }
        value = found;
      } else if (choices.type === 'integer') value = /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text)) ? Number(text) : text;
      else if (choices.type === 'text') value = line;
      else {
        try {
          value = JSON.parse(text) as JsonValue;
        } catch {
          process.stderr.write('fairtable: [bad_json] not JSON\n');
          continue;
        }
      }
      try {
        checkChoice(choices, value, label);
        return value;
      } catch (e) {
        process.stderr.write(`fairtable: [illegal_choice] ${(e as Error).message}\n`);
      }
    }
  }
}

/** The person behind a seat, or null when every decision is automatic. Checks the flags. */
export function personFor(flags: Record<string, string | undefined>, protocol: string | undefined, say: (text: string) => void): Person | null {
  const ask = (flags as { ask?: unknown }).ask === true;
  // --ask alone asks Diplomacy's orders on stdin too, unit by unit.
  const orders = flags.orders ?? (ask ? '-' : undefined);
  if (orders === undefined) return null;
  if (flags.orders !== undefined && protocol !== undefined && protocol !== 'diplomacy') fail('[bad_input] --orders is for diplomacy');
  if (orders !== '-') {
    let dir = false;
    try {
      dir = statSync(orders).isDirectory();
    } catch {
      // reported below
    }
    if (!dir) fail(`[bad_input] --orders ${orders}: not a directory (give a directory for the orders files, or - for stdin)`);
  } else if (!process.stdin.isTTY) say('stdin is not a terminal: reading answers from it line by line');
  return new Person({ orders, ask }, flags, say);
}
