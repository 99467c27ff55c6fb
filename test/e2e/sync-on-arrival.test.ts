import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { WORKERS_FROM_MESSAGES } from '../../src/core/classify/classify-staged.js';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import { addListAt } from '../helpers/add-list-at.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { withStoreAt, type TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { generateListMbox } from '../helpers/generated-list-mail.js';
import { digestStore } from '../helpers/store-digest.js';

const MIME = fileURLToPath(new URL('../fixtures/mime/', import.meta.url));

/** More than classify's threshold for a worker thread, so sync parses on one wherever there is a second CPU. */
const MESSAGES = WORKERS_FROM_MESSAGES + 600;

/** Each message's label as classify saved it: class, rule, captures, rules, and its status. */
async function labels(url: string): Promise<Record<string, string>> {
  const rows = await withStoreAt(url, (store) =>
    store.db.all<Record<string, unknown>>(
      'SELECT message_key, status, msg_class, class_source, captures, rules_hash, error FROM staged_messages',
    ),
  );
  return Object.fromEntries(
    rows.map(({ message_key, captures, ...rest }) => [
      String(message_key),
      JSON.stringify({ ...rest, captures: typeof captures === 'string' ? JSON.parse(captures) : captures }),
    ]),
  );
}

/** Records every UPDATE that sets a staged message's class, in a table of the test's own. */
async function countRelabels(url: string, dialect: string): Promise<void> {
  await withStoreAt(url, async (store) => {
    if (dialect === 'sqlite') {
      await store.db.exec(
        `CREATE TABLE relabelled (staged_message_id INTEGER);
         CREATE TRIGGER count_relabels AFTER UPDATE OF msg_class ON staged_messages BEGIN INSERT INTO relabelled VALUES (NEW.id); END;`,
      );
      return;
    }
    await store.db.exec(
      `CREATE TABLE relabelled (staged_message_id BIGINT);
       CREATE FUNCTION count_relabel() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO relabelled VALUES (NEW.id); RETURN NEW; END $$;
       CREATE TRIGGER count_relabels AFTER UPDATE OF msg_class ON staged_messages FOR EACH ROW EXECUTE FUNCTION count_relabel();`,
    );
  });
}

/** Records every envelope written beside a staged row, in a table of the test's own. */
async function countEnvelopeWrites(url: string, dialect: string): Promise<void> {
  await withStoreAt(url, async (store) => {
    if (dialect === 'sqlite') {
      await store.db.exec(
        `CREATE TABLE envelopes_written (staged_message_id INTEGER);
         CREATE TRIGGER count_envelopes AFTER INSERT ON staged_envelopes BEGIN INSERT INTO envelopes_written VALUES (NEW.staged_message_id); END;`,
      );
      return;
    }
    await store.db.exec(
      `CREATE TABLE envelopes_written (staged_message_id BIGINT);
       CREATE FUNCTION count_envelope() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO envelopes_written VALUES (NEW.staged_message_id); RETURN NEW; END $$;
       CREATE TRIGGER count_envelopes AFTER INSERT ON staged_envelopes FOR EACH ROW EXECUTE FUNCTION count_envelope();`,
    );
  });
}

async function countRows(url: string, sql: string): Promise<number> {
  const row = await withStoreAt(url, (store) => store.db.get<{ n: number | string }>(sql));
  return Number(row!.n);
}

/** The stage commands, one after the other, as a cron entry chains them. */
async function runStages(url: string, env: Record<string, string>, stages: string[][]): Promise<void> {
  for (const stage of stages) {
    const run = await runCli([...stage, '--db', url], { env });
    expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
  }
}

const EVERY_STAGE = [['fetch', '--now', '--full'], ['classify'], ['drain'], ['project']];

/**
 * sync labels each batch as fetch stages it (classify-on-arrival.ts), on a
 * worker thread where there is a second CPU; the stage commands label what
 * fetch left staged. Both must leave the same store.
 */
