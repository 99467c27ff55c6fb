import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';

/**
 * vitest's global setup: the PostgreSQL test databases of one run share a
 * name prefix, and are dropped together when the run ends, not one by one
 * after each test. PostgreSQL 15 forces a checkpoint for every DROP DATABASE,
 * which held each test for seconds; drops made at the same time share their
 * checkpoints.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    /** The name prefix of this run's PostgreSQL test databases. */
    testDatabasePrefix: string;
  }
}

const PG_ADMIN_URL = process.env.LISTMINER_TEST_PG ?? 'postgres://postgres@127.0.0.1:5432/postgres';
/** Drops at once at the end: enough to share checkpoints, few enough for the server's connections. */
const DROPS_AT_ONCE = 8;

export default function setup(project: TestProject) {
  const prefix = `listminer_test_${randomBytes(4).toString('hex')}_`;
  project.provide('testDatabasePrefix', prefix);
  return async () => {
    const sql = postgres(PG_ADMIN_URL, { max: DROPS_AT_ONCE, connect_timeout: 3, onnotice: () => {} });
    try {
      const names = (await sql<{ datname: string }[]>`SELECT datname FROM pg_database WHERE starts_with(datname, ${prefix})`).map((row) => row.datname);
      const next = () => names.pop();
      const dropper = async () => {
        for (let name = next(); name; name = next()) await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      };
      await Promise.all(Array.from({ length: DROPS_AT_ONCE }, dropper));
    } catch {
      // No server (the PostgreSQL variants were skipped): nothing to drop.
    } finally {
      await sql.end({ timeout: 5 });
    }
  };
}
