/**
 * Which witness URLs a setup may name (docs/spec/relay.md §8, "Which URLs"). Every seat of a game posts each
 * of its envelopes to every witness the setup names, so the URL is chosen by the game's creator and used by
 * everyone else's machine: a URL that reaches into a player's own network, carries credentials or smuggles a
 * query would turn every player into the creator's HTTP client. One rule, checked by every client before its
 * seat plays and by the relay before it creates the game:
 *
 * - `https:`; or `http:` only to a loopback host (`localhost`, 127.0.0.0/8, `[::1]`) or to a host the person
 *   running the client (or relay) allowed by name;
 * - no credentials (`user:pass@`), no query (`?`), no fragment (`#`), no spaces or control characters.
 *
 * Pure: the platform's WHATWG `URL` reads the address (a browser's and Node's agree).
 */
import { FairtableError } from '../errors.js';

export interface WitnessUrlOptions {
  /** Hosts (as a URL writes them: lowercase names, dotted IPv4, IPv6 in brackets) a witness may be reached on over plain `http:`. */
  readonly httpHosts?: readonly string[];
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/** Whether `hostname` (as `URL` gives it) is this machine. */
export function isLoopbackHost(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || LOOPBACK_V4.test(hostname);
}

/** Why `url` may not be a witness's address, in words; null when it may. */
export function witnessUrlProblem(url: unknown, options: WitnessUrlOptions = {}): string | null {
  if (typeof url !== 'string') return 'a witness URL is a string';
  if (url.length > 2048) return 'longer than 2048 characters';
  // URL parsing silently drops tabs and newlines and trims spaces: what is signed must be what is used.
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u0020\u007f]/.test(url)) return 'it holds spaces or control characters';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return `the scheme ${parsed.protocol} is not https:`;
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1];
  if (authority === undefined) return 'not an absolute URL of the form scheme://host/path';
  if (authority.includes('@') || parsed.username !== '' || parsed.password !== '') return 'it carries credentials (user:password@)';
  if (url.includes('?')) return 'it has a query (?…)';
  if (url.includes('#')) return 'it has a fragment (#…)';
  if (parsed.protocol === 'http:') {
    const host = parsed.hostname.toLowerCase();
    const allowed = (options.httpHosts ?? []).some((h) => h.trim().toLowerCase() === host);
    if (!isLoopbackHost(host) && !allowed)
      return `plain http: is only for this machine (localhost, 127.0.0.0/8, [::1]) or a host allowed by whoever runs the client, not ${host}`;
  }
  return null;
}

/** `url` when it may be a witness's address; throws FairtableError('bad_witness_url') naming it and why otherwise. */
export function checkWitnessUrl(url: unknown, options: WitnessUrlOptions = {}): string {
  const why = witnessUrlProblem(url, options);
  if (why !== null)
    throw new FairtableError('bad_witness_url', `witness URL ${JSON.stringify(url)?.slice(0, 300) ?? String(url)}: ${why}`, { field: 'witnesses' });
  return url as string;
}

/**
 * Checks every witness a setup's `params.witnesses` names (any entry with a `url` member, whatever its other
 * members): throws FairtableError('bad_witness_url') at the first one no client may post to.
 */
export function checkSetupWitnesses(params: { readonly [key: string]: unknown }, options: WitnessUrlOptions = {}): void {
  const list = params.witnesses;
  if (!Array.isArray(list)) return;
  for (const w of list as unknown[]) {
    if (w !== null && typeof w === 'object' && 'url' in w) checkWitnessUrl((w as { url: unknown }).url, options);
  }
}

/** Hosts allowed over plain `http:` from a comma-separated list (an environment variable's value). */
export function httpHostsFrom(list: string | undefined): string[] {
  return (list ?? '')
    .split(',')
    .map((h) => h.trim().toLowerCase())
    .filter((h) => h.length > 0);
}
