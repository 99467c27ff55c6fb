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

  it("names a statement_timeout that cancels even the client's first statements, not an unexpected error", async () => {
    // A database set so that nearly every statement is cancelled: the client's own setup queries among them.
    const timed = await createTestDatabase('postgres');
    const name = new URL(timed.url).pathname.slice(1);
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      await admin.unsafe(`ALTER DATABASE "${name}" SET statement_timeout = '1ms'`);
      const result = await runCli(['lists', 'add', '--db', timed.url, '--system', 'mbox', '/nonexistent.mbox']);
      expect(result.code).toBe(1);
      expect(result.stderr.split('\n')[0]).toMatch(
        /^Error: The database .* cancelled a statement \(canceling statement due to statement timeout\); nothing half-written was kept\.$/,
      );
    } finally {
      await admin.unsafe(`ALTER DATABASE "${name}" RESET statement_timeout`);
      await admin.end();
      await timed.drop();
    }
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
