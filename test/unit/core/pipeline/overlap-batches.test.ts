import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { overlapBatches } from '../../../../src/core/pipeline/overlap-batches.js';

/** A promise and the hands that settle it, for steps the test finishes when it says so. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

describe('overlapBatches', () => {
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  beforeEach(() => {
    unhandled.length = 0;
    process.on('unhandledRejection', onUnhandled);
  });
  afterEach(() => {
    process.off('unhandledRejection', onUnhandled);
  });

  it('reads batch N+1 while batch N is written, and writes every batch once, in order', async () => {
    const events: string[] = [];
    const writes = [deferred<void>(), deferred<void>(), deferred<void>()];
    const done = overlapBatches<number>({
      read: async (previous) => {
        const next = (previous ?? 0) + 1;
        events.push(`read ${next}`);
        return next <= 3 ? next : undefined;
      },
      write: async (batch) => {
        events.push(`write ${batch}`);
        await writes[batch - 1]!.promise;
        events.push(`wrote ${batch}`);
      },
    });
    await tick();
    // Batch 2 was read while batch 1 is still being written; batch 3 waits for its turn.
    expect(events).toEqual(['read 1', 'read 2', 'write 1']);
    writes[0]!.resolve();
    await tick();
    expect(events).toEqual(['read 1', 'read 2', 'write 1', 'wrote 1', 'read 3', 'write 2']);
    writes[1]!.resolve();
    writes[2]!.resolve();
    await done;
    expect(events.filter((e) => e.startsWith('wrote'))).toEqual(['wrote 1', 'wrote 2', 'wrote 3']);
  });

  it('raises a failed read ahead once the batch before it is written, never as an unhandled rejection', async () => {
    const written: number[] = [];
    const write = deferred<void>();
    const done = overlapBatches<number>({
      read: async (previous) => {
        if (previous === undefined) return 1;
        throw new Error('the archive broke off');
      },
      write: async (batch) => {
        await write.promise;
        written.push(batch);
      },
    });
    const outcome = done.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    await tick();
    await tick();
    write.resolve();
    expect(await outcome).toBe('the archive broke off');
    expect(written).toEqual([1]);
    await tick();
    expect(unhandled).toEqual([]);
  });

  it('writes every batch read before a failed read, however many are read ahead, then raises it', async () => {
    // sync reads two batches ahead: a cut archive fails the read after them, and both are written first.
    const written: number[] = [];
    const done = overlapBatches<number, number>({
      read: async (previous) => {
        const next = (previous ?? 0) + 1;
        if (next > 3) throw new Error('the archive broke off');
        return next;
      },
      prepare: async (batch) => batch * 10,
      write: async (batch, prepared) => {
        await tick();
        written.push(prepared);
      },
      depth: 2,
    });
    await expect(done).rejects.toThrow('the archive broke off');
    expect(written).toEqual([10, 20, 30]);
    await tick();
    expect(unhandled).toEqual([]);
  });

  it("raises a write's failure before a later read's, and waits for the read ahead before it does", async () => {
    let readAheadEnded = false;
    const failure = overlapBatches<number>({
      read: async (previous) => {
        if (previous === undefined) return 1;
        await tick();
        readAheadEnded = true;
        throw new Error('read ahead failed too');
      },
      write: async () => {
        throw new Error('the disk is full');
      },
    });
    await expect(failure).rejects.toThrow('the disk is full');
    expect(readAheadEnded).toBe(true);
    await tick();
    expect(unhandled).toEqual([]);
  });

  it('prepares several batches at once up to its depth, and writes them in the order they were read', async () => {
    const preparing = new Set<number>();
    let most = 0;
    const written: number[] = [];
    await overlapBatches<number, string>({
      read: async (previous) => ((previous ?? 0) < 6 ? (previous ?? 0) + 1 : undefined),
      prepare: async (batch) => {
        preparing.add(batch);
        most = Math.max(most, preparing.size);
        await new Promise((resolve) => setTimeout(resolve, (7 - batch) * 2)); // later batches are ready first
        preparing.delete(batch);
        return `batch ${batch}`;
      },
      write: async (batch, prepared) => {
        expect(prepared).toBe(`batch ${batch}`);
        written.push(batch);
      },
      depth: 3,
    });
    expect(written).toEqual([1, 2, 3, 4, 5, 6]);
    expect(most).toBe(3);
  });

  it('begins preparing a batch as soon as it is read, while the batch before it is still written', async () => {
    const events: string[] = [];
    const write = deferred<void>();
    const done = overlapBatches<number, number>({
      read: async (previous) => ((previous ?? 0) < 2 ? (previous ?? 0) + 1 : undefined),
      prepare: async (batch) => {
        events.push(`prepare ${batch}`);
        return batch;
      },
      write: async (batch) => {
        events.push(`write ${batch}`);
        if (batch === 1) await write.promise;
      },
    });
    await tick();
    // The default depth, one: the second batch is read, and its preparation begun, during the first one's write.
    expect(events).toContain('write 1');
    expect(events).toContain('prepare 2');
    expect(events).not.toContain('write 2');
    write.resolve();
    await done;
    expect(events.filter((event) => event.startsWith('write'))).toEqual(['write 1', 'write 2']);
  });

  it('waits for a preparation begun ahead of a failure before it raises it, never leaving it unhandled', async () => {
    let preparedAhead = false;
    const failure = overlapBatches<number, number>({
      read: async (previous) => (previous ?? 0) + 1,
      prepare: async (batch) => {
        if (batch === 1) return batch;
        await tick();
        preparedAhead = true;
        throw new Error('the parse of the batch ahead failed');
      },
      write: async () => {
        await tick();
        throw new Error('the disk is full');
      },
    });
    await expect(failure).rejects.toThrow('the disk is full');
    expect(preparedAhead).toBe(true);
    await tick();
    expect(unhandled).toEqual([]);
  });

  it('stops after the batch being written when the signal aborts, and leaves what it read ahead unwritten', async () => {
    const controller = new AbortController();
    const written: number[] = [];
    await overlapBatches<number>({
      read: async (previous) => (previous ?? 0) + 1,
      write: async (batch) => {
        written.push(batch);
        if (batch === 2) controller.abort();
      },
      signal: controller.signal,
    });
    expect(written).toEqual([1, 2]);
  });

  it('treats a preparation cut short by the stop as no failure', async () => {
    const controller = new AbortController();
    const written: number[] = [];
    await overlapBatches<number, number>({
      read: async (previous) => ((previous ?? 0) < 3 ? (previous ?? 0) + 1 : undefined),
      prepare: async (batch) => {
        if (batch === 1) return batch;
        controller.abort();
        throw new Error('stopped');
      },
      write: async (batch) => {
        written.push(batch);
      },
      depth: 2,
      signal: controller.signal,
    });
    expect(written).toEqual([]);
    expect(unhandled).toEqual([]);
  });
});
