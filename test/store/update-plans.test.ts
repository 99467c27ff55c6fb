import { expect, it, describe } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { BATCH_MESSAGES } from '../../src/core/pipeline/batch-bytes.js';
import type { ClassifyOutcome } from '../../src/core/store/classify-records.js';
import { sqliteStoreRecordingStatements } from '../helpers/recorded-statements.js';

/**
 * The store updates rows from a VALUES list of up to 512 rows (classify's
 * labels and shunts, drain's thread roots). SQLite once planned those as a
 * scan of the whole table per batch, from about 300 rows on, which made a
 * run grow with the square of the archive: every such UPDATE must look its
 * rows up by key. SQLite only: PostgreSQL plans from statistics (docs/performance.md).
 */
describe('batch UPDATEs on SQLite', () => {
  const recording = sqliteStoreRecordingStatements();

  it('look every row up by key, for full batches of labels, shunts, relabels and thread roots', async () => {
    const store = recording.store();
    const listId = (
      await store.lists.register({
        system: 'apache_ponymail',
        name: 'dev@kafka.apache.org',
        listAddress: 'dev@kafka.apache.org',
      })
    ).list.id;
    const full = BATCH_MESSAGES;
    const messages = Array.from({ length: 3 * full }, (_, i) =>
      Buffer.from(`Message-ID: <m${i}@x>\nFrom: a@example.org\nSubject: s ${i}\n\nbody ${i}\n`),
    ).map((raw) => ({ raw, ...identifyMessage(raw) }));
    for (let at = 0; at < messages.length; at += full)
      await store.staging.stageBatch(listId, '2024-01', messages.slice(at, at + full));
    const ids = (await store.db.all<{ id: number }>('SELECT id FROM staged_messages ORDER BY id')).map((row) =>
      Number(row.id),
    );
    // Drained mail labelled again alike: it stays drained, its research row taking the rule's name.
    await store.db.run(
      `UPDATE staged_messages SET status = 'drained', msg_class = 'discuss', captures = '{}' WHERE id > ?`,
      [ids[2 * full - 1]!],
    );
    const label = { msgClass: 'discuss', source: 'rule', captures: {} };
    const outcomes: ClassifyOutcome[] = ids.map((id, i) =>
      i < full
        ? { id, status: 'staged', error: 'unreadable' }
        : { id, status: i < 2 * full ? 'staged' : 'drained', envelopeJson: '{}', classification: label },
    );
    await store.classify.save(outcomes, { rulesHash: 'r', listminerVersion: '0' });
    await store.drain.setThreadRoots(ids.slice(0, full).map((id) => ({ id, rootKey: 'r@x', rootId: ids[0]! })));

    const batchUpdates = [
      ...new Set(recording.prepared().filter((sql) => /^\s*UPDATE\b[\s\S]*FROM \(VALUES/.test(sql))),
    ];
    expect(batchUpdates.map((sql) => /UPDATE (\w+) SET/.exec(sql)![1]).sort()).toEqual([
      'email_messages',
      'email_messages',
      'staged_messages',
      'staged_messages',
    ]);
    for (const sql of batchUpdates) {
      expect(sql.match(/\(/g)!.length).toBeGreaterThan(full); // a full batch, not a small one planned otherwise
      const plan = await recording.plan(sql);
      const updated = /UPDATE (\w+) SET/.exec(sql)![1]!;
      expect(plan, sql.slice(0, 80)).toMatch(
        new RegExp(`SEARCH ${updated} USING (INTEGER PRIMARY KEY|COVERING INDEX|INDEX)`),
      );
      expect(plan, sql.slice(0, 80)).not.toMatch(new RegExp(`SCAN ${updated}\\b`));
    }
  });
});
