import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { encodeRaw, type StoredRaw } from './raw-codec.js';
import { pack, unpack, type EncodeReply } from './raw-encoder-worker.js';

const WORKER_FILE = fileURLToPath(new URL('./raw-encoder-worker.js', import.meta.url));

/** Below this many messages a batch is compressed where it is: a round trip to the worker costs more. */
const WORKER_FROM_MESSAGES = 32;

/**
 * The worker allocates almost nothing on its heap but zlib's buffers outside
 * it, which V8 frees only when it collects: with a young generation of 8 MB
 * collections came so seldom that 100,000 messages grew the process by
 * 45-60 MB; with 1 MB, by 24-30 MB.
 */
const WORKER_LIMITS = { maxYoungGenerationSizeMb: 1 };

/**
 * Compresses fetched mail for the store (encodeRaw) on a worker thread, so the
 * thread that reads the archive and writes the store does not wait for zlib:
 * a batch is compressed while the one before it is written. Compression was
 * a third of fetch's CPU on list mail (docs/performance.md). The worker
 * starts with the first large batch; without it (running from TypeScript
 * source, or after the worker failed) batches are compressed in place.
 */
export class RawEncoder {
  private worker: Worker | undefined;
  private broken = !existsSync(WORKER_FILE);
  private seq = 0;
  private readonly pending = new Map<number, { raws: readonly Buffer[]; resolve: (stored: StoredRaw[]) => void }>();

  /** The stored form of each message, in order. Never fails: the worker's failure falls back to compressing here. */
  encode(raws: readonly Buffer[]): Promise<StoredRaw[]> {
    if (this.broken || raws.length < WORKER_FROM_MESSAGES) return Promise.resolve(raws.map(encodeRaw));
    const worker = (this.worker ??= this.startWorker());
    const seq = ++this.seq;
    const batch = pack(seq, raws);
    return new Promise((resolve) => {
      this.pending.set(seq, { raws, resolve });
      worker.postMessage(batch, [batch.packed.buffer as ArrayBuffer]);
    });
  }

  /** Whether large batches go to the worker thread: not from TypeScript source, nor after the worker failed. */
  get threaded(): boolean {
    return !this.broken;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    await worker?.terminate();
  }

  private startWorker(): Worker {
    const worker = new Worker(WORKER_FILE, { resourceLimits: WORKER_LIMITS });
    worker.on('message', (reply: EncodeReply) => {
      const waiting = this.pending.get(reply.seq);
      this.pending.delete(reply.seq);
      waiting?.resolve(unpack(reply).map((bytes, index) => ({ bytes, codec: reply.codecs[index]! })));
    });
    const fallBack = () => {
      if (this.worker !== worker) return; // closed on purpose
      this.broken = true;
      this.worker = undefined;
      for (const { raws, resolve } of this.pending.values()) resolve(raws.map(encodeRaw));
      this.pending.clear();
    };
    worker.on('error', fallBack);
    worker.on('exit', fallBack);
    return worker;
  }
}
