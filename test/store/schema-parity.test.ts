import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestStore, type Dialect, postgresSkipReason, type TestStore } from '../helpers/databases.js';

/**
 * migrations/sqlite and migrations/postgres must describe one schema: the
 * same tables, columns and named indexes, with types that hold the same
 * values. This reads both back from fresh databases and compares them.
 *
 * Types are compared in the vocabulary both engines can tell apart:
 * integer, real, text, bytes. PostgreSQL says more, and listminer's SQLite
 * migrations store those values as follows (see the header of
 * migrations/sqlite/001_initial.sql), so they count as the same:
 *   boolean   → integer  (0/1)
 *   json      → text     (JSON text; the store's row mapping parses it)
 *   timestamp → text     (ISO-8601 UTC)
 * INTEGER and BIGINT are one integer: SQLite integers are 64-bit anyway. A
 * declared type outside this list shows up as itself, so it never matches.
 */
type ColumnType = 'integer' | 'real' | 'text' | 'bytes' | 'boolean' | 'json' | 'timestamp';

const POSTGRES_TYPES: Record<string, ColumnType> = {
  smallint: 'integer',
  integer: 'integer',
  bigint: 'integer',
  real: 'real',
  'double precision': 'real',
  text: 'text',
  'character varying': 'text',
  character: 'text',
  bytea: 'bytes',
  boolean: 'boolean',
  json: 'json',
  jsonb: 'json',
  'timestamp with time zone': 'timestamp',
  'timestamp without time zone': 'timestamp',
};
const SQLITE_TYPES: Record<string, ColumnType> = { INTEGER: 'integer', REAL: 'real', TEXT: 'text', BLOB: 'bytes' };
const AS_SQLITE_STORES: Partial<Record<ColumnType, ColumnType>> = {
  boolean: 'integer',
  json: 'text',
  timestamp: 'text',
};

interface Schema {
  /** table → column → type in the vocabulary above (or the declared type when outside it). */
  columns: Record<string, Record<string, string>>;
  /** table → names of the indexes a migration created by name (not those behind PRIMARY KEY or UNIQUE). */
  indexes: Record<string, string[]>;
  /** view → its column names in order (a view's columns carry no declared type on SQLite, so names are what can be compared). */
  views: Record<string, string[]>;
}

async function readSqliteSchema(store: TestStore): Promise<Schema> {
  const columns = await store.db.all<{ table_name: string; name: string; type: string }>(
    `SELECT m.name AS table_name, c.name, c.type FROM sqlite_master m, pragma_table_info(m.name) c
     WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' ORDER BY m.name, c.cid`,
  );
  const indexes = await store.db.all<{ table_name: string; name: string }>(
    // origin 'c': made by CREATE INDEX, not by a PRIMARY KEY or UNIQUE constraint.
    `SELECT m.name AS table_name, i.name FROM sqlite_master m, pragma_index_list(m.name) i
     WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND i.origin = 'c'`,
  );
  const views = await store.db.all<{ view_name: string; name: string }>(
    `SELECT m.name AS view_name, c.name FROM sqlite_master m, pragma_table_info(m.name) c WHERE m.type = 'view' ORDER BY m.name, c.cid`,
  );
  return collect(
    columns.map((c) => ({ ...c, type: SQLITE_TYPES[c.type.toUpperCase()] ?? c.type })),
    indexes,
    views,
  );
}

async function readPostgresSchema(store: TestStore): Promise<Schema> {
  const columns = await store.db.all<{ table_name: string; name: string; type: string }>(
    `SELECT c.table_name, c.column_name AS name, c.data_type AS type FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'BASE TABLE'
     WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`,
  );
  const views = await store.db.all<{ view_name: string; name: string }>(
    `SELECT c.table_name AS view_name, c.column_name AS name FROM information_schema.columns c
     JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name AND t.table_type = 'VIEW'
     WHERE c.table_schema = current_schema() ORDER BY c.table_name, c.ordinal_position`,
  );
  const indexes = await store.db.all<{ table_name: string; name: string }>(
    `SELECT t.relname AS table_name, c.relname AS name
     FROM pg_index i
     JOIN pg_class c ON c.oid = i.indexrelid
     JOIN pg_class t ON t.oid = i.indrelid
     JOIN pg_namespace n ON n.oid = t.relnamespace
     WHERE n.nspname = current_schema()
       AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid)`,
  );
  return collect(
    columns.map((c) => ({ ...c, type: POSTGRES_TYPES[c.type] ?? c.type })),
    indexes,
    views,
  );
}

