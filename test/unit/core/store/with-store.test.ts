import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/core/errors.js';
import { withStore } from '../../../../src/core/store/open-store.js';

/**
 * A command refused before it registered anything removes the SQLite file it
 * created, so a mistyped command leaves no empty database behind; but never
 * a file another process has opened in the meantime, which would lose that
 * process's run.
 */
describe('withStore on a SQLite file it creates', () => {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-with-store-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const refuse = () => {
    throw new InputError('refused', 'as a mistyped command is');
  };

  it('removes the file when the command is refused and nothing else has it open', async () => {
    const path = join(dir, 'alone.db');
    await expect(withStore(path, async () => refuse())).rejects.toThrow('refused');
    expect(['', '-wal', '-shm'].filter((suffix) => existsSync(`${path}${suffix}`))).toEqual([]);
  });

  it('keeps the file when another connection opened it before the command was refused', async () => {
    const path = join(dir, 'shared.db');
    let other: Database.Database | undefined;
    try {
      await expect(
        withStore(path, async () => {
          // Another listminer starting on the same new path: it opens the file and reads it.
          other = new Database(path);
          other.prepare('SELECT COUNT(*) FROM lists').get();
          refuse();
        }),
      ).rejects.toThrow('refused');
      expect(existsSync(path)).toBe(true);
      expect(other!.prepare('SELECT COUNT(*) AS n FROM lists').get()).toEqual({ n: 0 });
    } finally {
      other?.close();
    }
  });
});
