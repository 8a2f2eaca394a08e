/**
 * Armored envelopes (docs/SPEC.md §11): a text block that survives e-mail.
 *
 *   -----BEGIN FAIRTABLE MESSAGE-----
 *   <base64 of the payload bytes, 64 characters a line>
 *   Checksum: <16 hex digits: the first 8 bytes of H("armor", payload)>
 *   -----END FAIRTABLE MESSAGE-----
 *
 * The payload is one or more transcript lines (JSON Lines). Reading is
 * forgiving of what mail does to text (quoting with "> ", re-wrapped white
 * space, CRLF, text around the block) and strict about content: a payload
 * whose checksum does not match is refused. The checksum catches mangling;
 * the envelopes' own signatures are what catch forgery.
 *
 * Both directions stream (ArmorWriter, ArmorReader): memory per chunk, not per
 * payload, so a payload of any size is armored and read back in constant
 * memory. `armor` and `dearmor` are the whole-input forms of the same code.
 */
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { FairtableError } from './errors.js';
import { fromUtf8, toHex } from './bytes.js';
import { domainPrefix } from './hash.js';

const BEGIN = '-----BEGIN FAIRTABLE MESSAGE-----';
const END = '-----END FAIRTABLE MESSAGE-----';
const ROW_CHARS = 64;
const ROW_BYTES = 48;

/** An incremental SHA-256 (noble's by default; Node passes its native one: the same bytes). */
export interface IncrementalSha256 {
  update(data: Uint8Array): unknown;
  digest(): Uint8Array;
}
export type Sha256Factory = () => IncrementalSha256;
const nobleFactory: Sha256Factory = () => nobleSha256.create();

/** The armor checksum H("armor", payload), fed as the payload streams by. */
function checksumHash(factory: Sha256Factory): IncrementalSha256 {
  const h = factory();
  h.update(domainPrefix('armor'));
  return h;
}
const checksumOf = (h: IncrementalSha256): string => toHex(h.digest()).slice(0, 16);

/** Base64 of `bytes`; btoa takes a binary string, built in slices so that no argument list grows too long. */
function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Writes one armored block chunk by chunk: each call returns the text to append. */
export class ArmorWriter {
  private readonly hash: IncrementalSha256;
  private rest = new Uint8Array(0);
  private begun = false;
  private bytes = 0;

  constructor(options: { sha256?: Sha256Factory } = {}) {
    this.hash = checksumHash(options.sha256 ?? nobleFactory);
  }

  /** How many payload bytes have been pushed. */
  get size(): number {
    return this.bytes;
  }

  push(chunk: Uint8Array): string {
    // A plain view: Node's Buffer gives `slice` the meaning of `subarray`, and the rest must be a copy.
    chunk = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.hash.update(chunk);
    this.bytes += chunk.length;
    let data = chunk;
    if (this.rest.length > 0) {
      data = new Uint8Array(this.rest.length + chunk.length);
      data.set(this.rest);
      data.set(chunk, this.rest.length);
    }
    const whole = data.length - (data.length % ROW_BYTES);
    this.rest = data.slice(whole);
    let out = this.begin();
    // Rows are encoded a batch at a time: 48 bytes make exactly 64 characters, so rows never straddle a batch.
    for (let i = 0; i < whole; i += ROW_BYTES * 1024) {
      const b64 = toBase64(data.subarray(i, Math.min(whole, i + ROW_BYTES * 1024)));
      for (let j = 0; j < b64.length; j += ROW_CHARS) out += b64.slice(j, j + ROW_CHARS) + '\n';
    }
    return out;
  }

  end(): string {
    let out = this.begin();
    if (this.rest.length > 0) out += toBase64(this.rest) + '\n';
    this.rest = new Uint8Array(0);
    return `${out}Checksum: ${checksumOf(this.hash)}\n${END}\n`;
  }

  private begin(): string {
    if (this.begun) return '';
    this.begun = true;
    return BEGIN + '\n';
  }
}

export function armor(payload: Uint8Array): string {
  const w = new ArmorWriter();
  return w.push(payload) + w.end();
}

/** A line longer than this outside a block is never a marker, and is read past without being kept. */
const MAX_MARKER_LINE = 1 << 16;
const QUOTING = /^(\s*>\s?)+/;
const CHECKSUM = /^Checksum:\s*([0-9a-f]{16})$/;
const BASE64_LINE = /^([A-Za-z0-9+/]*)(=*)$/;

interface Block {
  readonly openedOn: number;
  readonly hash: IncrementalSha256;
  /** Base64 characters not yet decoded (fewer than 4). */
  quad: string;
  pads: number;
  checksum: string | null;
}

/**
 * Reads armored blocks from text given chunk by chunk (an e-mail, say), and
 * hands each block's payload bytes to `onPayload` as they are decoded, then
 * calls `onBlock` when the block's checksum has been checked. A
 * block's checksum is known only at its end: bytes already handed over belong
 * to a block that may still be refused, so a caller that must not act on an
 * unchecked payload holds them (the command line spools them to a file) until
 * `end` returns.
 */
export class ArmorReader {
  private readonly factory: Sha256Factory;
  private readonly onBlock: (() => void) | undefined;
  private carry = '';
  /** The pending line already had a first part consumed (a long base64 line), or is being skipped. */
  private midLine: 'no' | 'data' | 'skip' = 'no';
  private lineNo = 0;
  private block: Block | null = null;
  private blocks = 0;

