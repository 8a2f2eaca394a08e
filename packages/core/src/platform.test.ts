import { afterEach, describe, expect, it } from 'vitest';
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { configure, platformSha256 } from './platform.js';
import { sha256, taggedHash } from './hash.js';
import * as root from './index.js';

const noble = platformSha256;
afterEach(() => configure({ sha256: noble }));

describe('platform hook', () => {
  it('routes every core hash through the injected digest', () => {
    const seen: number[] = [];
    configure({ sha256: (data) => (seen.push(data.length), nobleSha256(data)) });
    expect(sha256(new Uint8Array(3))).toEqual(nobleSha256(new Uint8Array(3)));
    taggedHash('commit', new Uint8Array(5));
    expect(seen).toEqual([3, 'fairtable/commit/v1'.length + 1 + 5]);
  });

  it('leaves the digest alone when no sha256 is given', () => {
    const mine = (data: Uint8Array): Uint8Array => nobleSha256(data);
    configure({ sha256: mine });
    configure({});
    expect(platformSha256).toBe(mine);
  });

  it('is not reachable from the package root', () => {
    expect(Object.keys(root)).not.toContain('configure');
    expect(Object.keys(root)).not.toContain('setSha256');
    expect(Object.keys(root)).not.toContain('simulate');
  });
});
