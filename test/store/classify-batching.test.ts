import { beforeEach, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { classifyStaged } from '../../src/core/classify/classify-staged.js';
import { silentProgress } from '../../src/core/progress.js';
import type { ClassifyOutcome } from '../../src/core/store/classify-records.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import type { TestStore } from '../helpers/databases.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

const KB = 1024;

/** A plain-text message of about `size` bytes. */
function mailOfSize(id: string, size: number): Buffer {
  const head = `From: Jane <jane@example.org>\nSubject: big attachment ${id}\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <${id}>\n\n`;
  const line = 'The quick brown fox jumps over the lazy dog, again and again.\n';
  return Buffer.from(head + line.repeat(Math.max(1, Math.ceil((size - head.length) / line.length))));
}

describeOnDialects('classify batches by bytes as well as rows on $dialect', (getStore) => {
  let store: TestStore;
  let listId: number;
  const systems = loadSystems();
  const sizes = new Map<number, number>();
  /** The raw bytes of every batch classify wrote, in order. */
  let written: number[][];

  beforeEach(async () => {
    store = getStore();
    listId = (
      await store.lists.register({
        system: 'apache_ponymail',
        name: 'dev@kafka.apache.org',
        listAddress: 'dev@kafka.apache.org',
      })
    ).list.id;
    // 40 KB, 40 KB, 40 KB, 150 KB (larger than the budget alone), 10 KB, 10 KB, 40 KB
    const spec = [40, 40, 40, 150, 10, 10, 40];
    const messages = spec
      .map((kb, i) => mailOfSize(`m${i}@x`, kb * KB))
      .map((raw) => ({ raw, ...identifyMessage(raw) }));
    await store.staging.stageBatch(listId, '2024-01', messages);
    sizes.clear();
    for (const row of await store.db.all<{ id: number; size: number }>('SELECT id, size FROM staged_messages'))
      sizes.set(Number(row.id), Number(row.size));
    written = [];
    const save = store.classify.save.bind(store.classify);
    store.classify.save = (outcomes: readonly ClassifyOutcome[], provenance) => {
      written.push(outcomes.map((o) => sizes.get(o.id)!));
      return save(outcomes, provenance);
    };
  });

  it('reads staged rows no larger than the byte budget, and a message larger than the budget alone', async () => {
    const seen: number[][] = [];
    for (let afterId = 0; ;) {
      const batch = await store.classify.nextBatch({ listId, statuses: ['staged'] }, afterId, 64, 100 * KB);
      if (batch.length === 0) break;
      seen.push(batch.map((m) => m.raw.length));
      afterId = batch[batch.length - 1]!.id;
    }
    expect(seen.flat()).toHaveLength(7);
    for (const batch of seen) {
      if (batch.length > 1) expect(batch.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100 * KB);
    }
    expect(seen.find((batch) => batch.some((size) => size > 100 * KB))).toHaveLength(1);
    expect(seen.map((batch) => batch.length)).toEqual([2, 1, 1, 3]);
  });

  it('writes batches that respect the byte budget, and classifies every message once', async () => {
    const result = await classifyStaged(store, systems, { batchBytes: 100 * KB }, silentProgress);
    expect(result.classified).toBe(7);
    expect(written.flat()).toHaveLength(7);
    for (const batch of written) {
      if (batch.length > 1) expect(batch.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(100 * KB);
    }
    expect(written.length).toBeGreaterThanOrEqual(4);
  });

  it('still batches small messages by the row count', async () => {
    const result = await classifyStaged(store, systems, { batchSize: 3, batchBytes: 10 * 1024 * KB }, silentProgress);
    expect(result.classified).toBe(7);
    expect(written.map((batch) => batch.length)).toEqual([3, 3, 1]);
  });
});
