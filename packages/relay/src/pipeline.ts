/**
 * The pipeline (docs/spec/relay.md, "The pipeline"): a submitted line is read once on a verifying thread
 * and reaches its game's door in arrival order (intake.ts); what the door admits gets its number, its log
 * hash and its receipt's time at once, goes to the store in batches, one append at a time (batch-writer.ts),
 * and only once committed is acknowledged (`accepted`) and fanned out (`entry`) in log order. A sealed
 * game's lines, and the envelopes its room releases, take the event loop's own path to the same writer.
 */
import { availableParallelism } from 'node:os';
import type { Admission } from '@fairtable/core/door.js';
import { MAX_RECEIPT_BATCH, nextLogHash, signReceiptBatch, type UnsignedReceipt } from '@fairtable/core/order/receipt.js';
import { nativeSign } from '@fairtable/node/native-verify.js';
import { BatchWriter } from './batch-writer.js';
import type { Connections } from './connections.js';
import { textFrame } from './frame.js';
import type { Connection, Game, Pending } from './games.js';
import { Intake } from './intake.js';
import { overQuota } from './quotas.js';
import type { RelayCore } from './relay-options.js';
import type { RoomHost } from './sealed.js';
import { isStorageError } from './storage-watch.js';
import type { BatchSignature } from './store.js';
import { VerifyPool } from './verify-pool.js';

export interface PipelineDeps {
  readonly core: RelayCore;
  readonly wire: Connections;
  /** A game whose admitted lines the store lost leaves memory (games.ts). */
  readonly forget: (g: Game, message: string, code?: string) => void;
}

export interface Pipeline {
  readonly pool: VerifyPool;
  readonly intake: Intake<Connection>;
  readonly writer: BatchWriter<Pending>;
  /** A line `c` submitted, after its hello. */
  submit(c: Connection, text: string): void;
  /** What a game's sealed room sees of the relay (sealed.ts). */
  roomHost(id: string, self: () => Game | undefined): RoomHost;
}

