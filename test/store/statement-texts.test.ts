import { describe, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { addTestList, drain } from '../helpers/drain-fixtures.js';
import { sqliteStoreRecordingStatements } from '../helpers/recorded-statements.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

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

  it('stay a few texts each through a drain whose batches write every number of rows', async () => {
    const store = recording.store();
    const listId = await addTestList(store, 'dev@example.org', 'https://github.com/apache/kafka');
    // Replies naming 0 to 6 ancestors and bodies repeated now and then: each batch of 23 writes its own count of thread links and bodies.
    for (let i = 0; i < 600; i++) {
      const ancestors = Array.from(
        { length: Math.floor((Math.sin(i) + 1) * 3.5) },
        (_, a) => `<m${Math.max(0, i - a - 1)}@x>`,
      );
      await stageClassified(
        store,
        listId,
        mail(
          {
            'Message-ID': `<m${i}@x>`,
            From: `Dev ${i % 13} <dev${i % 13}@example.org>`,
            Subject: `topic ${i % 29}`,
            Date: 'Mon, 1 Jan 2024 10:00:00 +0000',
            ...(ancestors.length ? { References: ancestors.join(' ') } : {}),
          },
          `body ${i % 3 === 0 ? 'shared' : i}\n`,
        ),
      );
    }
    const before = recording.prepared().length;
    const result = await drain(store, { batchSize: 23 });
    expect(result.drained).toBe(600);
    // A family is a statement with its lists of placeholders taken out; each may have a text per chunk length.
    const family = (sql: string) => sql.replace(/\((\?, )*\?\)(, \((\?, )*\?\))*/g, '(…)');
    const texts = new Map<string, Set<string>>();
    for (const sql of recording.prepared().slice(before)) {
      const seen = texts.get(family(sql)) ?? new Set<string>();
      texts.set(family(sql), seen.add(sql));
    }
    const most = Math.max(...[...texts.values()].map((seen) => seen.size));
    // Chunks of 1, 2, 4, … 512 rows: ten texts at the most, where every count of thread links made one.
    expect(most).toBeLessThanOrEqual(10);
  });
});
