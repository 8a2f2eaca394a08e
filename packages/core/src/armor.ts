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
 */
import { FairtableError } from './errors.js';
import { fromUtf8, toHex } from './bytes.js';
import { taggedHash } from './hash.js';

const BEGIN = '-----BEGIN FAIRTABLE MESSAGE-----';
const END = '-----END FAIRTABLE MESSAGE-----';

const checksum = (payload: Uint8Array): string => toHex(taggedHash('armor', payload)).slice(0, 16);

function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

function fromBase64(text: string): Uint8Array {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text) || text.length % 4 !== 0) throw new FairtableError('bad_armor', 'armor: the body is not base64');
  const binary = atob(text);
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

export function armor(payload: Uint8Array): string {
  const b64 = toBase64(payload);
  const rows = b64.match(/.{1,64}/g) ?? [];
  return [BEGIN, ...rows, `Checksum: ${checksum(payload)}`, END, ''].join('\n');
}

/** Finds every armored block in `text` (an e-mail, say) and returns their payloads, checked. */
export function dearmor(text: string): Uint8Array[] {
  const lines = text.split(/\r?\n/).map((l) => l.replace(/^(\s*>\s?)+/, '').trim());
  const out: Uint8Array[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== BEGIN) continue;
    const end = lines.indexOf(END, i + 1);
    if (end < 0) throw new FairtableError('bad_armor', `armor: the block opened on line ${i + 1} never ends`);
    const body = lines.slice(i + 1, end).filter((l) => l.length > 0);
    const sumLine = body.pop();
    const match = /^Checksum:\s*([0-9a-f]{16})$/.exec(sumLine ?? '');
    if (match === null) throw new FairtableError('bad_armor', `armor: the block opened on line ${i + 1} has no "Checksum:" line`);
    const payload = fromBase64(body.join(''));
    if (checksum(payload) !== match[1]) {
      throw new FairtableError('bad_checksum', `armor: the checksum of the block opened on line ${i + 1} does not match: the text was altered in transit`);
    }
    out.push(payload);
    i = end;
  }
  if (out.length === 0) throw new FairtableError('bad_armor', `armor: no "${BEGIN}" block found`);
  return out;
}

export const dearmorText = (text: string): string[] => dearmor(text).map(fromUtf8);
