/**
 * A new game bound to its orderer (docs/spec/time.md §5): before the setup is signed, the client asks the relay
 * for its key and the witness relays its operator names (`GET /relay`), and puts them in the setup's params
 * (`relay`: the key; `witnesses`: `[{key, url}]`, each witness's key from its own `GET /witness`). Every seat
 * and every auditor then refuses receipts under any other key, and a censored move can be shown by a witness.
 */
import { isHex } from '@fairtable/core/bytes.js';
import type { JsonValue } from '@fairtable/core/jcs.js';
import { ClientError, type FetchLike } from './relay-http.js';

function base(url: string): string {
  const u = new URL(url);
  if (u.protocol === 'ws:') u.protocol = 'http:';
  if (u.protocol === 'wss:') u.protocol = 'https:';
  return u.toString().replace(/\/+$/, '');
}

function fetchOf(f: FetchLike | undefined): FetchLike {
  const g = f ?? (globalThis as { fetch?: FetchLike }).fetch;
  if (g === undefined) throw new ClientError('bad_input', 'no fetch: pass one in the options');
  return g;
}

async function json(f: FetchLike, url: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    const r = await f(url);
    if (!r.ok) throw new ClientError('not_published', `${url} answered ${r.status}`);
    text = await r.text();
  } catch (e) {
    if (e instanceof ClientError) throw e;
    throw new ClientError('connection_failed', `cannot reach ${url}: ${(e as Error).message}`);
  }
  try {
    const v = JSON.parse(text) as unknown;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, unknown>;
  } catch {
    // below
  }
  throw new ClientError('bad_message', `${url} did not answer with a JSON object`);
}

/**
 * What a relay publishes (`GET /relay`): its key and its operator's witnesses. A relay without the route gives
 * its key at `/witness`, and no witnesses; one that publishes neither gives null (its games stay unbound).
 */
export async function relayInfo(relayUrl: string, options: { fetch?: FetchLike } = {}): Promise<{ relay: string; witnesses: string[] } | null> {
  const f = fetchOf(options.fetch);
  const root = base(relayUrl);
  let info: Record<string, unknown>;
  try {
    info = await json(f, `${root}/relay`);
  } catch (e) {
    if (!(e instanceof ClientError) || e.code !== 'not_published') throw e;
    try {
      info = { relay: (await json(f, `${root}/witness`)).relay, witnesses: [] };
    } catch (e2) {
      if (e2 instanceof ClientError && e2.code === 'not_published') return null;
      throw e2;
    }
  }
  if (!isHex(info.relay, 32)) throw new ClientError('bad_message', `${root} did not give its key (64 hex digits)`);
  const witnesses = Array.isArray(info.witnesses) ? info.witnesses.filter((w): w is string => typeof w === 'string') : [];
  return { relay: info.relay as string, witnesses };
}

/** A witness relay's key, as it answers `GET /witness`. */
export async function witnessKeyOf(url: string, options: { fetch?: FetchLike } = {}): Promise<string> {
  const key = (await json(fetchOf(options.fetch), `${base(url)}/witness`)).relay;
  if (!isHex(key, 32)) throw new ClientError('bad_message', `${url} is not a relay's witness (no key at /witness)`);
  return key as string;
}

/**
 * A new setup's params bound to the relay at `relayUrl`: its key as `relay`, and as `witnesses` the ones given
 * (already resolved) or else the relay's published ones, each with its key. A published witness that cannot be
 * reached is left out and listed in `skipped`; the game then has fewer witnesses, never a wrong one. A relay
 * that publishes no key leaves the game unbound (`relay: null`), as games were before binding.
 */
export async function bindToRelay(
  params: { readonly [key: string]: JsonValue },
  relayUrl: string,
  options: { fetch?: FetchLike; witnesses?: readonly { key: string; url: string }[] } = {},
): Promise<{ params: { [key: string]: JsonValue }; relay: string | null; skipped: string[] }> {
  const info = await relayInfo(relayUrl, options);
  const skipped: string[] = [];
  let witnesses = options.witnesses;
  if (witnesses === undefined) {
    const found: { key: string; url: string }[] = [];
    for (const url of info?.witnesses ?? []) {
      try {
        found.push({ key: await witnessKeyOf(url, options), url });
      } catch {
        skipped.push(url);
      }
    }
    witnesses = found;
  }
  const out: { [key: string]: JsonValue } = info === null ? { ...params } : { ...params, relay: info.relay };
  if (witnesses.length > 0) out.witnesses = witnesses.map((w) => ({ key: w.key, url: w.url }));
  return { params: out, relay: info?.relay ?? null, skipped };
}
