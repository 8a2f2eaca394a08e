/**
 * Witness relays named on the command line (`--witness URL`, any number of times), each with the key it
 * answers `GET /witness` with, for a setup's `params.witnesses` (docs/spec/relay.md §8).
 */
import { isHex } from '@fairtable/core/bytes.js';
import { fail } from './io.js';

/** Commander's collector for an option given several times. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];

/** The witness relays named on the command line, each with the key it answers `GET /witness` with (relay.md §8). */
export async function witnessesFrom(urls: readonly string[]): Promise<{ key: string; url: string }[]> {
  const out: { key: string; url: string }[] = [];
  for (const url of urls) {
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
