/**
 * The relay's counters, rendered as Prometheus text for `GET /metrics` (docs/spec/relay.md §3, §5):
 * connections, games, lines accepted, refusals and dropped connections by code, and the latency of
 * store appends as a histogram, and the process's memory.
 */

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

export class Metrics {
  linesAccepted = 0;
  private readonly refusals = new Map<string, number>();
  private readonly drops = new Map<string, number>();
  private readonly flushBuckets = BUCKETS.map(() => 0);
  private flushCount = 0;
  private flushSeconds = 0;
  private flushedLines = 0;

  refused(code: string): void {
    this.refusals.set(code, (this.refusals.get(code) ?? 0) + 1);
  }

  dropped(code: string): void {
    this.drops.set(code, (this.drops.get(code) ?? 0) + 1);
  }

  /** One store append that took `seconds` and carried `lines` lines. */
  storeFlush(seconds: number, lines: number): void {
    this.flushCount++;
    this.flushSeconds += seconds;
    this.flushedLines += lines;
    BUCKETS.forEach((b, i) => {
      if (seconds <= b) this.flushBuckets[i]!++;
    });
  }

  refusalCount(code: string): number {
    return this.refusals.get(code) ?? 0;
  }

  dropCount(code: string): number {
    return this.drops.get(code) ?? 0;
  }

  render(gauges: { readonly connections: number; readonly games: number }): string {
    const out: string[] = [];
    const metric = (name: string, type: string, help: string, rows: readonly string[]): void => {
      out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...rows);
    };
    metric('fairtable_relay_connections', 'gauge', 'Open WebSocket connections.', [`fairtable_relay_connections ${gauges.connections}`]);
    metric('fairtable_relay_games_loaded', 'gauge', 'Games held in memory.', [`fairtable_relay_games_loaded ${gauges.games}`]);
    metric('fairtable_relay_lines_accepted_total', 'counter', 'Lines stored and acknowledged.', [`fairtable_relay_lines_accepted_total ${this.linesAccepted}`]);
    const byCode = (name: string, m: Map<string, number>): string[] => [...m].map(([code, n]) => `${name}{code="${code}"} ${n}`);
    metric('fairtable_relay_refusals_total', 'counter', 'Submissions and setups refused, by code.', byCode('fairtable_relay_refusals_total', this.refusals));
    metric(
      'fairtable_relay_disconnects_total',
      'counter',
      'Connections closed by the relay, by code.',
      byCode('fairtable_relay_disconnects_total', this.drops),
    );
    const h = 'fairtable_relay_store_append_seconds';
    metric(h, 'histogram', 'Time of one store append (one transaction).', [
      ...BUCKETS.map((b, i) => `${h}_bucket{le="${b}"} ${this.flushBuckets[i]}`),
      `${h}_bucket{le="+Inf"} ${this.flushCount}`,
      `${h}_sum ${this.flushSeconds}`,
      `${h}_count ${this.flushCount}`,
    ]);
    const memory = process.memoryUsage();
    metric('process_resident_memory_bytes', 'gauge', 'Resident memory of the relay process.', [`process_resident_memory_bytes ${memory.rss}`]);
    metric('nodejs_heap_used_bytes', 'gauge', 'JavaScript heap in use.', [`nodejs_heap_used_bytes ${memory.heapUsed}`]);
    metric('nodejs_external_memory_bytes', 'gauge', 'Memory held outside the heap (buffers).', [
      `nodejs_external_memory_bytes ${memory.external + memory.arrayBuffers}`,
    ]);
    metric('fairtable_relay_store_appended_lines_total', 'counter', 'Lines written by store appends.', [
      `fairtable_relay_store_appended_lines_total ${this.flushedLines}`,
    ]);
    return out.join('\n') + '\n';
  }
}
