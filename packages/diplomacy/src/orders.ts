/**
 * Orders as people write them, and their one canonical text form
 * (docs/spec/diplomacy.md §2).
 *
 * `parseOrder` reads one order for a given phase type: any case, unit letters
 * or words, province ids, names or aliases, coasts as `stp/sc`, `spa(nc)` or
 * `spain (north coast)`, and the usual spellings of each verb. It knows the map
 * but not the position, so what it returns is what was written; `checkOrders`
 * (adjudicate.ts) holds it against a position. `formatOrder` prints the
 * canonical text, which parses back to the same order.
 */
import { FairtableError } from '@fairtable/core/errors.js';
import { coastOf, provinceOf, type GameMap, type UnitType } from './map.js';

export type PhaseType = 'movement' | 'retreat' | 'adjustment';

/** A unit's type as written; null when the writer left it out. */
export type WrittenType = UnitType | null;

export type Order =
  | { readonly kind: 'hold'; readonly unit: WrittenType; readonly at: string }
  | { readonly kind: 'move'; readonly unit: WrittenType; readonly at: string; readonly to: string; readonly viaConvoy: boolean }
  /** `to` null: support to hold. The supported unit is named by its province; the destination keeps a coast if one was written. */
  | {
      readonly kind: 'support';
      readonly unit: WrittenType;
      readonly at: string;
      readonly target: WrittenType;
      readonly from: string;
      readonly to: string | null;
    }
  | { readonly kind: 'convoy'; readonly unit: WrittenType; readonly at: string; readonly from: string; readonly to: string }
  | { readonly kind: 'retreat'; readonly unit: WrittenType; readonly at: string; readonly to: string }
  | { readonly kind: 'disband'; readonly unit: WrittenType; readonly at: string }
  | { readonly kind: 'build'; readonly unit: UnitType; readonly at: string }
  | { readonly kind: 'remove'; readonly unit: WrittenType; readonly at: string }
  | { readonly kind: 'waive' };

type TokenKind = 'word' | 'move' | 'slash' | 'open' | 'close' | 'colon';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
  /** 1-based character position in the order text, for error messages. */
  readonly at: number;
}

const UNIT_WORDS: Readonly<Record<string, UnitType>> = { a: 'army', army: 'army', f: 'fleet', fleet: 'fleet' };
const HOLD = new Set(['h', 'hold', 'holds', 'stand', 'stands']);
const MOVE = new Set(['m', 'move', 'moves', 'to', 'attack', 'attacks']);
const SUPPORT = new Set(['s', 'sup', 'support', 'supports']);
const CONVOY = new Set(['c', 'convoy', 'convoys']);
const RETREAT = new Set(['r', 'retreat', 'retreats']);
const DISBAND = new Set(['d', 'disband', 'disbands']);
const BUILD = new Set(['b', 'build', 'builds']);
const REMOVE = new Set(['remove', 'removes', 'd', 'disband', 'disbands']);
const WAIVE = new Set(['w', 'waive', 'waives', 'waived']);
const COASTS: Readonly<Record<string, string>> = {
  nc: 'nc',
  'n.c.': 'nc',
  north: 'nc',
  'north coast': 'nc',
  sc: 'sc',
  's.c.': 'sc',
  south: 'sc',
  'south coast': 'sc',
  ec: 'ec',
  'e.c.': 'ec',
  east: 'ec',
  'east coast': 'ec',
  wc: 'wc',
  'w.c.': 'wc',
  west: 'wc',
  'west coast': 'wc',
};

function fail(text: string, message: string, at?: number, code: 'bad_order' | 'unknown_province' = 'bad_order'): never {
  const where = at === undefined ? 'at the end' : `at character ${at}`;
  throw new FairtableError(code, `order "${text}": ${message} ${where}`, { field: 'order' });
}

/** Province spellings (lower case, words separated by one space) → province id, per map. */
const spellingCache = new WeakMap<GameMap, { names: Map<string, string>; longest: number; hyphenated: Set<string> }>();

