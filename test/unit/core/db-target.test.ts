import { describe, expect, it } from 'vitest';
import { chooseDb, parseDbTarget, redactSecrets, redactUrl } from '../../../src/core/db-target.js';

describe('database target', () => {
  it('opens Postgres for postgres:// and postgresql:// URLs and SQLite for anything else', () => {
    expect(parseDbTarget('postgres://u@h/db').kind).toBe('postgres');
    expect(parseDbTarget('postgresql://u@h/db').kind).toBe('postgres');
    expect(parseDbTarget('./x.db')).toEqual({ kind: 'sqlite', path: `${process.cwd()}/x.db` });
  });

  it('prefers the flag, then LISTMINER_DB, then the config file, then ./listminer.db', () => {
    expect(chooseDb('a.db', { LISTMINER_DB: 'b.db' }, 'c.db')).toBe('a.db');
    expect(chooseDb(undefined, { LISTMINER_DB: 'b.db' }, 'c.db')).toBe('b.db');
    expect(chooseDb(undefined, {}, 'c.db')).toBe('c.db');
    expect(chooseDb(undefined, {}, undefined)).toBe('./listminer.db');
  });

  it('hides passwords in URLs and in free text', () => {
    expect(redactUrl('postgres://me:s3cret@db.example.org:5432/lm')).toBe('postgres://me:*****@db.example.org:5432/lm');
    expect(redactUrl('postgres://me@db/lm')).toBe('postgres://me@db/lm');
    expect(redactSecrets('failed for postgresql://me:p%40ss@h/x today')).toBe(
      'failed for postgresql://me:*****@h/x today',
    );
  });
});
