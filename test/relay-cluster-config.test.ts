/**
 * The balancer's configuration as shipped (deploy/haproxy.cfg, deploy/compose.cluster.yaml): the compose
 * file's relays are the configuration's servers, the configuration routes by game id with a consistent
 * hash and checks /health, and HAProxy itself accepts it as the cluster test rewrites it. Without HAProxy
 * the last check is skipped, saying why; under CI its absence fails (relay-cluster.test.ts).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { balancerConfig, haproxyBinary, HAPROXY_CONFIG } from './relay-cluster.js';

const compose = readFileSync(fileURLToPath(new URL('../deploy/compose.cluster.yaml', import.meta.url)), 'utf8');
const config = readFileSync(HAPROXY_CONFIG, 'utf8');
const haproxy = haproxyBinary();

describe('the balancer configuration', () => {
  it("names the compose file's relays as its servers, each health-checked, on the relays' port", () => {
    const relays = [...compose.matchAll(/^ {2}(relay\d+):/gm)].map((m) => m[1]);
    const nodes = [...compose.matchAll(/RELAY_NODE: (relay\d+)/g)].map((m) => m[1]);
    const servers = [...config.matchAll(/^\s*server (\S+) (\S+):8080 check$/gm)].map((m) => [m[1], m[2]]);
    expect(relays).toEqual(['relay1', 'relay2', 'relay3']);
    expect(nodes).toEqual(relays);
    expect(servers).toEqual(relays.map((r) => [r, r]));
    expect(compose).toMatch(/RELAY_TRUST_PROXY: 172\.30\.81\.2\n[\s\S]*haproxy:[\s\S]*ipv4_address: 172\.30\.81\.2\n/);
  });

  it('routes by a consistent hash of the game id, with health checks, and lets WebSockets through', () => {
    expect(config).toMatch(/^\s*balance hash var\(txn\.game\)$/m);
    expect(config).toMatch(/^\s*hash-type consistent$/m);
    expect(config).toMatch(/set-var\(txn\.game\) path,field\(3,\/\) if \{ path_beg \/games\/ \}/);
    expect(config).toMatch(/set-var\(txn\.game\) url_param\(game\) if \{ path \/games \}/);
    expect(config).toMatch(/http-check send meth GET uri \/health ver HTTP\/1\.1 hdr Host /);
    expect(config).toMatch(/^\s*timeout tunnel /m);
    expect(config).toMatch(/^\s*option forwardfor$/m);
  });

  it.skipIf(haproxy === null)(`is accepted by HAProxy as the tests rewrite it${haproxy === null ? ' (skipped: HAProxy is not installed)' : ''}`, () => {
    const dir = mkdtempSync(join(tmpdir(), 'fairtable-haproxy-check-'));
    try {
      const file = join(dir, 'haproxy.cfg');
      const text = balancerConfig(18080, [
        { node: 'a', port: 18081 },
        { node: 'b', port: 18082 },
      ]);
      expect(text).toContain('    bind 127.0.0.1:18080');
      expect(text).toContain('    server a 127.0.0.1:18081 check\n    server b 127.0.0.1:18082 check\n');
      expect(text).not.toMatch(/relay\d:8080/);
      writeFileSync(file, text);
      const check = spawnSync(haproxy!, ['-c', '-f', file], { encoding: 'utf8' });
      expect(check.stderr + check.stdout).toContain('Configuration file is valid');
      expect(check.status).toBe(0);
      // And a broken one is refused: the check can fail.
      writeFileSync(file, text.replace('hash-type consistent', 'hash-type nonsense'));
      expect(spawnSync(haproxy!, ['-c', '-f', file], { encoding: 'utf8' }).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