function spellingsOf(map: GameMap): { names: Map<string, string>; longest: number; hyphenated: Set<string> } {
  let entry = spellingCache.get(map);
  if (entry === undefined) {
    const names = new Map<string, string>();
    const hyphenated = new Set<string>();
    const add = (spelling: string, id: string): void => {
      const key = spelling.toLowerCase().trim().replace(/\s+/g, ' ');
      if (key === '' || names.has(key)) return;
      names.set(key, id);
      for (const word of key.split(' ')) if (word.includes('-')) hyphenated.add(word);
    };
    for (const spelling of map.spellings()) {
      const location = map.lookup(spelling) as string;
      if (coastOf(location) === null) add(spelling, location);
      else {
        // "spain (nc)" names a coast; its base "spain" names the province.
        const base = /^(.*?)\s*[/(]/.exec(spelling)?.[1];
        if (base !== undefined) add(base, provinceOf(location));
      }
    }
    let longest = 1;
    for (const key of names.keys()) longest = Math.max(longest, key.split(' ').length);
    entry = { names, longest, hyphenated };
    spellingCache.set(map, entry);
  }
  return entry;
}

function tokenize(text: string, lower: string, hyphenated: Set<string>): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < lower.length) {
    const ch = lower[i] as string;
    if (/\s/.test(ch)) {
      i++;
      continue;
    }
    if (lower.startsWith('->', i) || lower.startsWith('=>', i)) {
      tokens.push({ kind: 'move', text: lower.slice(i, i + 2), at: i + 1 });
      i += 2;
      continue;
    }
    const single: Readonly<Record<string, TokenKind>> = { '-': 'move', '/': 'slash', '(': 'open', ')': 'close', ':': 'colon' };
    const kind = single[ch];
    if (kind !== undefined) {
      tokens.push({ kind, text: ch, at: i + 1 });
      i++;
      continue;
    }
    const m = /^[a-z0-9.'’]+(?:-[a-z0-9.'’]+)*/.exec(lower.slice(i));
    if (m === null) fail(text, `unexpected character "${text[i] ?? ch}"`, i + 1);
    const word = m[0];
    if (word.includes('-') && !hyphenated.has(word)) {
      // "par-bur": a move written without spaces.
      let offset = i;
      for (const [index, part] of word.split('-').entries()) {
        if (index > 0) {
          tokens.push({ kind: 'move', text: '-', at: offset + 1 });
          offset++;
        }
        tokens.push({ kind: 'word', text: part, at: offset + 1 });
        offset += part.length;
      }
    } else tokens.push({ kind: 'word', text: word, at: i + 1 });
    i += word.length;
  }
  return tokens;
}

class Reader {
  private i = 0;
  constructor(
    private readonly text: string,
    private readonly tokens: Token[],
    private readonly map: GameMap,
  ) {}

