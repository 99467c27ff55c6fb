import { existsSync } from 'node:fs';
import { parentPort, Worker } from 'node:worker_threads';
import { InputError, OperationError } from '../errors.js';

/** An error as it crosses from a worker: what the main thread needs to throw it again as the same kind of error. */
interface CrossingError {
  name: string;
  message: string;
  code?: string;
  path?: string;
  hint?: string;
}

type Reply<R> = { seq: number; reply: R } | { seq: number; error: CrossingError };

/**
 * The main thread's end of a worker that takes requests in order and answers
 * each one (serveRequests below is the worker's end). `post` sends a request
 * whose reply nobody waits for, `request` one whose reply is waited for; both
 * send at once, so requests keep the order of the calls. The caller keeps the
 * worker's queue short by waiting, where it can, until few are unanswered
 * (`settle`). A failed request or a worker that stops fails every later call
 * with that error.
 */
export class WorkerLink<Request, Answer> {
  private seq = 0;
  private answered = 0;
  private readonly waiting = new Map<number, { resolve: (answer: Answer) => void; reject: (error: Error) => void }>();
  private failure: Error | undefined;
  /** Called when a reply comes: settle() waits on them for room. */
  private wakers: Array<() => void> = [];

  private constructor(private readonly worker: Worker) {
    worker.on('message', (message: Reply<Answer>) => {
      this.answered = message.seq;
      const waiting = this.waiting.get(message.seq);
      this.waiting.delete(message.seq);
      if ('error' in message) {
        this.fail(fromCrossing(message.error));
        waiting?.reject(this.failure!);
      } else waiting?.resolve(message.reply);
      this.wakeAll();
    });
    worker.on('error', (error) => this.fail(error));
    worker.on('exit', (code) => this.fail(new Error(`a render thread stopped (exit code ${code})`)));
  }

  /** A worker running the compiled `file`; undefined when it does not exist (running from TypeScript source). */
  static start<Request, Answer>(file: string): WorkerLink<Request, Answer> | undefined {
    return existsSync(file) ? new WorkerLink<Request, Answer>(new Worker(file)) : undefined;
  }

  /** The reply to a request. */
  request(request: Request): Promise<Answer> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      this.waiting.set(this.post(request), { resolve, reject });
    });
  }

  /** Waits until no more than `room` requests are unanswered. */
  async settle(room = 0): Promise<void> {
    while (!this.failure && this.seq - this.answered > room)
      await new Promise<void>((resolve) => this.wakers.push(resolve));
    if (this.failure) throw this.failure;
  }

  async close(): Promise<void> {
    this.failure ??= new Error('the render thread was closed');
    this.worker.removeAllListeners('exit');
    await this.worker.terminate();
  }

  /** Sends a request whose reply is not waited for: a failure is thrown by a later call. */
  post(request: Request): number {
    if (this.failure) throw this.failure;
    this.worker.postMessage({ seq: ++this.seq, request });
    return this.seq;
  }

  private fail(error: Error): void {
    this.failure ??= error;
    for (const waiting of this.waiting.values()) waiting.reject(this.failure);
    this.waiting.clear();
    this.wakeAll();
  }

  private wakeAll(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const wake of wakers) wake();
  }
}

/**
 * The worker's end of a WorkerLink: each request handled in the order sent,
 * and answered. After a request fails, the later ones are answered with its
 * failure and not handled, as the main thread's end fails them: requests
 * sent before the failure reached it (render's files, then its manifest)
 * must not be carried out past it.
 */
export function serveRequests<Request, Answer>(handle: (request: Request) => Answer | Promise<Answer>): void {
  let queue = Promise.resolve();
  let failure: CrossingError | undefined;
  parentPort!.on('message', ({ seq, request }: { seq: number; request: Request }) => {
    queue = queue.then(async () => {
      if (failure === undefined) {
        try {
          parentPort!.postMessage({ seq, reply: await handle(request) } satisfies Reply<Answer>);
          return;
        } catch (error) {
          failure = toCrossing(error);
        }
      }
      parentPort!.postMessage({ seq, error: failure } satisfies Reply<Answer>);
    });
  });
}

function toCrossing(error: unknown): CrossingError {
  const { name, message, code, path, hint } = error as Error & { code?: string; path?: string; hint?: string };
  return { name: name ?? 'Error', message: message ?? String(error), code, path, hint };
}

/** The error the worker threw, as the same kind of error here: a user's error stays one, a file system's keeps its code. */
function fromCrossing(crossing: CrossingError): Error {
  if (crossing.name === InputError.name) return new InputError(crossing.message, crossing.hint);
  if (crossing.name === OperationError.name) return new OperationError(crossing.message, crossing.hint);
  const error = new Error(crossing.message) as Error & { code?: string; path?: string };
  if (crossing.code !== undefined) error.code = crossing.code;
  if (crossing.path !== undefined) error.path = crossing.path;
  return error;
}
