/**
 * The steps of a batch loop whose reading overlaps its writing: batch N+1 is
 * read (and prepared) while batch N is written, so the database's time
 * overlaps reading, hashing or parsing the mail.
 */
export interface BatchSteps<B, P> {
  /** The batch after `previous` (the first when undefined), or undefined when there is none. One read at a time, in order. */
  read(previous: B | undefined): Promise<B | undefined>;
  /** Work on a batch begun as soon as it is read, several batches at once (classify's parsing); none when absent. */
  prepare?(batch: B): Promise<P>;
  /** Writes a batch with what `prepare` made of it. One write at a time, in the order of reading. */
  write(batch: B, prepared: P): Promise<void>;
  /** Batches read and not yet written, at most (default one), and batches prepared at once, at most. */
  depth?: number;
  /** Whether one more batch may be read ahead of those waiting (classify's cap on raw bytes held); always when absent. */
  roomFor?(waiting: readonly B[]): boolean;
  /** Aborted: the loop ends after the batch being written; what was read ahead is left for the next run. */
  signal?: AbortSignal;
}

/**
 * Runs a batch loop with reading ahead of writing. Every promise it starts
 * is guarded here, so a failure of work ahead is never unhandled, and it is
 * awaited before the loop ends, so it is never dropped unseen: the loop
 * raises the first failure in batch order (batch N's write before batch
 * N+1's read): a read that fails is raised once every batch read before it,
 * however far ahead, is written (the whole mail of a cut archive). Work
 * ahead that fails after a batch before it failed, or after the signal
 * stopped the loop, was for a batch that is never written, and its failure
 * goes with it.
 */
export async function overlapBatches<B, P = undefined>(steps: BatchSteps<B, P>): Promise<void> {
  const depth = Math.max(1, steps.depth ?? 1);
  const waiting: ReadAhead<B, P>[] = [];
  let reading: Ahead<ReadAhead<B, P> | undefined> | undefined;
  let last: B | undefined;
  let exhausted = false;
  /** A read that failed: raised once every batch read before it is written. */
  let readFailure: { error: unknown } | undefined;
  let preparing = 0;
  const room = () =>
    waiting.length === 0 || (waiting.length < depth && (steps.roomFor?.(waiting.map((w) => w.batch)) ?? true));
  const prepare = (read: ReadAhead<B, P>) => {
    if (read.prepared) return;
    preparing++;
    const work = steps.prepare ? steps.prepare(read.batch) : Promise.resolve(undefined as P);
    read.prepared = new Ahead(work.finally(() => preparing--));
  };
  const readNext = () => {
    if (reading || exhausted || !room()) return;
    const read = steps.read(last).then((batch) => {
      if (batch === undefined) return undefined;
      const ahead: ReadAhead<B, P> = { batch };
      // Prepared as soon as it is read when fewer than `depth` are: the write it would wait for may be long.
      if (preparing < depth) prepare(ahead);
      return ahead;
    });
    reading = new Ahead(read);
  };
  try {
    while (!steps.signal?.aborted) {
      readNext();
      while (reading && room()) {
        const outcome = await reading.ended();
        reading = undefined;
        if (!outcome.ok) readFailure = { error: outcome.error };
        const read = outcome.ok ? outcome.value : undefined;
        if (read === undefined) exhausted = true;
        else {
          last = read.batch;
          prepare(read);
          waiting.push(read);
          readNext();
        }
      }
      const next = steps.signal?.aborted ? undefined : waiting.shift();
      if (!next) {
        if (readFailure && !steps.signal?.aborted) throw readFailure.error;
        return;
      }
      readNext(); // read ahead while this batch is written
      let prepared: P;
      try {
        prepared = await next.prepared!.result();
      } catch (error) {
        if (steps.signal?.aborted) return; // cut short by the stop: the batch stays for the next run
        throw error;
      }
      await steps.write(next.batch, prepared);
    }
  } finally {
    const read = await reading?.value();
    const ahead = [...waiting, ...(read ? [read] : [])].flatMap((w) => (w.prepared ? [w.prepared] : []));
    await Promise.all(ahead.map((work) => work.settled()));
  }
}

/** A batch read ahead of its write, and its preparation once begun. */
interface ReadAhead<B, P> {
  batch: B;
  prepared?: Ahead<P>;
}

type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

/** A promise begun ahead of its turn: its rejection is held (never unhandled) until `result` takes it. */
class Ahead<T> {
  private readonly outcome: Promise<Outcome<T>>;

  constructor(promise: Promise<T>) {
    this.outcome = promise.then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
  }

  /** The value, or the failure raised. */
  async result(): Promise<T> {
    const outcome = await this.outcome;
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }

  /** How it ended, the failure taken, not raised. */
  ended(): Promise<Outcome<T>> {
    return this.outcome;
  }

  /** Waits for it to end, however it ends (a batch that will not be written). */
  async settled(): Promise<void> {
    await this.outcome;
  }

  /** The value once it ends, or undefined when it failed. */
  async value(): Promise<T | undefined> {
    const outcome = await this.outcome;
    return outcome.ok ? outcome.value : undefined;
  }
}
