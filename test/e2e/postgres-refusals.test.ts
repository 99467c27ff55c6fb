import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { createTestDatabase, PG_ADMIN_URL, postgresSkipReason, type TestDatabase } from '../helpers/databases.js';

if (postgresSkipReason) console.warn(`skipping PostgreSQL addresses the server refuses: ${postgresSkipReason}`);

/** Whether the test server takes TLS connections (its `ssl` setting). */
async function serverTakesTls(): Promise<boolean> {
  const sql = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    const [row] = await sql<{ ssl: string }[]>`SELECT current_setting('ssl') AS ssl`;
    return row!.ssl === 'on';
  } finally {
    await sql.end();
  }
}

describe.skipIf(Boolean(postgresSkipReason))('PostgreSQL addresses that cannot hold a store, on a real server', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
  });
  afterAll(() => database?.drop());

  it('refuses a URL with no database name, and makes no table in the server default one', async () => {
    const url = new URL(database.url);
    const bare = `${url.protocol}//${url.username}@${url.host}/`;
    const env = { PGDATABASE: '' };
    const result = await runCli(['lists', 'ls', '--db', bare], { env });
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe(
      `Error: The database URL ${bare} names no database: listminer would make its tables in the server's default one.`,
    );
  });

  it('says the server takes no TLS when the URL asks for it', async (context) => {
    if (await serverTakesTls()) return context.skip();
    const url = `${database.url}?sslmode=require`;
    const result = await runCli(['stats', '--db', url]);
    expect(result.code).not.toBe(0);
    expect(result.stderr.split('\n')[0]).toBe(
      `Error: The database ${url} does not take TLS connections, and its URL asks for one (sslmode).`,
    );
  });
});
