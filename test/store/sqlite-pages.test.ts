import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { openStore } from '../../src/core/store/open-store.js';
import type { Store } from '../../src/core/store/store.js';

/**
 * A new SQLite store is made with 16 KiB pages (docs/store.md); a file made
 * before, with SQLite's 4 KiB, keeps them and works as before. Either way
 * the WAL is checkpointed at about 400 MB.
 */
describe('the page size of a SQLite store', () => {
  let folder: string;
  let store: Store | undefined;

  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'listminer-pages-'));
  });

  afterEach(async () => {
    await store?.close();
    store = undefined;
    rmSync(folder, { recursive: true, force: true });
  });

  const settings = async (opened: Store) => ({
    pageSize: Number((await opened.db.get<{ page_size: number }>('PRAGMA page_size'))!.page_size),
    checkpointPages: Number(
      (await opened.db.get<{ wal_autocheckpoint: number }>('PRAGMA wal_autocheckpoint'))!.wal_autocheckpoint,
    ),
  });

  it('is 16 KiB in a new file, with a checkpoint every 400 MiB of WAL', async () => {
    store = await openStore(join(folder, 'new.db'));
    expect(await settings(store)).toEqual({ pageSize: 16_384, checkpointPages: 25_600 });
  });

  it('stays 4 KiB in a file made with 4 KiB pages, which takes mail as before', async () => {
    const path = join(folder, 'old.db');
    const old = new Database(path);
    old.pragma('page_size = 4096');
    old.pragma('journal_mode = WAL');
    old.exec('CREATE TABLE made_before (id INTEGER PRIMARY KEY)');
    old.close();

    store = await openStore(path);
    expect(await settings(store)).toEqual({ pageSize: 4096, checkpointPages: 102_400 });
    const listId = (await store.lists.register({ system: 'mbox', name: '/tmp/a.mbox' })).list.id;
    const raw = Buffer.from('Message-ID: <a@x>\nFrom: a@example.org\nSubject: s\n\nbody\n');
    await store.staging.stageBatch(listId, '2024-01', [{ raw, ...identifyMessage(raw) }]);
    expect(await store.db.get('SELECT COUNT(*) AS n FROM staged_messages')).toEqual({ n: 1 });
  });
});
