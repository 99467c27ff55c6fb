import { existsSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliJson } from '../helpers/cli.js';
import { createTestDatabase, PG_ADMIN_URL, postgresSkipReason, type TestDatabase } from '../helpers/databases.js';

/**
 * A store on a PostgreSQL server of the same machine, reached through the
 * server's unix socket, written as libpq writes it: the socket's directory
 * %2F-escaped as the URL's host, or as the `host` setting of its query
 * string (README, "Configuration").
 */
async function socketDirectory(): Promise<{ directory?: string; port: number; skip?: string }> {
  if (postgresSkipReason) return { port: 0, skip: postgresSkipReason };
  const sql = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    const [setting] = await sql<{ directories: string; port: string }[]>`
      SELECT current_setting('unix_socket_directories') AS directories, current_setting('port') AS port`;
    const { directories, port } = setting!;
    const directory = directories
      .split(',')
      .map((entry) => entry.trim())
      .find((entry) => entry.startsWith('/') && existsSync(join(entry, `.s.PGSQL.${port}`)));
    return directory
      ? { directory, port: Number(port) }
      : { port: Number(port), skip: `the test server has no unix socket on this machine (${directories})` };
  } finally {
    await sql.end();
  }
}

const socket = await socketDirectory();
if (socket.skip) console.warn(`skipping the unix socket addresses: ${socket.skip}`);

describe.skipIf(Boolean(socket.skip))('a PostgreSQL store through the unix socket', () => {
  let database: TestDatabase;
  let name: string;
  let user: string;
  beforeAll(async () => {
    database = await createTestDatabase('postgres');
    const url = new URL(database.url);
    name = url.pathname.slice(1);
    user = url.username;
    const added = await runCli([
      'lists',
      'add',
      'dev@kafka.apache.org',
      '--system',
      'apache_ponymail',
      '--db',
      database.url,
    ]);
    expect(added.code, added.stderr).toBe(0);
  });
  afterAll(() => database?.drop());

  it('opens the store named by the socket directory as the host, %2F-escaped', async () => {
    const host = encodeURIComponent(socket.directory!);
    const result = await runCliJson<{ lists: Array<{ name: string }> }>([
      'lists',
      'ls',
      '--db',
      `postgres://${user}@${host}:${socket.port}/${name}`,
    ]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.json.lists.map((list) => list.name)).toEqual(['dev@kafka.apache.org']);
  });

  it("opens the store named by a host setting in the query string, which stands over the URL's own host", async () => {
    for (const url of [
      `postgres://${user}@localhost/${name}?host=${socket.directory}&port=${socket.port}`,
      `postgresql://${user}@localhost/${name}?host=${encodeURIComponent(socket.directory!)}`,
    ]) {
      const result = await runCliJson<{ lists: Array<{ name: string }> }>(['lists', 'ls', '--db', url]);
      expect(result.code, `${url}: ${result.stderr}`).toBe(0);
      expect(result.json.lists.map((list) => list.name)).toEqual(['dev@kafka.apache.org']);
    }
  });

  it('says which socket it could not reach when the directory holds none', async () => {
    const result = await runCli(['lists', 'ls', '--db', `postgres:///${name}?host=/nonexistent-socket-dir`]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('Cannot connect to the database');
    expect(result.stderr).toContain('/nonexistent-socket-dir/.s.PGSQL.5432');
    expect(result.stderr).toContain('ENOENT');
  });
});