function collect(
  columns: Array<{ table_name: string; name: string; type: string }>,
  indexes: Array<{ table_name: string; name: string }>,
  views: Array<{ view_name: string; name: string }>,
): Schema {
  const schema: Schema = { columns: {}, indexes: {}, views: {} };
  for (const column of views) (schema.views[column.view_name] ??= []).push(column.name);
  for (const column of columns) (schema.columns[column.table_name] ??= {})[column.name] = column.type;
  for (const index of indexes) (schema.indexes[index.table_name] ??= []).push(index.name);
  for (const names of Object.values(schema.indexes)) names.sort();
  return schema;
}

/** Flat views, keyed by what a difference names: "table", "table.column" (→ type), "table index name". */
const tablesOf = (schema: Schema) => new Map(Object.keys(schema.columns).map((table) => [table, 'present']));
const columnsOf = (schema: Schema) =>
  new Map(
    Object.entries(schema.columns).flatMap(([table, columns]) =>
      Object.entries(columns).map(([column, type]) => [`${table}.${column}`, type] as const),
    ),
  );
const indexesOf = (schema: Schema) =>
  new Map(
    Object.entries(schema.indexes).flatMap(([table, names]) =>
      names.map((name) => [`${table} index ${name}`, 'present'] as const),
    ),
  );

const storedAs = (type: string | undefined) => (type && AS_SQLITE_STORES[type as ColumnType]) ?? type;

/** One line per key whose value differs, e.g. "email_messages.language: text on sqlite, missing on postgres". */
function differences(sqlite: Map<string, string>, postgres: Map<string, string>): string[] {
  const keys = [...new Set([...sqlite.keys(), ...postgres.keys()])].sort();
  return keys
    .filter((key) => storedAs(sqlite.get(key)) !== storedAs(postgres.get(key)))
    .map((key) => `${key}: ${sqlite.get(key) ?? 'missing'} on sqlite, ${postgres.get(key) ?? 'missing'} on postgres`);
}

const read: Record<Dialect, (store: TestStore) => Promise<Schema>> = {
  sqlite: readSqliteSchema,
  postgres: readPostgresSchema,
};

if (postgresSkipReason) console.warn(`skipping the schema parity check: ${postgresSkipReason}`);

describe.skipIf(Boolean(postgresSkipReason))('schema parity between migrations/sqlite and migrations/postgres', () => {
  const schemas = {} as Record<Dialect, Schema>;
  const stores: TestStore[] = [];
  beforeAll(async () => {
    for (const dialect of ['sqlite', 'postgres'] as const) {
      const store = await createTestStore(dialect);
      stores.push(store);
      schemas[dialect] = await read[dialect](store);
    }
  });
  afterAll(async () => {
    for (const store of stores) await store.dropDatabase();
  });

  it('has the same tables on both engines', () => {
    expect(differences(tablesOf(schemas.sqlite), tablesOf(schemas.postgres))).toEqual([]);
    expect(Object.keys(schemas.sqlite.columns)).toContain('email_messages');
  });

  it('has the same columns in every table, with types that store the same values', () => {
    expect(differences(columnsOf(schemas.sqlite), columnsOf(schemas.postgres))).toEqual([]);
  });

  it('has the same views with the same columns in the same order', () => {
    expect(schemas.sqlite.views).toEqual(schemas.postgres.views);
    expect(Object.keys(schemas.sqlite.views)).toContain('pr_equivalents');
  });

  it('has the same named indexes on every table that has them', () => {
    expect(differences(indexesOf(schemas.sqlite), indexesOf(schemas.postgres))).toEqual([]);
    expect(schemas.sqlite.indexes.staged_messages).toEqual([
      'staged_messages_drain',
      'staged_messages_status',
      'staged_messages_variants',
    ]);
  });
});
