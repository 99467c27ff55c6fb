import { describe, expect, it } from 'vitest';
import { collectStats } from '../../src/core/stats/collect-stats.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { verifyStore } from '../../src/core/verify/verify-store.js';
import { addTestList, drain } from '../helpers/drain-fixtures.js';
import { sqliteStoreRecordingStatements } from '../helpers/recorded-statements.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

/**
 * verify and stats read the whole store, and CI jobs run `verify --strict`
 * on stores of millions of messages. SQLite plans without statistics, and
 * one of verify's checks (two rows of one list under one Message-ID) once
 * looked up each message's twins through the list's keys above its own: a
 * range, read again for every message, so verify of 10,000 messages took
 * 22 s and of 20,000 117 s; another compared every synthetic issue with
 * every native issue title of its repo. No statement of theirs may read a
 * table, or a range of it, once per row of another. SQLite only: PostgreSQL
 * plans from statistics.
 */
describe('the report queries of verify and stats on SQLite', () => {
  const recording = sqliteStoreRecordingStatements();

  it('never read a table, or a range of it, again for each row of another', async () => {
    const store = recording.store();
    const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
    for (const [id, extra] of [
      ['root@x', {}],
      ['reply@x', { 'In-Reply-To': '<root@x>' }],
      ['other@x', { Subject: 'another subject' }],
    ] as const)
      await stageClassified(
        store,
        listId,
        mail({ From: 'Jane <jane@example.org>', Subject: 'a subject', 'Message-ID': `<${id}>`, ...extra }, 'hi\n'),
        { msgClass: 'discuss' },
      );
    await drain(store);
    const before = recording.prepared().length;

    await verifyStore(store, loadSystems());
    await collectStats(store);

    const reads = [...new Set(recording.prepared().slice(before))].filter((sql) => /^\s*(SELECT|WITH)\b/i.test(sql));
    expect(reads.length).toBeGreaterThan(10);
    for (const sql of reads) {
      const steps = await recording.planSteps(sql);
      // A table read after another under the same parent is a loop inside it: a scan there, or a range
      // search (col>? or col<?), reads the table or a range of it again for each row of the loop outside.
      // Not counted: a scan of what the statement materialized once (missed-link shadows: the few lengths
      // of synthetic keys), and a correlated EXISTS, which stops at the first row it finds (the stuck-mail
      // check's range, above a row still waiting, has a row that moved on at once for stuck mail and is
      // empty otherwise, ids growing with fetches).
      const materialized = new Set(steps.map((step) => /^(?:MATERIALIZE|CO-ROUTINE) (\w+)/.exec(step.detail)?.[1]));
      const reading = (detail: string) => /^(SCAN|SEARCH) \w+/.test(detail);
      const inner = steps.filter(
        (step, at) =>
          (/^SEARCH \w+ USING .*\(.*[<>]=?\?/.test(step.detail) ||
            (/^SCAN \w+/.test(step.detail) && !materialized.has(/^SCAN (\w+)/.exec(step.detail)![1]))) &&
          steps.slice(0, at).some((outer) => outer.parent === step.parent && reading(outer.detail)),
      );
      expect(
        inner.map((step) => step.detail),
        sql.replace(/\s+/g, ' ').slice(0, 160),
      ).toEqual([]);
    }
  });
});
