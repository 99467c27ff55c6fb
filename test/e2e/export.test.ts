import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ExportManifest, ExportResult } from '../../src/core/export/export-research-tables.js';
import { tableColumns, TABLE_NAMES, type TableName } from '../../src/core/export/export-columns.js';
import { openStore } from '../../src/core/store/open-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeAcrossEngines } from '../helpers/describe-on-dialects.js';
import { ADD_SAMPLE_LISTS } from '../helpers/sample-lists.js';

// Three messages: a subject with quotes, commas and non-ASCII over a body with newlines; one in April; one with no Date and an empty subject.
const TRICKY = fileURLToPath(new URL('../fixtures/export/tricky.mbox', import.meta.url));
const TRICKY_SUBJECT = 'Re: "Quoted", commas, and a café — naïve 日本語 ✓';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

/** The first fenced block of `language` after `heading` in the README's export section: the examples are tested as printed. */
function readmeExample(heading: string, language: string): string {
  const readme = readFileSync(README, 'utf8');
  const section = readme.slice(readme.indexOf('### export'));
  const block = new RegExp('```' + language + '\\n([\\s\\S]*?)```').exec(section.slice(section.indexOf(heading)));
  if (!block) throw new Error(`no ${language} example after "${heading}" in the README's export section`);
  return block[1]!;
}

/** A python whose pandas reads Parquet (with pyarrow or fastparquet); CI machines may have none. */
function findPandas(): { python?: string; missing?: string } {
  const probe = 'import pandas.io.parquet as p; p.get_engine("auto")';
  for (const python of ['python3', '/usr/bin/python3', 'python']) {
    if (spawnSync(python, ['-c', probe], { stdio: 'ignore' }).status === 0) return { python };
  }
  return { missing: 'no python here has pandas with a Parquet engine (pyarrow or fastparquet)' };
}
const pandas = findPandas();
if (pandas.missing) console.warn(`skipping the README's pandas example: ${pandas.missing}`);

const FORMATS = ['parquet', 'csv', 'jsonl'] as const;
type Format = (typeof FORMATS)[number];
type Row = Record<string, unknown>;

/** Manifests of the SQLite run, for the PostgreSQL run to compare with. */
const manifestsByDialect = new Map<string, Map<Format, ExportManifest>>();

/**
 * RFC 4180, read strictly: fields split on commas, records on CRLF, a quoted
 * field may hold commas, quotes (doubled) and line breaks. An unquoted empty
 * field is NULL, a quoted one the empty string.
 */
