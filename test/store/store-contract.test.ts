import { expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import { readMigrations } from '../../src/core/store/migrate.js';
import { createTestDatabase } from '../helpers/databases.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

// One contract, run once per dialect: the same calls give the same records.
describeOnDialects('store contract on $dialect', (getStore, dialect) => {
  it('records every migration with its checksum and applies nothing on reopen', async () => {
    const store = getStore();
    const rows = await store.db.all<{ name: string; checksum: string }>(
      'SELECT name, checksum FROM schema_migrations ORDER BY name',
    );
    expect(rows).toEqual(readMigrations(dialect).map((m) => ({ name: m.name, checksum: m.checksum })));
    const again = await openStore(store.url);
    expect(await again.db.all('SELECT name FROM schema_migrations')).toHaveLength(rows.length);
    await again.close();
  });

  it('opens a new database from several stores at once (as processes do), each finding it migrated', async () => {
    // Each round a database no process has opened; the first opens all create the migrations table.
    for (let round = 0; round < 3; round++) {
      const database = await createTestDatabase(dialect);
      try {
        const stores = await Promise.all(Array.from({ length: 4 }, () => openStore(database.url)));
        for (const store of stores)
          expect(await store.db.all('SELECT name FROM schema_migrations')).toHaveLength(readMigrations(dialect).length);
        await Promise.all(stores.map((store) => store.close()));
      } finally {
        await database.drop();
      }
    }
  });

  it('names the file it is on SQLite, so that file is never read as mail, and none on PostgreSQL', () => {
    const store = getStore();
    expect(store.file).toBe(dialect === 'sqlite' ? store.url : undefined);
  });

  it('refuses a database whose applied migration differs from its file', async () => {
    const store = getStore();
    await store.db.run("UPDATE schema_migrations SET checksum = 'tampered' WHERE name = '001_initial.sql'");
    await expect(openStore(store.url)).rejects.toThrow(/applied migration 001_initial.sql with different contents/);
  });

  it('refuses a database written by a newer listminer', async () => {
    const store = getStore();
    await store.db.run(
      "INSERT INTO schema_migrations (name, checksum, applied_at) VALUES ('999_future.sql', 'x', 'now')",
    );
    await expect(openStore(store.url)).rejects.toThrow(
      /has migration 999_future.sql that this listminer does not know/,
    );
  });

  it('streams a query in batches of the size asked, in order, and serves other queries once the stream ends', async () => {
    const store = getStore();
    for (let i = 1; i <= 7; i++) await store.lists.register({ system: 'mbox', name: `/data/${i}.mbox` });
    const batches: string[][] = [];
    for await (const rows of store.db.stream<{ name: string }>(
      'SELECT name FROM lists WHERE id > ? ORDER BY id',
      [0],
      3,
    )) {
      batches.push(rows.map((row) => row.name));
    }
    expect(batches.map((batch) => batch.length)).toEqual([3, 3, 1]);
    expect(batches.flat()).toEqual(Array.from({ length: 7 }, (_, i) => `/data/${i + 1}.mbox`));
    // A stream left early lets go of its connection.
    for await (const rows of store.db.stream('SELECT id FROM lists ORDER BY id', [], 2)) {
      expect(rows).toHaveLength(2);
      break;
    }
    expect(await store.lists.all()).toHaveLength(7);
  });

  it('registers a list once however often and however concurrently it is added', async () => {
    const store = getStore();
    const add = () =>
      store.lists.register({
        system: 'apache_ponymail',
        name: 'dev@kafka.apache.org',
        listAddress: 'dev@kafka.apache.org',
      });
    const results = await Promise.all([add(), add(), add(), add()]);
    expect(results.filter((r) => r.action === 'added')).toHaveLength(1);
    expect(await store.lists.all()).toHaveLength(1);
    expect((await add()).action).toBe('unchanged');
  });

  it('updates only the fields a later registration gives', async () => {
    const store = getStore();
    await store.lists.register({
      system: 'mbox',
      name: '/data/a.mbox',
      listId: 'a.example.org',
      rulesSystem: 'apache_ponymail',
    });
    const { action, list } = await store.lists.register({ system: 'mbox', name: '/data/a.mbox', baseUrl: 'file:///x' });
    expect(action).toBe('updated');
    expect(list).toMatchObject({ listId: 'a.example.org', rulesSystem: 'apache_ponymail', baseUrl: 'file:///x' });
  });

  it('returns records of the same shape on every engine', async () => {
    const store = getStore();
    const { list } = await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    expect(list.scanComplete).toBe(false);
    expect(typeof list.id).toBe('number');
    expect(list.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(list.lockedAt).toBeNull();
  });

  it('keeps one repo per URL and ties waiting lists to it', async () => {
    const store = getStore();
    await store.lists.register({
      system: 'apache_ponymail',
      name: 'dev@kafka.apache.org',
      repoUrl: 'https://github.com/apache/kafka',
    });
    const repo = { url: 'https://github.com/apache/kafka', host: 'github.com', owner: 'apache', name: 'kafka' };
    const first = await store.repos.ensure(repo);
    const second = await store.repos.ensure(repo);
    expect([first.created, second.created]).toEqual([true, false]);
    expect(second.repo.id).toBe(first.repo.id);
    expect(await store.repos.attachToLists(first.repo)).toBe(1);
    expect((await store.lists.all())[0]!.repoId).toBe(first.repo.id);
  });

  it('rolls back every statement of a failed transaction', async () => {
    const store = getStore();
    await expect(
      store.db.transaction(async (tx) => {
        await tx.run("INSERT INTO repos (url, host, name, created_at) VALUES ('https://x.org/a', 'x.org', 'a', ?)", [
          new Date().toISOString(),
        ]);
        throw new Error('stop');
      }),
    ).rejects.toThrow('stop');
    expect(await store.repos.all()).toEqual([]);
  });

  it('counts messages per list and status, and removes a list with its mail', async () => {
    const store = getStore();
    const { list } = await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    const now = new Date().toISOString();
    for (const [key, status] of [
      ['a', 'staged'],
      ['b', 'drained'],
      ['c', 'shunted'],
    ] as const) {
      await store.db.run(
        `INSERT INTO staged_messages (list_id, message_key, content_hash, size, status, fetched_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)`,
        [list.id, key, key, 16, status, now, now],
      );
    }
    expect((await store.lists.counts()).get(list.id)).toEqual({ staged: 3, drained: 1, deferred: 0, shunted: 1 });
    expect(await store.lists.remove(list.id)).toBe(true);
    expect(await store.db.all('SELECT id FROM staged_messages')).toEqual([]);
  });

  it('stores and returns raw bytes unchanged', async () => {
    const store = getStore();
    const { list } = await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    const raw = Buffer.from([0, 1, 2, 0xff, 0xfe, 0x0d, 0x0a, 0x80]);
    await store.staging.stageBatch(list.id, null, [
      { raw, messageId: null, contentHash: 'h', key: 'k', variantKey: null },
    ]);
    const [row] = await store.classify.nextBatch({ listId: list.id, statuses: ['staged'] }, 0, 10);
    expect(Buffer.from(row!.raw).equals(raw)).toBe(true);
  });

  it('stores JSON text as a JSON value a researcher can query inside, not as a string of JSON', async () => {
    const store = getStore();
    const { list } = await store.lists.register({ system: 'public_inbox', name: 'netdev' });
    const now = new Date().toISOString();
    await store.db.run(
      `INSERT INTO staged_messages (list_id, message_key, content_hash, size, captures, fetched_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)`,
      [list.id, 'k', 'h', 1, JSON.stringify({ external_key: 'KAFKA-1' }), now, now],
    );
    // Each engine's own JSON operator, as a researcher would write it.
    const query =
      dialect === 'postgres'
        ? "SELECT jsonb_typeof(captures) AS kind, captures->>'external_key' AS key FROM staged_messages"
        : "SELECT json_type(captures) AS kind, json_extract(captures, '$.external_key') AS key FROM staged_messages";
    expect(await store.db.get(query)).toEqual({ kind: 'object', key: 'KAFKA-1' });
  });
});
