import { once } from 'node:events';
import { mkdir, rename, rm, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { Cell, Column } from './export-columns.js';
import type { FormatWriter, TableWriter } from './format-writer.js';
import type { ParquetReply, ParquetRequest, ParquetWorkerData } from './parquet-worker.js';

// In Node since 16; TypeScript's lib declares it from ES2024 on.
const { waitAsync } = Atomics as unknown as {
  waitAsync(
    this: void,
    array: Int32Array,
    index: number,
    value: number,
  ): { async: boolean; value: Promise<string> | string };
};

const WORKER_FILE = fileURLToPath(new URL('./parquet-worker.js', import.meta.url));

/**
 * The most DuckDB may hold: a ceiling, not what it takes. A streamed COPY
 * holds one row group being encoded, a few times its cells, and stays far
 * below; the room is for bodies of tens of MB, which have to fit whole (two
 * 30 MB bodies failed with Out of Memory at 128 MB). Peaks measured the same
 * at 128 and 512 MB on ordinary mail.
 */
export const DUCKDB_MEMORY_LIMIT = '512MB';
/**
 * About how many bytes one Parquet row group holds in DuckDB before it is
 * encoded (ROW_GROUP_SIZE_BYTES): some 3,000 messages with bodies. DuckDB
 * buffers the group being written, and keeps every group's metadata until
 * the footer; smaller groups buffer less but leave more metadata. Measured on
 * 1,000,000 messages with bodies: 2 MB groups peaked at 327 MB, 8 MB at 283
 * MB, 16 MB at 300 MB (docs/export.md).
 */
export const ROW_GROUP_BYTES = 8 * 1024 * 1024;
/** Batches sent to the worker and not yet taken: enough that it never waits on the store for long. */
const MAX_IN_FLIGHT = 2;

/**
 * Parquet through DuckDB's own writer (`COPY … (FORMAT parquet)`), fed as
 * a stream: a worker thread runs DuckDB, and the COPY's source is a table
 * function that hands DuckDB the rows this thread reads from the store, batch
 * by batch. Nothing is staged, so memory is a few batches and one row group
 * whatever the table's size (docs/export.md has the figures). The source
 * blocks its thread while it waits for rows; that is why DuckDB lives in a
 * worker and the store stays here.
 */
export async function parquetFormat(tempDirectory: string): Promise<FormatWriter> {
  await mkdir(tempDirectory, { recursive: true });
  const channel = new MessageChannel();
  const counters = new Int32Array(new SharedArrayBuffer(8));
  const workerData: ParquetWorkerData = {
    port: channel.port2,
    counters,
    memoryLimit: DUCKDB_MEMORY_LIMIT,
    rowGroupBytes: ROW_GROUP_BYTES,
    tempDirectory,
  };
  const worker = new Worker(WORKER_FILE, { workerData, transferList: [channel.port2] });
  const link = new WorkerLink(worker, channel.port1, counters);
  return {
    extension: 'parquet',
    open: (path, columns) => link.openFile(path, columns),
    async close() {
      await link.close();
      await rm(tempDirectory, { recursive: true, force: true });
    },
  };
}

/** This thread's end of the worker: requests in order, back-pressure, and the replies of finished files. */
class WorkerLink {
  private sent = 0;
  private fileSeq = 0;
  private readonly replies = new Map<number, ParquetReply>();
  private readonly waiting = new Map<number, (reply: ParquetReply) => void>();
  private failure: Error | undefined;
  private readonly failed: Promise<never>;

  constructor(
    private readonly worker: Worker,
    private readonly port: MessagePort,
    private readonly counters: Int32Array,
  ) {
    let reject: (error: Error) => void = () => {};
    this.failed = new Promise<never>((_, fail) => (reject = fail));
    this.failed.catch(() => undefined);
    const fail = (error: Error) => {
      this.failure ??= error;
      reject(this.failure);
    };
    worker.on('message', (reply: ParquetReply) => {
      const resolve = this.waiting.get(reply.file);
      this.waiting.delete(reply.file);
      if (resolve) resolve(reply);
      else this.replies.set(reply.file, reply);
    });
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the Parquet writer stopped (exit code ${code})`)));
  }

  async openFile(path: string, columns: readonly Column[]): Promise<TableWriter> {
    const file = ++this.fileSeq;
    const partial = `${path}.partial`;
    // Awaited by finish or abort, whichever comes; a COPY that failed early is told to the next write.
    let replied: ParquetReply | undefined;
    const reply = this.reply(file).then((answer) => (replied = answer));
    reply.catch(() => undefined);
    const failure = (answer: ParquetReply) => new Error(`DuckDB could not write ${partial}: ${answer.error}`);
    await this.send({ type: 'open', file, path: partial, columns: [...columns] });
    return {
      write: async (rows) => {
        if (replied?.error) throw failure(replied);
        await this.send({ type: 'rows', file, rows: rows as Cell[][] });
      },
      finish: async () => {
        await this.send({ type: 'end', file });
        const answer = await reply;
        if (answer.error) throw failure(answer);
        await rename(partial, path);
        return (await stat(path)).size;
      },
      abort: async () => {
        try {
          if (!this.failure && !replied) await this.send({ type: 'abort', file });
          await reply;
        } finally {
          await rm(partial, { force: true });
        }
      },
    };
  }

  async close(): Promise<void> {
    if (this.failure) {
      await this.worker.terminate();
      return;
    }
    const exited = once(this.worker, 'exit');
    this.port.postMessage({ type: 'close' } satisfies ParquetRequest);
    this.wake();
    await exited;
    this.port.close();
  }

  /** Posts a request once fewer than MAX_IN_FLIGHT wait in the worker: the store is read no faster than DuckDB writes. */
  private async send(request: ParquetRequest): Promise<void> {
    for (;;) {
      if (this.failure) throw this.failure;
      const taken = Atomics.load(this.counters, 1);
      if (this.sent - taken < MAX_IN_FLIGHT) break;
      const wait = waitAsync(this.counters, 1, taken);
      if (wait.async) await Promise.race([wait.value, this.failed]);
    }
    this.port.postMessage(request);
    this.wake();
  }

  private wake(): void {
    Atomics.store(this.counters, 0, ++this.sent);
    Atomics.notify(this.counters, 0);
  }

  private reply(file: number): Promise<ParquetReply> {
    const reply = this.replies.get(file);
    if (reply) {
      this.replies.delete(file);
      return Promise.resolve(reply);
    }
    return Promise.race([new Promise<ParquetReply>((resolve) => this.waiting.set(file, resolve)), this.failed]);
  }
}
