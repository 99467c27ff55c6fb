import { describe, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { sqliteStoreRecordingStatements } from '../helpers/recorded-statements.js';

/**
 * A prepared statement keeps its program in native memory until V8 collects
 * it, and V8 does not see that memory: when every batch size made a
 * statement text of its own, SQLite's statement cache churned through them
 * and drain of 1,000,000 messages grew to 410 MB (docs/performance.md).
 * Batches of any size are written by statements of a few lengths.
 */
describe('statements of batches of every size', () => {
  const recording = sqliteStoreRecordingStatements();

  it('are a few texts, prepared once each', async () => {
    const store = recording.store();
    const listId = (await store.lists.register({ system: 'mbox', name: 'dev', listAddress: 'dev@example.org' })).list
      .id;
    let n = 0;
    for (let size = 1; size <= 70; size++) {
      const batch = Array.from({ length: size }, () => {
        const raw = Buffer.from(`Message-ID: <m${n++}@x>\nFrom: a@example.org\nSubject: s\n\nbody ${n}\n`);
        return { raw, ...identifyMessage(raw) };
      });
      await store.staging.stageBatch(listId, '2024-01', batch);
    }
    expect(await store.db.get<{ n: number }>('SELECT count(*) AS n FROM staged_messages')).toEqual({ n });
    const inserts = recording.prepared().filter((sql) => /^\s*INSERT INTO staged_messages\b/.test(sql));
    // 70 sizes, written in chunks of 1, 2, 4, … 64 rows: seven texts, each prepared once.
    expect(new Set(inserts).size).toBe(7);
    expect(inserts).toHaveLength(7);
  });
});
