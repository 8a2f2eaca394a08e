/**
 * The server side of bench/tcp-table.bench.ts: serves a table for the setup
 * line read from stdin, prints its port, and when stdin closes prints its peak
 * RSS and the disconnections it made, as JSON.
 */
import { serveTable } from '@fairtable/node/tcp-table.js';

let input = '';
process.stdin.setEncoding('utf8');
const setupLine = await new Promise<string>((resolve) => {
  const onData = (d: string): void => {
    input += d;
    const nl = input.indexOf('\n');
    if (nl >= 0) {
      process.stdin.off('data', onData);
      resolve(input.slice(0, nl));
    }
  };
  process.stdin.on('data', onData);
});
const events: string[] = [];
const server = await serveTable(setupLine, { onEvent: (e) => e.type === 'disconnected' && events.push(e.code) });
process.stdout.write(`${server.port}\n`);
process.stdin.resume();
process.stdin.on('end', () => {
  void server.close().then(() => {
    process.stdout.write(JSON.stringify({ maxRssMiB: process.resourceUsage().maxRSS / 1024, events }) + '\n');
    process.exit(0);
  });
});