  constructor(
    private readonly onPayload: (bytes: Uint8Array) => void,
    options: { sha256?: Sha256Factory; onBlock?: () => void } = {},
  ) {
    this.factory = options.sha256 ?? nobleFactory;
    this.onBlock = options.onBlock;
  }

  push(text: string): void {
    let from = 0;
    for (;;) {
      const lf = text.indexOf('\n', from);
      if (lf < 0) break;
      const line = this.carry + text.slice(from, lf);
      this.carry = '';
      this.line(line);
      from = lf + 1;
    }
    this.carry += text.slice(from);
    if (this.carry.length > MAX_MARKER_LINE) this.longLine();
  }

  /** Ends the text; returns how many blocks were read. Throws when a block is unfinished or there was none. */
  end(): number {
    if (this.carry.length > 0 || this.midLine !== 'no') {
      const line = this.carry;
      this.carry = '';
      this.line(line);
    }
    if (this.block !== null) throw new FairtableError('bad_armor', `armor: the block opened on line ${this.block.openedOn} never ends`);
    if (this.blocks === 0) throw new FairtableError('bad_armor', `armor: no "${BEGIN}" block found`);
    return this.blocks;
  }

  /** A line too long to keep: outside a block it is skipped; inside, it can only be base64, decoded as it comes. */
  private longLine(): void {
    if (this.block === null) {
      this.midLine = this.midLine === 'data' ? 'data' : 'skip';
      this.carry = '';
      return;
    }
    let text = this.carry;
    if (this.midLine === 'no') text = text.replace(QUOTING, '').trimStart();
    else this.continuation(text);
    // Trailing white space may end the line, or be inner white space; keep it until the line shows which.
    const keep = text.length - text.trimEnd().length;
    this.data(text.slice(0, text.length - keep), this.block);
    this.carry = text.slice(text.length - keep);
    this.midLine = 'data';
  }

  /** The rest of a long base64 line: white space held back, then more characters, is white space inside the line. */
  private continuation(rest: string): void {
    if (/^\s+\S/.test(rest)) throw new FairtableError('bad_armor', 'armor: the body is not base64');
  }

  private line(raw: string): void {
    const mid = this.midLine;
    this.midLine = 'no';
    this.lineNo++;
    if (mid === 'skip') return;
    if (mid === 'data') {
      this.continuation(raw);
      const rest = raw.trim();
      if (rest.length > 0) this.data(rest, this.block!);
      return;
    }
    const line = raw.replace(QUOTING, '').trim();
    const block = this.block;
    if (block === null) {
      if (line === BEGIN) this.block = { openedOn: this.lineNo, hash: checksumHash(this.factory), quad: '', pads: 0, checksum: null };
      return;
    }
    if (line === END) {
      this.finish(block);
      return;
    }
    if (line.length === 0) return;
    const sum = CHECKSUM.exec(line);
    if (sum !== null && block.checksum === null) {
      block.checksum = sum[1]!;
      return;
    }
    if (line.startsWith('Checksum:') && block.checksum === null) {
      throw new FairtableError('bad_armor', `armor: the block opened on line ${block.openedOn} has no "Checksum:" line`);
    }
    this.data(line, block);
  }

  private data(text: string, block: Block): void {
    // The checksum line must be the last of the block: anything after it makes it part of the body, which is not base64.
    if (block.checksum !== null || text.length === 0) {
      if (text.length === 0) return;
      throw new FairtableError('bad_armor', 'armor: the body is not base64');
    }
    const m = BASE64_LINE.exec(text);
    if (m === null || (block.pads > 0 && m[1]!.length > 0)) throw new FairtableError('bad_armor', 'armor: the body is not base64');
    block.pads += m[2]!.length;
    if (block.pads > 2) throw new FairtableError('bad_armor', 'armor: the body is not base64');
    const all = block.quad + text;
    const whole = all.length - (all.length % 4);
    block.quad = all.slice(whole);
    if (whole === 0) return;
    let binary: string;
    try {
      binary = atob(all.slice(0, whole));
    } catch {
      throw new FairtableError('bad_armor', 'armor: the body is not base64');
    }
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    block.hash.update(bytes);
    this.onPayload(bytes);
  }

  private finish(block: Block): void {
    if (block.checksum === null) throw new FairtableError('bad_armor', `armor: the block opened on line ${block.openedOn} has no "Checksum:" line`);
    if (block.quad.length !== 0) throw new FairtableError('bad_armor', 'armor: the body is not base64');
    if (checksumOf(block.hash) !== block.checksum) {
      throw new FairtableError(
        'bad_checksum',
        `armor: the checksum of the block opened on line ${block.openedOn} does not match: the text was altered in transit`,
      );
    }
    this.block = null;
    this.blocks++;
    this.onBlock?.();
  }
}

/** Finds every armored block in `text` (an e-mail, say) and returns their payloads, checked. */
export function dearmor(text: string): Uint8Array[] {
  const payloads: Uint8Array[] = [];
  let parts: Uint8Array[] = [];
  const reader = new ArmorReader((bytes) => parts.push(bytes), {
    onBlock: () => {
      payloads.push(concat(parts));
      parts = [];
    },
  });
  reader.push(text);
  reader.end();
  return payloads;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export const dearmorText = (text: string): string[] => dearmor(text).map(fromUtf8);
