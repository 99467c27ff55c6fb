import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import { rename, rm, stat } from 'node:fs/promises';

/**
 * Characters handed to the stream at once. A batch joined into one string
 * would be a large object to V8, kept until a full collection, so a batch of
 * long bodies would grow the heap by its size each time; pieces this small
 * die young.
 */
const CHUNK_CHARS = 32 * 1024;

/**
 * A UTF-8 text file written as a stream under `<path>.partial` and renamed
 * to `path` when finished, so a file under its final name is always whole.
 * Writes wait while the stream's buffer is full: memory stays at one batch.
 */
export class TextFile {
  private readonly partial: string;
  private readonly stream: WriteStream;
  private failure: Error | undefined;

  constructor(private readonly path: string) {
    this.partial = `${path}.partial`;
    this.stream = createWriteStream(this.partial, { encoding: 'utf8' });
    this.stream.on('error', (error) => (this.failure ??= error));
  }

  /** A write error of the stream, thrown at the next call. */
  private throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  async write(text: string): Promise<void> {
    this.throwIfFailed();
    // `once` rejects when the stream fails while it waits.
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  /** Writes the records one after another, a few of them at a time. */
  async writeAll(records: Iterable<string>): Promise<void> {
    let chunk = '';
    for (const record of records) {
      chunk += record;
      if (chunk.length >= CHUNK_CHARS) {
        await this.write(chunk);
        chunk = '';
      }
    }
    if (chunk !== '') await this.write(chunk);
  }

  async finish(): Promise<number> {
    this.throwIfFailed();
    this.stream.end();
    await once(this.stream, 'close');
    this.throwIfFailed();
    await rename(this.partial, this.path);
    return (await stat(this.path)).size;
  }

  async abort(): Promise<void> {
    if (!this.stream.closed) {
      this.stream.destroy();
      await once(this.stream, 'close').catch(() => undefined);
    }
    await rm(this.partial, { force: true });
  }
}
