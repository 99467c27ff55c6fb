import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { withStore } from '../../src/core/store/open-store.js';
import { runCli } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const README = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
const ENGINE_LABEL = { sqlite: '-- SQLite', postgres: '-- PostgreSQL' } as const;

/** The ```sql blocks of the README's "Asking questions" section, each with the engine its first line names. */
function readmeQueries(): Array<{ engine: string; sql: string }> {
  const section = README.slice(README.indexOf('### Asking questions'), README.indexOf('### Real archives'));
  return [...section.matchAll(/```sql\n([\s\S]*?)```/g)].map((block) => ({
    engine: block[1]!.split('\n')[0]!,
    sql: block[1]!,
  }));
}

describeOnDialectDatabases("the README's SQL examples on $dialect", (databases) => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await databases.create();
    for (const [file, rules, repo] of [
      ['quarry-dev.mbox', 'apache_ponymail', 'https://github.com/apache/quarry'],
      ['kernel-net.mbox', 'public_inbox', 'https://github.com/torvalds/linux'],
    ] as const) {
      const result = await runCli(['sync', example(file), '--rules', rules, '--repo', repo, '--db', db.url]);
      expect(result.code, result.stderr).toBe(0);
    }
  });

  it('has an example for each engine of every question', () => {
    const engines = readmeQueries().map((query) => query.engine);
    expect(engines.filter((engine) => engine === ENGINE_LABEL.sqlite)).toHaveLength(2);
    expect(engines.filter((engine) => engine === ENGINE_LABEL.postgres)).toHaveLength(2);
    expect(engines.every((engine) => Object.values(ENGINE_LABEL).includes(engine as never))).toBe(true);
  });

  it('runs every example written for this engine, as printed, and gets rows', async () => {
    const queries = readmeQueries().filter((query) => query.engine === ENGINE_LABEL[databases.dialect]);
    const answers = await withStore(db.url, async (store) =>
      Promise.all(queries.map((query) => store.db.all(query.sql))),
    );
    const [perMonth, review] = answers;
    expect(perMonth!.length).toBeGreaterThan(0);
    expect(Object.keys(perMonth![0]!)).toEqual(['month', 'msg_class', 'messages']);
    expect(String(perMonth![0]!.month)).toMatch(/^\d{4}-\d{2}$/);
    expect(review!.length).toBeGreaterThan(0);
    expect(Object.keys(review![0]!)).toEqual(['title', 'posted', 'hours_to_first_review', 'reviews']);
    expect(review!.some((row) => row.hours_to_first_review !== null && Number(row.hours_to_first_review) > 0)).toBe(
      true,
    );
  });
});