  peek(offset = 0): Token | undefined {
    return this.tokens[this.i + offset];
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }
  next(): Token | undefined {
    return this.tokens[this.i++];
  }
  /** Consumes a word in `set` if it is next. */
  word(set: ReadonlySet<string>): boolean {
    const t = this.peek();
    if (t?.kind === 'word' && set.has(t.text)) {
      this.i++;
      return true;
    }
    return false;
  }
  /** Consumes a move arrow or move word, with an optional following "to". */
  arrow(extra?: ReadonlySet<string>): boolean {
    const t = this.peek();
    if (t === undefined) return false;
    if (t.kind === 'move' || (t.kind === 'word' && (MOVE.has(t.text) || extra?.has(t.text) === true))) {
      this.i++;
      const after = this.peek();
      if (after?.kind === 'word' && after.text === 'to' && t.text !== 'to') this.i++;
      return true;
    }
    return false;
  }
  unitType(): UnitType | null {
    const t = this.peek();
    if (t?.kind !== 'word') return null;
    const type = UNIT_WORDS[t.text];
    if (type === undefined) return null;
    // "a" or "f" followed by nothing that names a place is not a unit letter.
    const after = this.peek(1);
    if (after === undefined || after.kind !== 'word') return null;
    this.i++;
    return type;
  }
  fail(message: string, token?: Token, code: 'bad_order' | 'unknown_province' = 'bad_order'): never {
    return fail(this.text, message, token?.at, code);
  }
  expectEnd(): void {
    const t = this.peek();
    if (t !== undefined) this.fail(`unexpected "${t.text}"`, t);
  }
  /** A province, with an optional coast: `stp/sc`, `spa(nc)`, `spain (north coast)`. */
  location(what: string): string {
    const first = this.peek();
    if (first?.kind !== 'word') this.fail(`expected ${what}`, first);
    const { names, longest } = spellingsOf(this.map);
    let province: string | undefined;
    let used = 0;
    for (let n = longest; n >= 1 && province === undefined; n--) {
      const words: string[] = [];
      for (let k = 0; k < n; k++) {
        const t = this.peek(k);
        if (t?.kind !== 'word') break;
        words.push(t.text);
      }
      if (words.length !== n) continue;
      const found = names.get(words.join(' '));
      if (found !== undefined) {
        province = found;
        used = n;
      }
    }
    if (province === undefined) this.fail(`unknown province "${first.text}" (expected ${what})`, first, 'unknown_province');
    this.i += used;
    const coast = this.coast();
    if (coast === null) return province;
    const p = this.map.province(province);
    if (p === undefined || !p.coasts.includes(coast.coast)) this.fail(`${p?.name ?? province} has no coast "${coast.coast}"`, coast.token);
    return `${province}/${coast.coast}`;
  }
  private coast(): { coast: string; token: Token } | null {
    const t = this.peek();
    if (t?.kind === 'slash') {
      const c = this.peek(1);
      const coast = c?.kind === 'word' ? COASTS[c.text] : undefined;
      if (coast === undefined) this.fail('expected a coast (nc, sc, ec, wc) after "/"', c);
      this.i += 2;
      return { coast, token: c as Token };
    }
    if (t?.kind === 'open') {
      const words: string[] = [];
      let k = 1;
      for (; this.peek(k)?.kind === 'word'; k++) words.push((this.peek(k) as Token).text);
      const close = this.peek(k);
      const coast = COASTS[words.join(' ')];
      if (coast === undefined || close?.kind !== 'close') this.fail('expected a coast such as "(nc)"', this.peek(1));
      this.i += k + 1;
      return { coast, token: this.peek(-1) as Token };
    }
    return null;
  }
}

/**
 * Parses one order for a phase of the given type. Throws
 * FairtableError('bad_order' | 'unknown_province') saying what is wrong and
 * at which character.
 */
export function parseOrder(text: string, map: GameMap, phase: PhaseType): Order {
  if (typeof text !== 'string') throw new FairtableError('bad_order', 'an order must be a string', { field: 'order' });
  // A full stop or semicolon closing the order, as in a letter, is not part of it.
  const lower = text.toLowerCase().replace(/[.;]+\s*$/, '');
  const tokens = tokenize(text, lower, spellingsOf(map).hyphenated);
  if (tokens.length === 0) fail(text, 'empty order', 1);
  // An optional "Power:" prefix, as in DATC files.
  if (tokens[1]?.kind === 'colon' && tokens[0]?.kind === 'word') {
    if (!map.powers.includes(tokens[0].text)) fail(text, `unknown power "${tokens[0].text}"`, tokens[0].at);
    tokens.splice(0, 2);
  }
  const r = new Reader(text, tokens, map);
  let order: Order;
  if (phase === 'movement') order = movementOrder(r);
  else if (phase === 'retreat') order = retreatOrder(r);
  else order = adjustmentOrder(r);
  r.expectEnd();
  return order;
}

