/**
 * What the event loop waits for from one of its threads (a verifying thread, the writing thread): the
 * requests sent and not yet answered, by id, in the order they were sent.
 *
 * Not a `Map`, on purpose (docs/spec/relay.md, "The pipeline": "Nothing a line needs outlives it in
 * the old generation", cause 1). A `Map` that has entries added and deleted for every batch is rebuilt by
 * V8 every few batches, and the table it leaves keeps both its entries and a link to the table that
 * replaced it. Once one of those tables is in the old generation (every major collection moves the live
 * one there), each later table, and every batch each one held, is kept through the young collections by
 * the one before it and lands in the old generation too, until the next major collection; which then
 * starts the chain again. Two arrays keep nothing they no longer hold.
 */
export class Awaiting<T> {
  private readonly ids: number[] = [];
  private readonly values: T[] = [];

  /** Requests sent and not yet answered. */
  get size(): number {
    return this.ids.length;
  }

  /** Notes request `id`, sent after every request already here. */
  add(id: number, value: T): void {
    this.ids.push(id);
    this.values.push(value);
  }

  /** What was noted for `id`, now answered, or undefined when it is not here. Answers come in order, so it is nearly always the first. */
  take(id: number): T | undefined {
    const k = this.ids.indexOf(id);
    if (k < 0) return undefined;
    this.ids.splice(k, 1);
    return this.values.splice(k, 1)[0];
  }

  /** Everything still awaited, oldest first, leaving nothing. */
  takeAll(): T[] {
    this.ids.length = 0;
    return this.values.splice(0);
  }
}
