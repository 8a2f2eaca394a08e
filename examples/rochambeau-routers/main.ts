/**
 * The designated-router election of draft-harkins-rochambeau-02 §1, played
 * for real: M router processes on 127.0.0.1 (ports chosen by the OS) play one
 * M-party, N-state game of Rochambeau and each prints the router it chose.
 *
 *   node --import tsx examples/rochambeau-routers/main.ts [--routers 5] [--states 2147483647]
 *
 * This process only starts the routers and tells each where the others
 * listen; it sees no payload. Each router prints one JSON line
 * {"node", "winner", "players": [{"id", "commit", "reveal"}]}; then this
 * process prints {"routers", "game", "states", "winner", "agree"} and exits 0 when all routers
 * named the same winner. Everything is bounded: a phase lasts at most
 * --phase-ms, the whole run at most --timeout-ms, then the routers are stopped.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    routers: { type: 'string', default: '5' },
    states: { type: 'string', default: String(2 ** 31 - 1) },
    'phase-ms': { type: 'string', default: '15000' },
    'timeout-ms': { type: 'string', default: '60000' },
  },
});
const count = Number(values.routers);
const gameId = `routers-${randomBytes(8).toString('hex')}`;
const routerScript = fileURLToPath(new URL('./router.ts', import.meta.url));

const routers: { id: string; process: ChildProcess; port?: number }[] = [];
const winners = new Map<string, string | null>();

const stop = setTimeout(() => {
  process.stderr.write('routers: time is up, stopping every router\n');
  for (const r of routers) r.process.kill();
  process.exit(1);
}, Number(values['timeout-ms']));

for (let k = 1; k <= count; k++) {
  const id = `router-${k}`;
  const child = fork(routerScript, [id, gameId, values.states, values['phase-ms']], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
  });
  const router: (typeof routers)[number] = { id, process: child };
  routers.push(router);
  let buffered = '';
  child.stdout!.setEncoding('utf8').on('data', (text: string) => {
    buffered += text;
    for (let end = buffered.indexOf('\n'); end >= 0; end = buffered.indexOf('\n')) {
      const line = buffered.slice(0, end);
      buffered = buffered.slice(end + 1);
      process.stdout.write(`${line}\n`);
      const report = JSON.parse(line) as { node: string; winner: string | null };
      winners.set(report.node, report.winner);
    }
  });
  child.on('message', (message: { type: string; port: number }) => {
    if (message.type !== 'listening') return;
    router.port = message.port;
    if (routers.length === count && routers.every((r) => r.port !== undefined)) {
      const peers = routers.map((r) => ({ id: r.id, port: r.port! }));
      for (const r of routers) r.process.send({ type: 'start', peers });
    }
  });
}

await Promise.all(routers.map((r) => new Promise((resolve) => r.process.on('exit', resolve))));
clearTimeout(stop);
const named = new Set(winners.values());
const agree = winners.size === count && named.size === 1;
process.stdout.write(`${JSON.stringify({ routers: count, game: gameId, states: values.states, winner: agree ? [...named][0] : null, agree })}\n`);
process.exitCode = agree ? 0 : 1;
