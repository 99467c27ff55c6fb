import { describe, expect, it } from 'vitest';
import type { InputError } from '../../../src/core/errors.js';
import { chooseDb, parseDbTarget, postgresAddress, redactSecrets, redactUrl } from '../../../src/core/db-target.js';

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

  it('reads a unix socket directory as libpq does: the host %2F-escaped, or the host setting of the query', () => {
    expect(postgresAddress('postgres://me@%2Fvar%2Frun%2Fpostgresql/lm')).toEqual({
      url: 'postgres://me@%2Fvar%2Frun%2Fpostgresql/lm',
      host: '/var/run/postgresql',
      port: undefined,
      display: '/var/run/postgresql/.s.PGSQL.5432',
    });
    expect(postgresAddress('postgres:///lm?host=/tmp&port=5433&application_name=x')).toEqual({
      url: 'postgres:///lm?application_name=x',
      host: '/tmp',
      port: 5433,
      display: '/tmp/.s.PGSQL.5433',
    });
    expect(postgresAddress('postgresql://me:pw@localhost:6000/lm?host=db.example.org')).toMatchObject({
      url: 'postgresql://me:pw@localhost:6000/lm',
      host: 'db.example.org',
      port: 6000,
      display: 'db.example.org:6000',
    });
  });

  it('gives the client a URL with nothing of its own taken apart', () => {
    const url = 'postgres://me:p%40ss@db.example.org:5432/lm?sslmode=require';
    expect(postgresAddress(url)).toEqual({
      url,
      host: 'db.example.org',
      port: 5432,
      display: 'db.example.org:5432',
    });
  });

  it('refuses a URL that names no host or no TCP port, with the way to write a socket', () => {
    expect(() => parseDbTarget('postgres:///lm')).toThrow(/names no host/);
    const refusal = (() => {
      try {
        parseDbTarget('postgres:///lm');
      } catch (error) {
        return error as InputError;
      }
    })();
    expect(refusal?.hint).toContain('postgres://USER@%2Fvar%2Frun%2Fpostgresql/DATABASE');
    expect(() => parseDbTarget('postgres://h/lm?port=many')).toThrow('names port "many", which is not a TCP port');
    expect(() => parseDbTarget('postgres://h/lm?port=70000')).toThrow('not a TCP port');
    expect(parseDbTarget('postgres:///lm?host=/var/run/postgresql').kind).toBe('postgres');
  });

  it('refuses a URL that names no database, rather than filling the server default one with tables', () => {
    for (const url of [
      'postgres://u@db.example.org:5432/',
      'postgres://u@db.example.org',
      'postgresql://db.example.org/?sslmode=require',
    ])
      expect(() => parseDbTarget(url, {})).toThrow(/names no database/);
    // Named by the path, or by PGDATABASE as libpq and the PostgreSQL client take it, or by a `database` setting.
    expect(parseDbTarget('postgres://db.example.org/', { PGDATABASE: 'lm' }).kind).toBe('postgres');
    // The client sends a `database` setting of the query string to the server as the database to open.
    expect(parseDbTarget('postgres://db.example.org:5432?database=lm', {}).kind).toBe('postgres');
  });
});
