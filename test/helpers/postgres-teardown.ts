import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import type { TestProject } from 'vitest/node';

/**
 * vitest's global setup: the PostgreSQL test databases of one run share a
 * name prefix, and are dropped together when the run ends, not one by one
 * after each test. PostgreSQL 15 forces a checkpoint for every DROP DATABASE,
 * which held each test for seconds; drops made at the same time share their
 * checkpoints. The prefix holds the run's process id, so a run on this
 * machine also drops what a run that was stopped before its end left behind.
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

/** The process id of the run that made a test database, when it is one of ours. */
const RUN_OF = /^listminer_test_(\d+)_[0-9a-f]{8}_/;

function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Drops the databases a name test picks, a few at a time. */
async function dropWhere(pick: (name: string) => boolean): Promise<void> {
  const sql = postgres(PG_ADMIN_URL, { max: DROPS_AT_ONCE, connect_timeout: 3, onnotice: () => {} });
  try {
    const names = (
      await sql<{ datname: string }[]>`SELECT datname FROM pg_database WHERE starts_with(datname, 'listminer_test_')`
    )
      .map((row) => row.datname)
      .filter(pick);
    const dropper = async () => {
      for (let name = names.pop(); name; name = names.pop())
        await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    };
    await Promise.all(Array.from({ length: DROPS_AT_ONCE }, dropper));
  } catch {
    // No server (the PostgreSQL variants are skipped): nothing to drop.
  } finally {
    await sql.end({ timeout: 5 });
  }
}

export default async function setup(project: TestProject) {
  const prefix = `listminer_test_${process.pid}_${randomBytes(4).toString('hex')}_`;
  project.provide('testDatabasePrefix', prefix);
  // Process ids say which runs are gone only for a server on this machine.
  if (['127.0.0.1', 'localhost', '[::1]'].includes(new URL(PG_ADMIN_URL).hostname)) {
    await dropWhere((name) => {
      const pid = RUN_OF.exec(name)?.[1];
      return pid !== undefined && !running(Number(pid));
    });
  }
  return () => dropWhere((name) => name.startsWith(prefix));
}