function parseCsv(text: string): Array<Array<string | null>> {
  const records: Array<Array<string | null>> = [];
  let record: Array<string | null> = [];
  let i = 0;
  while (i < text.length) {
    let field: string | null;
    if (text[i] === '"') {
      let value = '';
      i++;
      for (;;) {
        const quote = text.indexOf('"', i);
        if (quote < 0) throw new Error('unterminated quoted field');
        value += text.slice(i, quote);
        if (text[quote + 1] === '"') {
          value += '"';
          i = quote + 2;
        } else {
          i = quote + 1;
          break;
        }
      }
      field = value;
    } else {
      const end = text.slice(i).search(/,|\r\n/);
      const raw = end < 0 ? text.slice(i) : text.slice(i, i + end);
      if (/["\r\n]/.test(raw)) throw new Error(`bare quote or line break in an unquoted field: ${JSON.stringify(raw)}`);
      field = raw === '' ? null : raw;
      i += raw.length;
    }
    record.push(field);
    if (text.startsWith(',', i)) i += 1;
    else if (text.startsWith('\r\n', i)) {
      records.push(record);
      record = [];
      i += 2;
    } else if (i < text.length)
      throw new Error(`unexpected character at ${i}: ${JSON.stringify(text.slice(i, i + 10))}`);
  }
  if (record.length > 0) throw new Error('the last record does not end with CRLF');
  return records;
}

/** A file's rows as objects of its columns; values as the format gives them (CSV: text or null). */
async function readRows(dir: string, file: string, format: Format): Promise<Row[]> {
  const path = join(dir, file);
  if (format === 'csv') {
    const [header, ...records] = parseCsv(await readFile(path, 'utf8'));
    return records.map((record) => Object.fromEntries(header!.map((name, i) => [name!, record[i] ?? null])));
  }
  if (format === 'jsonl') {
    const text = await readFile(path, 'utf8');
    return text === ''
      ? []
      : text
          .split('\n')
          .slice(0, -1)
          .map((line) => JSON.parse(line) as Row);
  }
  return readParquet(path);
}

let duck: Awaited<ReturnType<DuckDBInstance['connect']>> | undefined;
async function duckdb() {
  duck ??= await (await DuckDBInstance.create(':memory:')).connect();
  return duck;
}

async function readParquet(path: string): Promise<Row[]> {
  const reader = await (await duckdb()).runAndReadAll(`SELECT * FROM read_parquet('${path.replaceAll("'", "''")}')`);
  return reader.getRowObjectsJS();
}

async function parquetTypes(path: string): Promise<Array<{ name: string; type: string }>> {
  const reader = await (
    await duckdb()
  ).runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${path.replaceAll("'", "''")}')`);
  return (reader.getRowObjectsJS() as Array<{ column_name: string; column_type: string }>).map((c) => ({
    name: c.column_name,
    type: c.column_type,
  }));
}

const DUCKDB_TYPE_NAMES: Record<string, string> = { TIMESTAMPTZ: 'TIMESTAMP WITH TIME ZONE' };

describeAcrossEngines('export on $dialect', (databases) => {
  let db: TestDatabase;
  let out: string;
  const cli = (args: string[]) => runCli([...args, '--db', db.url]);
  const exportTo = async (dir: string, format: Format, extra: string[] = []) => {
    const result = await runCliJson<ExportResult>([
      'export',
      '--db',
      db.url,
      '--format',
      format,
      '--out',
      dir,
      ...extra,
    ]);
    expect(result.code, result.stderr).toBe(0);
    return result.json;
  };
  async function query<T = Row>(text: string, params: unknown[] = []): Promise<T[]> {
    const store = await openStore(db.url);
    try {
      return await store.db.all<T>(text, params as never[]);
    } finally {
      await store.close();
    }
  }
  const count = async (text: string, params: unknown[] = []) =>
    Number((await query<{ n: unknown }>(text, params))[0]!.n);

  beforeAll(async () => {
    db = await databases.create();
    out = await mkdtemp(join(tmpdir(), 'listminer-export-'));
    const stages = [
      ...ADD_SAMPLE_LISTS,
      [
        'lists',
        'add',
        '--system',
        'mbox',
        '--rules',
        'apache_ponymail',
        TRICKY,
        '--repo',
        'https://github.com/apache/quarry',
      ],
      ['fetch', '--full', '--now'],
      ['classify'],
      ['drain'],
      ['project'],
    ];
    for (const stage of stages) {
      const run = await cli(stage);
      expect(run.code, `${stage.join(' ')}: ${run.stderr}`).toBe(0);
    }
    for (const format of FORMATS) {
      await exportTo(join(out, 'first', format), format, ['--with-bodies']);
      await exportTo(join(out, 'second', format), format, ['--with-bodies']);
    }
  }, 240_000);

  afterAll(async () => {
    if (out) await rm(out, { recursive: true, force: true });
  });

  async function storeCounts(): Promise<Record<TableName, number>> {
    return {
      email_messages: await count('SELECT COUNT(*) AS n FROM email_messages'),
      threads: await count('SELECT COUNT(DISTINCT thread_root_id) AS n FROM email_messages'),
      senders:
        (await count('SELECT COUNT(DISTINCT sender_id) AS n FROM email_messages')) +
        (await count('SELECT COUNT(DISTINCT lower(from_address)) AS n FROM email_messages WHERE is_bot = TRUE')),
      issues: await count('SELECT COUNT(*) AS n FROM issues'),
      pull_requests: await count('SELECT COUNT(*) AS n FROM pull_requests'),
      pr_equivalents: await count('SELECT COUNT(*) AS n FROM pr_equivalents'),
      people: await count('SELECT COUNT(DISTINCT sender_id) AS n FROM email_messages'),
      identities: await count(
        'SELECT COUNT(*) AS n FROM identities WHERE person_id IN (SELECT sender_id FROM email_messages)',
      ),
    };
  }

  it('writes each table in each format with as many rows as the store holds, and a manifest that says so', async () => {
    const expected = await storeCounts();
    expect(expected.email_messages).toBe(294 + 49 + 3);
    expect(expected.issues).toBeGreaterThan(0);
    expect(expected.pr_equivalents).toBeGreaterThan(0);
    expect(expected.senders).toBeGreaterThan(0);
    // Mail the stages have not drained into the research tables is not in the files: the manifest counts it by status.
    const waiting = await query<{ status: string; n: unknown }>(
      "SELECT status, COUNT(*) AS n FROM staged_messages WHERE status <> 'drained' GROUP BY status",
    );
    const notExported = { staged: 0, classified: 0, deferred: 0, shunted: 0, other: 0 };
    for (const row of waiting) notExported[row.status as keyof typeof notExported] = Number(row.n);
    for (const format of FORMATS) {
      const dir = join(out, 'first', format);
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
      expect(manifest.format).toBe(format);
      expect(manifest.listminer.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(manifest.filters).toEqual({ lists: null, since: null, until: null, withBodies: true, perList: false });
      expect(manifest.notExported).toEqual(notExported);
      expect(manifest.files.map((f) => f.file).sort()).toEqual(TABLE_NAMES.map((t) => `${t}.${format}`).sort());
      expect((await readdir(dir)).sort()).toEqual(
        [...TABLE_NAMES.map((t) => `${t}.${format}`), 'manifest.json'].sort(),
      );
      for (const file of manifest.files) {
        const rows = await readRows(dir, file.file, format);
        expect(rows.length, `${format} ${file.table}`).toBe(expected[file.table]);
        expect(file.rows, `${format} ${file.table}`).toBe(expected[file.table]);
        expect(file.columns).toEqual(tableColumns(file.table, { withBodies: true }));
        if (rows.length > 0) expect(Object.keys(rows[0]!)).toEqual(file.columns.map((c) => c.name));
      }
    }
  });

  it("counts in the manifest the mail it could not export: here a list's, deferred for want of a repo", async () => {
    const own = await databases.create();
    for (const stage of [
      ['lists', 'add', '--system', 'mbox', TRICKY],
      ['fetch', '--full', '--now'],
      ['classify'],
      ['drain'],
    ]) {
      const run = await runCli([...stage, '--db', own.url]);
      expect(run.code, `${stage.join(' ')}: ${run.stderr}`).toBe(0);
    }
    const dir = join(out, 'deferred');
    const run = await runCli(['export', '--format', 'jsonl', '--out', dir, '--db', own.url]);
    expect(run.code, run.stderr).toBe(0);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
    expect(manifest.files.find((file) => file.table === 'email_messages')!.rows).toBe(0);
    expect(manifest.notExported).toEqual({ staged: 0, classified: 0, deferred: 3, shunted: 0, other: 0 });
  });

  it('Parquet files carry the declared types, timestamps as UTC timestamps', async () => {
    const dir = join(out, 'first', 'parquet');
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
    for (const file of manifest.files) {
      expect(await parquetTypes(join(dir, file.file))).toEqual(
        file.columns.map((c) => ({ name: c.name, type: DUCKDB_TYPE_NAMES[c.type] ?? c.type })),
      );
    }
    const mail = await readParquet(join(dir, 'email_messages.parquet'));
    const ids = mail.map((row) => Number(row.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const [tricky] = mail.filter((row) => row.message_key === 'tricky.1@example.org');
    expect(tricky!.sent_at).toEqual(new Date('2024-03-05T09:00:00.000Z'));
    expect(typeof tricky!.id).toBe('bigint');
    expect(tricky!.is_bot).toBe(false);
  });

  it('a subject with quotes, commas and non-ASCII and a body with line breaks come back exactly in every format', async () => {
    const [stored] = await query<{ subject: string; body_text: string }>(
      `SELECT e.subject, b.body_text FROM email_messages e JOIN email_message_bodies eb ON eb.email_message_id = e.id JOIN message_bodies b ON b.id = eb.body_id
       WHERE e.message_key = 'tricky.1@example.org'`,
    );
    expect(stored!.subject).toBe(TRICKY_SUBJECT);
    expect(stored!.body_text).toContain('"quotes", and commas,\nline two — ünïcödé');
    for (const format of FORMATS) {
      const rows = await readRows(join(out, 'first', format), `email_messages.${format}`, format);
      const tricky = rows.find((row) => row.message_key === 'tricky.1@example.org');
      expect(tricky, format).toMatchObject({ subject: stored!.subject, body_text: stored!.body_text });
      const undated = rows.find((row) => row.message_key === 'undated.1@example.org');
      expect(undated, format).toMatchObject({ subject: '', sent_at: null });
    }
  });

  it('JSON Lines nests captures, trailers and references_ids as objects and arrays', async () => {
    const rows = await readRows(join(out, 'first', 'jsonl'), 'email_messages.jsonl', 'jsonl');
    const jira = rows.find((row) => row.msg_class === 'issue_event' && row.captures !== null);
    expect(jira, 'an issue_event with captures').toBeDefined();
    expect(typeof jira!.captures).toBe('object');
    expect((jira!.captures as Record<string, unknown>).external_key).toBe(jira!.external_key);
    const reviewed = rows.find((row) => Array.isArray(row.trailers) && (row.trailers as unknown[]).length > 0);
    expect(reviewed, 'a message with trailers').toBeDefined();
    expect((reviewed!.trailers as Array<Record<string, unknown>>)[0]).toHaveProperty('kind');
    expect(
      rows.every(
        (row) =>
          typeof row.captures !== 'string' &&
          typeof row.trailers !== 'string' &&
          typeof row.references_ids !== 'string',
      ),
    ).toBe(true);
  });

  it('an export run twice writes identical CSV and JSON Lines files, and Parquet files with the same rows', async () => {
    for (const format of FORMATS) {
      for (const table of TABLE_NAMES) {
        const file = `${table}.${format}`;
        if (format === 'parquet') {
          expect(await readParquet(join(out, 'second', format, file)), file).toEqual(
            await readParquet(join(out, 'first', format, file)),
          );
        } else {
          expect(
            (await readFile(join(out, 'second', format, file))).equals(
              await readFile(join(out, 'first', format, file)),
            ),
            file,
          ).toBe(true);
        }
      }
    }
  });

  it('--since and --until keep mail by its UTC month and leave undated mail out; --per-list writes a file per table and list', async () => {
    const dir = join(out, 'window');
    const result = await exportTo(dir, 'jsonl', ['--since', '2024-03', '--until', '2024-04', '--per-list']);
    const lists = await query<{ id: unknown; name: string }>('SELECT id, name FROM lists ORDER BY id');
    expect(result.files).toHaveLength(TABLE_NAMES.length * lists.length);
    const mailFiles = result.files.filter((f) => f.table === 'email_messages');
    expect(mailFiles.map((f) => f.list?.name).sort()).toEqual(lists.map((l) => l.name).sort());
    const inWindow = await count('SELECT COUNT(*) AS n FROM email_messages WHERE sent_at >= ? AND sent_at < ?', [
      '2024-03-01T00:00:00.000Z',
      '2024-05-01T00:00:00.000Z',
    ]);
    expect(inWindow).toBeGreaterThan(0);
    expect(mailFiles.reduce((sum, f) => sum + f.rows, 0)).toBe(inWindow);
    const trickyFile = mailFiles.find((f) => f.list?.name === TRICKY)!;
    const keys = (await readRows(dir, trickyFile.file, 'jsonl')).map((row) => row.message_key);
    expect(keys).toEqual(['tricky.1@example.org', 'april.1@example.org']);
    const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as ExportManifest;
    expect(manifest.filters).toMatchObject({ since: '2024-03', until: '2024-04', perList: true });
    expect(manifest.store).not.toMatch(/:[^/@]*@/);
  });

  it.skipIf(Boolean(pandas.missing))("the README's pandas example reads the Parquet export", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'listminer-pandas-'));
    try {
      await symlink(join(out, 'first', 'parquet'), join(dir, 'export'));
      // The example's nullable integers stay integers: Int64, not float64.
      const check =
        '\nassert str(mail["repo_id"].dtype) == "Int64" and str(mail["patch_version"].dtype) == "Int64", mail.dtypes\n';
      const run = spawnSync(pandas.python!, ['-c', readmeExample('pandas (2.0 or later', 'python') + check], {
        cwd: dir,
        encoding: 'utf8',
      });
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/message_count +participants +root_subject/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("the README's DuckDB example reads the Parquet export", async () => {
    const dir = join(out, 'first', 'parquet').replaceAll("'", "''");
    const sql = readmeExample('DuckDB:', 'sql').replaceAll("'export/", `'${dir}/`);
    const rows = (await (await duckdb()).runAndReadAll(sql)).getRowObjectsJS();
    expect(rows.length).toBeGreaterThan(0);
    expect(Object.keys(rows[0]!)).toEqual(['list_name', 'msg_class', 'messages', 'people']);
  });

  it('a Parquet file DuckDB cannot write (a folder in the way) fails the export with its reason, exit 2, leaves no partial file and no manifest', async () => {
    const dir = join(out, 'unwritable');
    // A folder where the file being written should go: DuckDB cannot open it.
    await mkdir(join(dir, 'threads.parquet.partial'), { recursive: true });
    const result = await cli(['export', '--format', 'parquet', '--out', dir]);
    // DuckDB's "Is a directory" is the user's folder in the way, as it is for CSV and JSON Lines.
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('export cannot write its file in');
    expect(result.stderr).toContain('a folder stands where a file goes (DuckDB could not write');
    const left = await readdir(dir);
    expect(left).toContain('email_messages.parquet');
    expect(left.filter((name) => name !== 'threads.parquet.partial' && name.endsWith('.partial'))).toEqual([]);
    expect(left).not.toContain('manifest.json');
    expect(left).not.toContain('.duckdb-tmp');
  });

  it('a full disk stops a Parquet export with the sentence CSV and JSON Lines give, and leaves no partial file', async (context) => {
    if (process.getuid?.() !== 0) return context.skip('mounting a small tmpfs needs root');
    const disk = join(out, 'full-disk');
    await mkdir(disk, { recursive: true });
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', disk]);
    } catch (error) {
      return context.skip(`cannot mount a tmpfs here (${(error as Error).message.split('\n')[0]})`);
    }
    try {
      for (const format of FORMATS) {
        const dir = join(disk, format);
        const result = await cli(['export', '--format', format, '--out', dir, '--with-bodies']);
        expect(result.code, `${format}: ${result.stderr}`).toBe(1);
        expect(result.stderr, format).toContain(
          `The disk holding ${dir} is full; export stopped and left no partial file under a table's name.`,
        );
        expect(result.stderr, format).not.toMatch(/unexpected error|report it/i);
        const left = await readdir(dir);
        expect(
          left.filter((name) => name.endsWith('.partial') || name === 'manifest.json' || name === '.duckdb-tmp'),
        ).toEqual([]);
        await rm(dir, { recursive: true, force: true });
      }
    } finally {
      execFileSync('umount', [disk]);
    }
  });

  it('refuses a month that is not YYYY-MM with exit code 2', async () => {
    const result = await cli(['export', '--format', 'csv', '--out', join(out, 'bad'), '--since', '2024-3']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--since 2024-3 is not a month');
  });

  it('writes the same files, columns, types and row counts from SQLite and PostgreSQL', async () => {
    const manifests = new Map<Format, ExportManifest>();
    for (const format of FORMATS)
      manifests.set(
        format,
        JSON.parse(await readFile(join(out, 'first', format, 'manifest.json'), 'utf8')) as ExportManifest,
      );
    manifestsByDialect.set(databases.dialect, manifests);
    const sqlite = manifestsByDialect.get('sqlite');
    if (databases.dialect === 'sqlite' || !sqlite) return;
    for (const format of FORMATS) {
      const shape = (m: ExportManifest) =>
        m.files.map((f) => ({ file: f.file, table: f.table, rows: f.rows, columns: f.columns }));
      expect(shape(manifests.get(format)!)).toEqual(shape(sqlite.get(format)!));
    }
  });
});