function movementOrder(r: Reader): Order {
  const unit = r.unitType();
  const at = r.location("the ordered unit's province");
  if (r.done()) return { kind: 'hold', unit, at };
  if (r.word(HOLD)) return { kind: 'hold', unit, at };
  if (r.arrow()) {
    const to = r.location('a destination');
    let viaConvoy = false;
    const t = r.peek();
    if (t?.kind === 'word' && (t.text === 'via' || t.text === 'by')) {
      r.next();
      const c = r.peek();
      if (c?.kind === 'word' && CONVOY.has(c.text)) r.next();
      else if (t.text === 'by') r.fail('expected "convoy" after "by"', c);
      viaConvoy = true;
    }
    return { kind: 'move', unit, at, to, viaConvoy };
  }
  if (r.word(SUPPORT)) {
    const target = r.unitType();
    const from = provinceOf(r.location("the supported unit's province"));
    if (r.done() || r.word(HOLD)) return { kind: 'support', unit, at, target, from, to: null };
    if (!r.arrow()) r.fail('expected "-" or "H" after the supported unit', r.peek());
    const to = r.location("the supported move's destination");
    return { kind: 'support', unit, at, target, from, to };
  }
  if (r.word(CONVOY)) {
    const target = r.unitType();
    if (target === 'fleet') r.fail('only armies can be convoyed', r.peek(-1));
    const from = provinceOf(r.location("the convoyed army's province"));
    if (!r.arrow()) r.fail('expected "-" after the convoyed army', r.peek());
    const to = provinceOf(r.location("the convoy's destination"));
    return { kind: 'convoy', unit, at, from, to };
  }
  return r.fail('expected H, -, S or C after the unit', r.peek());
}

function retreatOrder(r: Reader): Order {
  if (r.word(DISBAND)) {
    const unit = r.unitType();
    return { kind: 'disband', unit, at: r.location("the disbanded unit's province") };
  }
  const unit = r.unitType();
  const at = r.location("the retreating unit's province");
  if (r.word(DISBAND)) return { kind: 'disband', unit, at };
  if (r.arrow(RETREAT)) return { kind: 'retreat', unit, at, to: r.location('a retreat destination') };
  return r.fail('expected R, - or D after the unit', r.peek());
}

function adjustmentOrder(r: Reader): Order {
  if (r.word(WAIVE)) return { kind: 'waive' };
  if (r.word(BUILD)) {
    const unit = r.unitType();
    if (unit === null) r.fail('a build names its unit type (A or F)', r.peek());
    return { kind: 'build', unit, at: r.location("the build's province") };
  }
  if (r.word(REMOVE)) {
    const unit = r.unitType();
    return { kind: 'remove', unit, at: r.location("the removed unit's province") };
  }
  const unit = r.unitType();
  const at = r.location('a province');
  if (r.word(BUILD)) {
    if (unit === null) r.fail('a build names its unit type (A or F)', r.peek(-1));
    return { kind: 'build', unit, at };
  }
  if (r.word(REMOVE)) return { kind: 'remove', unit, at };
  return r.fail('expected "Build", "Remove" or "Waive"', r.peek());
}

const letter = (type: WrittenType): string => (type === 'army' ? 'A ' : type === 'fleet' ? 'F ' : '');

/**
 * The canonical text of an order: unit letters and verbs in capitals as the
 * rulebook writes them, locations as lower-case map ids, single spaces.
 */
export function formatOrder(order: Order): string {
  switch (order.kind) {
    case 'hold':
      return `${letter(order.unit)}${order.at} H`;
    case 'move':
      return `${letter(order.unit)}${order.at} - ${order.to}${order.viaConvoy ? ' via convoy' : ''}`;
    case 'support':
      return `${letter(order.unit)}${order.at} S ${letter(order.target)}${order.from}${order.to === null ? '' : ` - ${order.to}`}`;
    case 'convoy':
      return `${letter(order.unit)}${order.at} C A ${order.from} - ${order.to}`;
    case 'retreat':
      return `${letter(order.unit)}${order.at} R ${order.to}`;
    case 'disband':
      return `${letter(order.unit)}${order.at} D`;
    case 'build':
      return `Build ${letter(order.unit)}${order.at}`;
    case 'remove':
      return `Remove ${letter(order.unit)}${order.at}`;
    case 'waive':
      return 'Waive';
  }
}