export function linePipeline(deps: PipelineDeps): Pipeline {
  const { options, quotas, log, clock, store, secretKey, metrics, storage } = deps.core;
  const { send, refuse, cork, sendFrame } = deps.wire;
  const { forget } = deps;

  /** What a line admitted now will be receipted with, once its batch is stored (the signature comes with the append). */
  const pending = (g: Game, line: number, hash: string, text: string, time: number, from: Connection | null): Pending => {
    g.log = nextLogHash(g.log, hash);
    g.unstored++;
    g.usage.lines++;
    g.usage.bytes += text.length;
    const unsigned: UnsignedReceipt = { v: 2, game: g.id, line, hash, log: g.log, time };
    return { game: g.id, line, text, receipt: unsigned, sig: '', index: 0, size: 0, path: [], from, entry: g };
  };

  const pool = new VerifyPool(options.verifyThreads ?? Math.max(1, Math.min(4, availableParallelism() - 1)), (e) =>
    log.error({ err: e }, 'a verifying thread failed; its lines are verified on the event loop'),
  );
  // None when the thread's module is missing (a partial build): the lines are then verified on the event loop.
  log.info({ threads: pool.size }, 'verifying threads started');
  const intake = new Intake<Connection>(pool, (c, text, a) => {
    c.game.usage.comingLines--;
    c.game.usage.comingBytes -= text.length;
    admitted(c, text, a);
  });
  /**
   * A batch's append: the store signs the receipts on its writing thread when it can (`appendSigning`),
   * else they are signed here and stored with `append`. Either way they are `signReceiptBatch`'s: one
   * signature for the batch (relay.md §2).
   */
  const appendBatch = async (batch: Pending[]): Promise<void> => {
    let signed: BatchSignature;
    if (store.appendSigning !== undefined) signed = await store.appendSigning(batch, secretKey);
    else {
      const receipts = signReceiptBatch(
        batch.map((p) => p.receipt),
        secretKey,
        nativeSign,
      );
      await store.append(batch.map((p, i) => ({ game: p.game, line: p.line, text: p.text, receipt: receipts[i]! })));
      signed = { sig: receipts[0]!.sig, paths: receipts.map((r) => r.batch!.path) };
    }
    for (let i = 0; i < batch.length; i++) {
      const p = batch[i]!;
      p.sig = signed.sig;
      p.index = i;
      p.size = batch.length;
      p.path = signed.paths[i]!;
    }
  };
  const writer = new BatchWriter<Pending>(
    appendBatch,
    (batch, seconds) => {
      metrics.storeFlush(seconds, batch.length);
      for (const p of batch) {
        p.entry.committed = p.line + 1;
        p.entry.unstored--;
        metrics.linesAccepted++;
        // The receipt encoded once, for the submitter's answer and every reader's entry; one buffer for all readers.
        // The same text as JSON.stringify of the receipt (hex and integers need no escaping), without building the object.
        const r = p.receipt;
        const path = p.path.length === 0 ? '[]' : `["${p.path.join('","')}"]`;
        const receiptText = `{"v":2,"game":"${r.game}","line":${r.line},"hash":"${r.hash}","log":"${r.log}","time":${r.time},"batch":{"index":${p.index},"size":${p.size},"path":${path}},"sig":"${p.sig}"}`;
        // The submitter's socket is corked for its line: its acknowledgement and its entry leave in one write.
        const corked = p.from === null ? null : cork(p.from);
        if (p.from !== null) sendFrame(p.from, textFrame(`{"kind":"accepted","line":${p.line},"receipt":`, receiptText, '}'));
        // One whole frame, written as it is to every reader.
        const entry = textFrame(`{"kind":"entry","line":${p.line},"text":`, JSON.stringify(p.text), ',"receipt":', receiptText, '}');
        for (const c of p.entry.connections) if (c.who !== null) sendFrame(c, entry);
        corked?.uncork();
      }
    },
    (e: unknown, lost: Pending[]) => {
      // The doors of the lost lines' games are ahead of the store: nothing of them was acknowledged, and the
      // only safe state is the stored one. Writes stop until there is room, and each of those games leaves
      // memory, to be rebuilt from the store when it is next asked for; every other game goes on.
      // A lease taken over (leases.ts) is no want of space: writes to the other games go on.
      const leaseLost = (e as { code?: unknown } | null)?.code === 'lease_lost';
      if (!leaseLost) storage.writeFailed(e);
      log.error(
        { err: e, lines: lost.length, storageError: isStorageError(e) },
        'the store failed to append; the games it held lines of are rebuilt from the store',
      );
      for (const g of new Set(lost.map((p) => p.entry)))
        forget(
          g,
          `the relay could not store this game's last lines (${(e as Error).message ?? e}); reconnect and submit again`,
          leaseLost ? 'lease_lost' : 'storage_full',
        );
      options.onStoreFailure?.(e);
    },
    // One receipt signature covers at most MAX_RECEIPT_BATCH lines (relay.md §2); more wait for the next append.
    MAX_RECEIPT_BATCH,
  );

  function submit(c: Connection, text: string): void {
    const g = c.game;
    if (storage.full !== null) return refuse(c, 'storage_full', `the relay stores nothing now: ${storage.full}; submit again later`);
    const over = overQuota(g.usage, text.length, quotas);
    if (over !== null) return refuse(c, 'game_full', over);
    if (g.sealed !== null) {
      // A sealed game's lines take the event loop's own path, one at a time: the room checks a sealed envelope
      // against the door as it stands, so no earlier line of the game may still be on the verifying threads;
      // and one time for the whole submission, so a sealed set due by then is released before this line.
      const now = clock();
      if (g.sealed.submit(sealedPeer(c), text, now)) return;
      admitted(c, text, g.door.admit(text, c.who!), now);
      return;
    }
    g.usage.comingLines++;
    g.usage.comingBytes += text.length;
    intake.submit(g.door, c, c.who!, text);
  }

  /** The door's answer to a line `c` submitted, in the order the game's lines arrived. */
  function admitted(c: Connection, text: string, a: Admission, now = clock()): void {
    const g = c.game;
    // A game forgotten after a failed append: its door is not the one that will be rebuilt.
    if (g.unloaded) return;
    if (!a.ok) return refuse(c, a.code, a.message);
    if (a.duplicate) {
      // An honest resend: the submitter is told again where its line stands, once it is stored.
      // A store that cannot be read now (a database out of reach) leaves the duplicate unanswered: the seat resends it.
      if (a.line < g.committed)
        void store.readLines(g.id, a.line, 1).then(
          (r) => r[0] && send(c, { kind: 'accepted', line: a.line, receipt: r[0].receipt }),
          (e: unknown) => log.debug({ err: e, game: g.id }, 'cannot read a stored line to answer a duplicate'),
        );
      return;
    }
    g.sealed?.observe(text);
    writer.add(pending(g, a.line, a.hash, text, now, c));
  }

  // Sealed mode: the room sees the relay through these (sealed.ts).
  function roomHost(id: string, self: () => Game | undefined): RoomHost {
    return {
      store,
      secretKey,
      clock,
      log,
      record(text, author, time) {
        const g = self();
        // The room of a game forgotten after a failed append: the rebuilt game's room releases its sets.
        if (g === undefined || g.unloaded) return;
        const a = g.door.admit(text, author);
        if (!a.ok || a.duplicate) {
          // Only a view that fell out of the checker's window while held gets here (sealed.md §8): the relay
          // cannot keep its promise, and the author's holding receipt says so.
          log.error({ game: id, player: author, code: a.ok ? 'duplicate' : a.code }, 'a released sealed envelope no longer passes the door');
          return;
        }
        g.sealed?.observe(text);
        writer.add(pending(g, a.line, a.hash, text, time, null));
      },
      flush: () => writer.flush(),
    };
  }
  const sealedPeer = (c: Connection) => ({
    who: c.who!,
    send: (m: Record<string, unknown>) => send(c, m),
    refuse: (code: string, message: string) => send(c, { kind: 'refused', code, message }),
  });

  return { pool, intake, writer, submit, roomHost };
}
