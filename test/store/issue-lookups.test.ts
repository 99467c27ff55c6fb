import { describe, expect, it } from 'vitest';
import { addRepo } from '../../src/core/registry/register-repo.js';
import type { Store } from '../../src/core/store/store.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { sqliteStoreRecordingStatements } from '../helpers/recorded-statements.js';

const ISSUE =
  'INSERT INTO issues (id, repo_id, number, external_key, title, state, is_synthetic, comment_count) VALUES (?, ?, ?, ?, ?, ?, ?, 0)';

async function addIssues(store: Store): Promise<number> {
  const repoId = (await addRepo(store, 'https://github.com/apache/kafka')).repo.id;
  const other = (await addRepo(store, 'https://github.com/apache/kafka-site')).repo.id;
  // Native issues carried over from Jira, by title; neighbours in byte order around "[KAFKA-7]".
  await store.db.run(ISSUE, [10, repoId, 12, null, '[KAFKA-7] Consumer hangs, again', 'open', false]);
  await store.db.run(ISSUE, [11, repoId, 11, null, '[KAFKA-7] Consumer hangs', 'open', false]);
  await store.db.run(ISSUE, [12, repoId, 13, null, '[KAFKA-70] Producer leaks', 'open', false]);
  await store.db.run(ISSUE, [13, repoId, 14, null, '[KAFKA-7^] not a key', 'open', false]);
  await store.db.run(ISSUE, [14, repoId, 15, null, '[KAFKA-8]\u00e9t\u00e9', 'open', false]);
  await store.db.run(ISSUE, [15, other, 1, null, '[KAFKA-9] on another repo', 'open', false]);
  // Synthetic issues made from mail, and one with an empty key.
  await store.db.run(ISSUE, [-1, repoId, null, 'KAFKA-9', '[KAFKA-9] synthetic', 'open', true]);
  await store.db.run(ISSUE, [16, repoId, 16, '', 'no key', 'open', false]);
  return repoId;
}

describeOnDialects('issue lookups of project on $dialect', (getStore) => {
  it('finds the native issue whose title starts with "[KEY]", the lowest number first, and issues by key', async () => {
    const store = getStore();
    const repoId = await addIssues(store);
    expect(await store.project.nativeIssueByTitleKey(repoId, 'KAFKA-7')).toEqual({ id: 11, isSynthetic: false });
    expect(await store.project.nativeIssueByTitleKey(repoId, 'KAFKA-70')).toEqual({ id: 12, isSynthetic: false });
    expect(await store.project.nativeIssueByTitleKey(repoId, 'KAFKA-8')).toEqual({ id: 14, isSynthetic: false });
    expect(await store.project.nativeIssueByTitleKey(repoId, 'KAFKA-9')).toBeUndefined();
    expect(await store.project.nativeIssueByTitleKey(repoId, 'KAFKA-6')).toBeUndefined();
    expect(await store.project.issueByKey(repoId, 'KAFKA-9')).toEqual({ id: -1, isSynthetic: true });
    expect(await store.project.issueByKey(repoId, 'KAFKA-7')).toBeUndefined();
  });
});

/**
 * project looks issues up once per tracker key its mail names; a lookup that
 * reads every issue of the repo makes a run grow with the square of the mail
 * (on 1,000,000 messages, two minutes). SQLite only uses a partial index when
 * the query states the index's condition, so the plans are checked here.
 */
describe('issue lookups on SQLite', () => {
  const recording = sqliteStoreRecordingStatements();

  it('read an index, not the table', async () => {
    const store = recording.store();
    const repoId = await addIssues(store);
    await store.project.issueByKey(repoId, 'KAFKA-9');
    await store.project.nativeIssueByTitleKey(repoId, 'KAFKA-7');
    await store.project.issueByNumber(repoId, 7);
    await store.project.setExternalKey(11, 'KAFKA-7');
    const lookups = [
      ...new Set(recording.prepared().filter((sql) => /FROM issues\b/.test(sql) && !sql.startsWith('INSERT'))),
    ];
    expect(lookups).toHaveLength(4);
    for (const sql of lookups) {
      expect(await recording.plan(sql, 'x'), sql).not.toMatch(/SCAN (issues|other)\b/);
    }
  });
});