describeOnDialectDatabases('sync labelling mail as it is fetched, on $dialect', (databases) => {
  let dir: string;
  let mbox: string;
  let bySync: TestDatabase;
  let byStages: TestDatabase;
  let synced: SyncResult;
  const add = (db: TestDatabase, name = mbox) =>
    addListAt(db.url, { system: 'mbox', name, rules: 'apache_ponymail', repoUrl: 'https://github.com/apache/kafka' });

  beforeAll(async () => {
    if (availableParallelism() < 2) console.warn('one CPU: sync parses on the main thread, not on a worker');
    dir = mkdtempSync(join(tmpdir(), 'listminer-arrival-'));
    mbox = join(dir, 'dev.mbox');
    // The benchmark's traffic, then MIME that our reader declines and mailparser reads (nested, rfc822, ISO-2022-JP).
    const fixtures = readdirSync(MIME)
      .sort()
      .map(
        (name) => `From fixture@example.org Mon Jan  4 10:00:00 2021\n${readFileSync(join(MIME, name), 'latin1')}\n`,
      );
    writeFileSync(
      mbox,
      Buffer.concat([generateListMbox(MESSAGES, { tag: 'arrival' }), Buffer.from(fixtures.join(''), 'latin1')]),
    );
    const env = { LISTMINER_CACHE: join(dir, 'cache') };

    bySync = await databases.create();
    await add(bySync);
    await countRelabels(bySync.url, databases.dialect);
    await countEnvelopeWrites(bySync.url, databases.dialect);
    const sync = await runCliJson<SyncResult>(['sync', '--now', '--full', '--db', bySync.url], { env });
    expect(sync.code, sync.stderr).toBe(0);
    synced = sync.json;

    byStages = await databases.create();
    await add(byStages);
    await runStages(byStages.url, env, EVERY_STAGE);
  }, 180_000);

  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('counts every message it labelled in its classify figures', () => {
    const staged = synced.fetch.totals.staged;
    expect(staged).toBe(MESSAGES + readdirSync(MIME).length);
    expect(synced.classify!.classified + synced.classify!.shunted).toBe(staged);
    expect(Object.values(synced.classify!.classes).reduce((a, b) => a + b, 0)).toBe(synced.classify!.classified);
    expect(synced.classify!.lists[0]).toMatchObject({ classified: synced.classify!.classified });
    expect(synced.drain!.drained).toBe(synced.classify!.classified);
  });

  it('leaves the store the stage commands leave: labels, threads, bodies, senders, projection', async () => {
    expect(await labels(bySync.url)).toEqual(await labels(byStages.url));
    const { locks: _syncLocks, ...sync } = await digestStore(bySync.url);
    const { locks: _stageLocks, ...stages } = await digestStore(byStages.url);
    expect(sync).toEqual(stages);
  });

  it('writes each row it labels once: staged with its label, never staged and then labelled', async () => {
    const relabelled = await withStoreAt(bySync.url, (store) =>
      store.db.get<{ n: number | string }>('SELECT COUNT(*) AS n FROM relabelled'),
    );
    expect(Number(relabelled!.n)).toBe(0);
  });

  it('drains each batch as it stages it: no envelope is written, and no lock is left held', async () => {
    expect(synced.drain!.lists).toEqual([
      expect.objectContaining({ status: 'drained', drained: synced.classify!.classified, shunted: 0 }),
    ]);
    expect(await countRows(bySync.url, 'SELECT COUNT(*) AS n FROM envelopes_written')).toBe(0);
    expect(await countRows(bySync.url, 'SELECT COUNT(*) AS n FROM staged_envelopes')).toBe(0);
    expect((await digestStore(bySync.url)).locks).toEqual([]);
  });

  it('drains labelled mail whose envelope was never written from its raw bytes, as a sync stopped between the two leaves it', async () => {
    const stopped = await databases.create();
    await add(stopped);
    const env = { LISTMINER_CACHE: join(dir, 'cache') };
    await runStages(stopped.url, env, EVERY_STAGE.slice(0, 2));
    await withStoreAt(stopped.url, (store) => store.db.run('DELETE FROM staged_envelopes'));
    await runStages(stopped.url, env, EVERY_STAGE.slice(2));
    const { locks: _locks, ...after } = await digestStore(stopped.url);
    const { locks: _stageLocks, ...stages } = await digestStore(byStages.url);
    expect(after).toEqual(stages);
  }, 120_000);

  it('leaves mail an earlier run left waiting to the drain stage, in staging order, and ends as the stage commands do', async () => {
    // Half the list fetched and left staged; then the whole list, by sync and by the stage commands.
    const later = join(dir, 'later.mbox');
    const whole = generateListMbox(400, { tag: 'later' });
    const half = whole.subarray(0, whole.indexOf('\nFrom ', whole.length / 2) + 1);
    const env = { LISTMINER_CACHE: join(dir, 'cache-later') };
    const [waitingSync, waitingStages] = [await databases.create(), await databases.create()];
    writeFileSync(later, half);
    for (const db of [waitingSync, waitingStages]) {
      await add(db, later);
      await runStages(db.url, env, EVERY_STAGE.slice(0, 1));
    }
    await countEnvelopeWrites(waitingSync.url, databases.dialect);
    writeFileSync(later, whole);
    const sync = await runCliJson<SyncResult>(['sync', '--now', '--full', '--db', waitingSync.url], { env });
    expect(sync.code, sync.stderr).toBe(0);
    await runStages(waitingStages.url, env, EVERY_STAGE);

    expect(sync.json.drain!.drained).toBe(400);
    // Every row's envelope written (the waiting half's by classify): nothing was drained on arrival.
    expect(await countRows(waitingSync.url, 'SELECT COUNT(*) AS n FROM envelopes_written')).toBe(400);
    const { locks: syncLocks, ...bySyncAfter } = await digestStore(waitingSync.url);
    const { locks: _locks, ...byStagesAfter } = await digestStore(waitingStages.url);
    expect(syncLocks).toEqual([]);
    expect(bySyncAfter).toEqual(byStagesAfter);
  }, 120_000);

  it('parses nothing again when the archive hands over only mail it holds', async () => {
    const again = await runCliJson<SyncResult>(['sync', '--now', '--full', '--db', bySync.url], {
      env: { LISTMINER_CACHE: join(dir, 'cache') },
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.json.fetch.totals).toMatchObject({ staged: 0, duplicates: synced.fetch.totals.staged });
    expect(again.json.classify).toMatchObject({ classified: 0, shunted: 0 });
  });
});
