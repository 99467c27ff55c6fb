import { closeSync, mkdtempSync, openSync, readSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';

/** What a spool keeps in memory before the rest of a body goes to a temporary file. */
export const SPOOL_MEMORY_BYTES = 8 * 1024 * 1024;
const READ_BYTES = 256 * 1024;

interface SpoolFile {
  fd: number;
  /** Removed at once where the system allows it (the open descriptor keeps the data), else when the spool closes. */
  folder?: string;
  written: number;
  read: number;
}

/**
 * Takes a response body off the connection as fast as it arrives and hands
 * it on at its reader's pace. undici 7's HTTP/1 parser must never be paused
 * by a slow reader: when a server ends its reply by closing the connection
 * while the parser is paused, undici throws an AssertionError from the
 * socket's 'end' handler, which no caller can catch. So the body is drained
 * in flowing mode, the first SPOOL_MEMORY_BYTES kept in memory and the rest
 * written to a temporary file, and read back from there.
 */
export class BodySpool {
  private readonly memory: Buffer[] = [];
  private memoryBytes = 0;
  private file?: SpoolFile;
  private ended = false;
  private failure?: { error: unknown };
  private wake?: () => void;
  private closed = false;

  constructor(
    private readonly source: Readable,
    private readonly memoryLimit = SPOOL_MEMORY_BYTES,
  ) {
    source.on('data', (chunk: Buffer) => this.keep(chunk));
    source.on('end', () => this.finish());
    source.on('error', (error) => this.finish({ error }));
    // Closed with neither an end nor an error: what came is not known to be the whole body.
    source.on('close', () => this.finish({ error: new Error('the body was closed before its end') }));
  }

  /** The body in order; its read error, if any, after the bytes that came before it. */
  async *read(): AsyncGenerator<Buffer> {
    try {
      for (;;) {
        const chunk = this.next();
        if (chunk) {
          yield chunk;
          continue;
        }
        if (this.failure) throw this.failure.error;
        if (this.ended) return;
        await new Promise<void>((resolve) => (this.wake = resolve));
      }
    } finally {
      this.close();
    }
  }

  /** Stops taking the body and frees the file. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (!this.source.destroyed) this.source.destroy();
    this.memory.length = 0;
    if (this.file) {
      closeSync(this.file.fd);
      if (this.file.folder) rmSync(this.file.folder, { recursive: true, force: true });
    }
  }

  private keep(chunk: Buffer): void {
    if (this.closed || this.failure) return;
    try {
      if (!this.file && this.memoryBytes + chunk.length > this.memoryLimit) this.file = openSpoolFile();
      if (this.file) {
        // Every byte after the file opens goes to it, so memory (older) is always read first.
        for (let at = 0; at < chunk.length;)
          at += writeSync(this.file.fd, chunk, at, chunk.length - at, this.file.written + at);
        this.file.written += chunk.length;
      } else {
        this.memory.push(chunk);
        this.memoryBytes += chunk.length;
      }
    } catch (error) {
      // A full disk: thrown here, in an event handler, it would end the process. The reader gets it after the bytes kept.
      this.finish({ error });
      this.source.destroy();
      return;
    }
    this.notify();
  }

  private finish(failure?: { error: unknown }): void {
    if (this.ended || this.failure) return;
    if (failure) this.failure = failure;
    else this.ended = true;
    this.notify();
  }

  private next(): Buffer | undefined {
    const chunk = this.memory.shift();
    if (chunk) {
      this.memoryBytes -= chunk.length;
      return chunk;
    }
    const file = this.file;
    if (!file || file.read >= file.written) return undefined;
    const buffer = Buffer.allocUnsafe(Math.min(READ_BYTES, file.written - file.read));
    const length = readSync(file.fd, buffer, 0, buffer.length, file.read);
    file.read += length;
    return buffer.subarray(0, length);
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}

function openSpoolFile(): SpoolFile {
  const folder = mkdtempSync(join(tmpdir(), 'listminer-body-'));
  const fd = openSync(join(folder, 'body'), 'w+', 0o600);
  try {
    rmSync(folder, { recursive: true });
    return { fd, written: 0, read: 0 };
  } catch {
    return { fd, folder, written: 0, read: 0 };
  }
}
