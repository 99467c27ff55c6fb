import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

interface Pending {
  resolve(blob: Buffer | undefined): void;
  reject(error: Error): void;
}

/**
 * Reads objects from a git repository through one long-lived
 * `git cat-file --batch`: a process per message would cost more than the
 * message. Requests are answered in order; several may be in flight.
 */
export class GitBlobReader {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly pending: Pending[] = [];
  private buffer: Buffer = Buffer.alloc(0);
  private failure: Error | undefined;
  private stderr = '';

  constructor(gitDir: string) {
    // Its own process group: a Ctrl-C at the terminal reaches listminer, which
    // finishes the batch, and not git halfway through it. It exits when its stdin closes.
    this.child = spawn('git', ['--git-dir', gitDir, 'cat-file', '--batch'], {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      this.drain();
    });
    this.child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-2000);
    });
    this.child.stdin.on('error', () => {}); // reported through 'close'
    this.child.on('error', (error) => this.fail(error));
    this.child.on('close', (code, signal) => {
      this.fail(
        new Error(
          `git cat-file in ${gitDir} ended (${signal ?? `exit ${code}`})${this.stderr ? `: ${this.stderr.trim()}` : ''}`,
        ),
      );
    });
  }

  /** The object's bytes, or undefined when the repository does not hold it. */
  read(spec: string): Promise<Buffer | undefined> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.child.stdin.write(`${spec}\n`);
    });
  }

  close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      this.child.once('close', () => resolve());
      this.child.stdin.end();
    });
  }

  private drain(): void {
    while (this.pending.length > 0) {
      const newline = this.buffer.indexOf(10);
      if (newline < 0) return;
      const header = this.buffer.toString('utf8', 0, newline);
      if (header.endsWith(' missing') || header.endsWith(' ambiguous')) {
        this.buffer = this.buffer.subarray(newline + 1);
        this.pending.shift()!.resolve(undefined);
        continue;
      }
      const size = Number(header.slice(header.lastIndexOf(' ') + 1));
      if (!Number.isSafeInteger(size)) {
        this.fail(new Error(`git cat-file answered "${header}"`));
        return;
      }
      // The object, then one newline.
      if (this.buffer.length < newline + 1 + size + 1) return;
      const blob = Buffer.from(this.buffer.subarray(newline + 1, newline + 1 + size));
      this.buffer = this.buffer.subarray(newline + 1 + size + 1);
      this.pending.shift()!.resolve(blob);
    }
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.pending.splice(0)) waiting.reject(this.failure);
  }
}
