import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-project-isolation-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Five threads of one message each; the third is the one a trigger will refuse. */
function writeMbox(): string {
  const subjects = ['Hello', 'Release plans', 'poison pill', 'Build broken', 'Thanks'];
  const path = join(dir, 'threads.mbox');
  const mail = subjects.map((subject, n) =>
    [
      `From jane@example.org Mon Jan  1 00:00:0${n} 2024`,
      `From: Jane <jane${n}@example.org>`,
      `Subject: ${subject}`,
      `Message-ID: <thread-${n}@example.org>`,
      `Date: Mon, 1 Jan 2024 00:00:0${n} +0000`,
      '',
      `Body ${n}.`,
      '',
    ].join('\n'),
  );
  writeFileSync(path, mail.join('\n'));
  return path;
}

interface ProjectJson {
  threadsFailed: number;
  examined: number;
  lists: Array<{ status: string; failedThreads: Array<{ messageId: string | null; error: string }> }>;
}

describeOnDialectDatabases('project isolates one thread on $dialect', (databases) => {
  let db: TestDatabase;
  beforeEach(async () => {
    db = await databases.create();
    for (const args of [
      ['lists', 'add', '--system', 'mbox', '--repo', 'https://github.com/example/threads', writeMbox()],
      ['fetch', '--full'],
      ['classify'],
      ['drain'],
    ]) {
      const step = await runCli([...args, '--db', db.url]);
      expect(step.code, step.stderr).toBe(0);
    }
  });

  const query = async <T>(sql: string): Promise<T[]> => {
    const store = await openStore(db.url);
    try {
      return await store.db.all<T>(sql);
    } finally {
      await store.close();
    }
  };
  const exec = async (sql: string) => {
    const store = await openStore(db.url);
    try {
      await store.db.run(sql);
    } finally {
      await store.close();
    }
  };

  it('projects the rest of the list, records the thread the database refuses with its error, and projects it once it can', async () => {
    if (databases.dialect === 'sqlite') {
      await exec(
        `CREATE TRIGGER refuse_row BEFORE UPDATE OF projected_kind ON email_messages WHEN NEW.subject LIKE 'poison%' BEGIN SELECT RAISE(ABORT, 'refused by a test trigger'); END`,
      );
    } else {
      await exec(
        `CREATE FUNCTION refuse_row() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.subject LIKE 'poison%' THEN RAISE EXCEPTION 'refused by a test trigger'; END IF; RETURN NEW; END $$`,
      );
      await exec(
        'CREATE TRIGGER refuse_row BEFORE UPDATE OF projected_kind ON email_messages FOR EACH ROW EXECUTE FUNCTION refuse_row()',
      );
    }
    // Before, the whole list failed on every run (exit 4) and none of its mail was projected.
    const first = await runCliJson<ProjectJson>(['project', '--json', '--db', db.url]);
    expect(first.code, first.stderr).toBe(0);
    expect(first.json.threadsFailed).toBe(1);
    expect(first.json.lists[0]!.status).toBe('projected');
    expect(first.json.lists[0]!.failedThreads).toEqual([
      {
        rootId: expect.any(Number),
        messageId: 'thread-2@example.org',
        error: expect.stringMatching(/refused by a test trigger/),
      },
    ]);
    const kinds = await query<{ subject: string; projected_kind: string | null }>(
      'SELECT subject, projected_kind FROM email_messages ORDER BY id',
    );
    expect(kinds.filter((k) => k.projected_kind === null).map((k) => k.subject)).toEqual(['poison pill']);
    const recorded = await query<{ error: string }>('SELECT error FROM project_failures');
    expect(recorded).toEqual([{ error: expect.stringMatching(/refused by a test trigger/) }]);

    // A run while it still fails: reported again, the rest stays as it was, still exit 0.
    const second = await runCliJson<ProjectJson>(['project', '--json', '--db', db.url]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.json.threadsFailed).toBe(1);

    await exec(
      databases.dialect === 'sqlite' ? 'DROP TRIGGER refuse_row' : 'DROP TRIGGER refuse_row ON email_messages',
    );
    const third = await runCliJson<ProjectJson>(['project', '--json', '--db', db.url]);
    expect(third.code, third.stderr).toBe(0);
    expect(third.json.threadsFailed).toBe(0);
    expect(await query('SELECT subject FROM email_messages WHERE projected_kind IS NULL')).toEqual([]);
    expect(await query('SELECT error FROM project_failures')).toEqual([]);
  });
});
