/**
 * Group commit for the relay (docs/spec/relay.md, "The pipeline"): admitted lines wait here for the store, and go to
 * it in one `append` (one transaction) per batch. One append is in flight at a time: the lines admitted
 * while it runs form the next batch, so under load a batch holds what arrived during one commit, and
 * when idle a line is written in the turn of the event loop after it was admitted. A line's batch has
 * committed before `onCommitted` hears of it, and nothing about a line goes out before then: the relay
 * acknowledges only what is stored. How a batch is stored (and whose thread signs its receipts) is the
 * relay's `append`.
 */
/** Stores a batch in one transaction, all or none; resolves once it has committed. */
export type AppendFn<P> = (batch: P[]) => Promise<void>;

export class BatchWriter<P> {
  private pending: P[] = [];
  private writing: Promise<void> | null = null;
  private scheduled = false;

  constructor(
    private readonly append: AppendFn<P>,
    /** A batch that committed, in the order its lines were added. */
    private readonly onCommitted: (batch: P[], seconds: number) => void,
    /**
     * An append that failed: nothing of its batch was acknowledged. The batch and every line waiting behind it
     * (`lost`, in the order they were added) are handed back, none of them written, and the writer goes on with
     * the lines added after.
     */
    private readonly onFailure: (error: unknown, lost: P[]) => void,
    /** The most lines one append is given; the rest wait for the next (the relay's: one receipt signature's batch, relay.md §2). */
    private readonly maxBatch = Infinity,
  ) {}

  /** Lines added and not yet committed. */
  get waiting(): number {
    return this.pending.length;
  }

  add(line: P): void {
    this.pending.push(line);
    if (this.writing === null && !this.scheduled) {
      this.scheduled = true;
      // After the poll phase: every line admitted in this turn of the loop goes in the one batch.
      setImmediate(() => {
        this.scheduled = false;
        if (this.writing === null) this.write();
      });
    }
  }

  private write(): void {
    if (this.pending.length === 0) return;
    let batch: P[];
    if (this.pending.length <= this.maxBatch) {
      batch = this.pending;
      this.pending = [];
    } else batch = this.pending.splice(0, this.maxBatch);
    const started = performance.now();
    // One append at a time keeps the lines of each game in log order across batches.
    this.writing = this.append(batch).then(
      () => {
        this.writing = null;
        this.onCommitted(batch, (performance.now() - started) / 1000);
        this.write();
      },
      (e: unknown) => {
        this.writing = null;
        // What waited behind the batch may follow its lines (the same games): it is lost with it.
        const lost = batch.concat(this.pending);
        this.pending = [];
        this.onFailure(e, lost);
        this.write();
      },
    );
  }

  /** Resolves once every line added so far has been committed or handed back as lost. */
  async flush(): Promise<void> {
    while (this.writing !== null || this.pending.length > 0) {
      if (this.writing === null) this.write();
      await this.writing;
    }
  }
}
