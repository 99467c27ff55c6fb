import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { StoredVerdict } from './classify-message.js';
import type { WorkerReply, WorkerRequest, WorkerSetup } from './classify-worker.js';
import type { ListContext } from './rule-set.js';

const WORKER_FILE = fileURLToPath(new URL('./classify-worker.js', import.meta.url));

/**
 * A worker's young generation kept small: each worker is a heap of its own, and
 * with V8's default two workers took the stage from 180 MB to 305 MB RSS on
 * 100,000 messages. 8 MB: 265 MB, for 4% more CPU. sync, whose main thread
 * drains beside the worker and is the slower of the two, asks for less
 * (classify-on-arrival.ts).
 */
const WORKER_YOUNG_GENERATION_MB = 8;

interface Pending {
  resolve: (reply: WorkerReply) => void;
  reject: (error: Error) => void;
}

/**
 * Worker threads that parse and classify batches of raw messages beside the
 * main thread, which writes the store and parses a batch itself when every
 * worker is busy. Parsing is the expensive part of the pipeline
 * (docs/classify.md has the figures); on a machine with more cores, more
 * workers keep them busy.
 */
export class ClassifyPool {
  private readonly pending = new Map<number, Pending>();
  private readonly load: number[];
  private seq = 0;
  private failure: Error | undefined;

  private constructor(private readonly workers: Worker[]) {
    this.load = workers.map(() => 0);
    workers.forEach((worker, index) => {
      worker.on('message', (reply: WorkerReply) => {
        this.load[index]!--;
        const waiting = this.pending.get(reply.seq);
        this.pending.delete(reply.seq);
        if (reply.error !== undefined) waiting?.reject(new Error(reply.error));
        else waiting?.resolve(reply);
      });
      worker.on('error', (error) => this.fail(error));
      worker.on('exit', (code) => {
        if (code !== 0) this.fail(new Error(`a classify worker stopped with code ${code}`));
      });
    });
  }

  /**
   * Starts `size` workers reading the given systems file, each message matched within the budget; undefined when
   * none is asked for or none is available (running from TypeScript source,
   * where the compiled worker does not exist).
   */
  static start(
    size: number,
    setup: WorkerSetup,
    youngGenerationMb = WORKER_YOUNG_GENERATION_MB,
  ): ClassifyPool | undefined {
    if (size < 1 || !existsSync(WORKER_FILE)) return undefined;
    const resourceLimits = { maxYoungGenerationSizeMb: youngGenerationMb };
    return new ClassifyPool(
      Array.from({ length: size }, () => new Worker(WORKER_FILE, { workerData: setup, resourceLimits })),
    );
  }

  get size(): number {
    return this.workers.length;
  }

  /** Whether a worker has no batch: otherwise the caller parses the next one itself. */
  get hasIdleWorker(): boolean {
    return this.load.includes(0);
  }

  /**
   * Classifies a batch on the least busy worker. With `handOver`, a buffer
   * that owns its memory moves there rather than being copied: with large
   * mail a copy per batch in flight is what makes the process grow. The
   * caller must not read such a buffer afterwards.
   */
  async classify(rulesSystem: string, context: ListContext, raws: Buffer[], handOver = true): Promise<StoredVerdict[]> {
    const movable = (handOver ? raws : [])
      .filter((raw) => raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength)
      .map((raw) => raw.buffer as ArrayBuffer);
    return (await this.send({ seq: 0, rulesSystem, context, raws }, movable)).verdicts!;
  }

  private send(request: WorkerRequest, movable: ArrayBuffer[]): Promise<WorkerReply> {
    if (this.failure) return Promise.reject(this.failure);
    const seq = ++this.seq;
    const index = this.load.indexOf(Math.min(...this.load));
    this.load[index]!++;
    return new Promise((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.workers[index]!.postMessage({ ...request, seq } satisfies WorkerRequest, movable);
    });
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((worker) => worker.terminate()));
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.values()) waiting.reject(error);
    this.pending.clear();
  }
}
