/**
 * Witness relays named on the command line (`--witness URL`, any number of times), each with the key it
 * answers `GET /witness` with, for a setup's `params.witnesses` (docs/spec/relay.md §8); and the hosts the
 * person running the command lets witnesses use plain http on (`--allow-http-witness HOST`, repeatable, and
 * FAIRTABLE_HTTP_WITNESSES=host,host), besides this machine (relay.md §8, "Which URLs").
 */
import { isHex } from '@fairtable/core/bytes.js';
import { checkWitnessUrl, httpHostsFrom } from '@fairtable/core/order/witness-url.js';
import { fail, failWith } from './io.js';

/** Commander's collector for an option given several times. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** What `--allow-http-witness` says, for each command that joins or creates a game. */
export const ALLOW_HTTP_WITNESS_HELP = 'a host a witness may be reached on over plain http, besides this machine (also $FAIRTABLE_HTTP_WITNESSES); repeatable';

/** The hosts allowed over plain http: FAIRTABLE_HTTP_WITNESSES and every `--allow-http-witness`. */
export function httpWitnessHosts(flags: readonly string[] | undefined): string[] {
  return [...httpHostsFrom(process.env.FAIRTABLE_HTTP_WITNESSES), ...httpHostsFrom((flags ?? []).join(','))];
}

/** The witness relays named on the command line, each with the key it answers `GET /witness` with (relay.md §8). */
export async function witnessesFrom(urls: readonly string[], httpHosts: readonly string[] = []): Promise<{ key: string; url: string }[]> {
  const out: { key: string; url: string }[] = [];
  for (const url of urls) {
    // Before anything is asked of it: every player's client will post there.
    try {
      checkWitnessUrl(url, { httpHosts });
    } catch (e) {
      failWith(e);
    }
    let key: unknown;
    try {
      const res = await fetch(`${url.replace(/\/+$/, '')}/witness`);
      key = ((await res.json()) as { relay?: unknown }).relay;
    } catch (e) {
      fail(`[connection_failed] --witness ${url}: cannot reach the witness (${(e as Error).message})`);
    }
    if (!isHex(key, 32)) fail(`[bad_message] --witness ${url}: not a relay's witness (no key at /witness)`);
    out.push({ key, url });
  }
  return out;
}
