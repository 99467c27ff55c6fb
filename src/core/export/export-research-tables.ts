import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { refuseVirtualFolder } from '../config/refuse-virtual-folder.js';
import { explainWriteFailure } from '../explain-write-failure.js';
import { join, resolve } from 'node:path';
import { addMonths, isMonth } from '../archive/month.js';
import { InputError } from '../errors.js';
import type { ProgressListener } from '../progress.js';
import { selectLists, type ListSelection } from '../registry/select-lists.js';
import type { ExportRow, MailScope } from '../store/export-records.js';
import type { LabelProvenanceCount, StatusCounts } from '../store/report-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { Store } from '../store/store.js';
import { toCells } from './export-cells.js';
import { TABLE_NAMES, tableColumns, type Column, type TableName } from './export-columns.js';
import type { ExportFormat, FormatWriter } from './format-writer.js';
import { openFormatWriter } from './open-format-writer.js';
import { readTableBatches, type TableScope } from './read-table-batches.js';

export const MANIFEST_FILE = 'manifest.json';
/** Rows read and written at once: what the export holds in memory besides DuckDB. */
const DEFAULT_BATCH_SIZE = 500;

export interface ExportOptions {
  format: ExportFormat;
  outDir: string;
  selection?: ListSelection;
  /** One file per table and list instead of one per table. */
  perList?: boolean;
  /** email_messages gains body_text. */
  withBodies?: boolean;
  /** YYYY-MM: mail sent (UTC) in this month or later. */
  since?: string;
  /** YYYY-MM: mail sent (UTC) in this month or earlier. */
  until?: string;
  /** listminer's version, for the manifest. */
  version: string;
  /** Stops the export at the next batch; the file being written is removed and no manifest is written. */
  signal?: AbortSignal;
  batchSize?: number;
}

export interface ExportedList {
  id: number;
  system: string;
  name: string;
}

export interface ExportedFile {
  /** The file's name inside the output folder. */
  file: string;
  table: TableName;
  /** With --per-list: the list the file holds. */
  list?: ExportedList;
  rows: number;
  bytes: number;
  columns: Column[];
}

export interface ExportResult {
  outDir: string;
  format: ExportFormat;
  /** Path of manifest.json; null when the export was stopped before it finished. */
  manifest: string | null;
  files: ExportedFile[];
  rows: number;
  bytes: number;
  interrupted: boolean;
}

/** What manifest.json beside the files says. */
export interface ExportManifest {
  listminer: { version: string };
  store: string;
  exportedAt: string;
  format: ExportFormat;
  filters: {
    lists: ExportedList[] | null;
    since: string | null;
    until: string | null;
    withBodies: boolean;
    perList: boolean;
  };
  /**
   * The exported lists' mail that is in no file because the stages have not
   * drained it into the research tables, by status (shunted: it could not be
   * parsed or stored; deferred: its list has no repo; staged or classified:
   * a stage still to run). Over every date: such mail has no sent date yet.
   */
  notExported: Omit<StatusCounts, 'drained'>;
  /** The rules (sha256 of the systems file) and listminer versions that labelled the exported messages, with how many each; nulls: not recorded. */
  labelProvenance: LabelProvenanceCount[];
  files: Array<Omit<ExportedFile, 'columns'> & { columns: Column[] }>;
}

/** A full disk stops export with no partial file under a table's name (each is written as .partial, then renamed). */
const EXPORT = { name: 'export', leaves: "and left no partial file under a table's name" } as const;

interface ExportUnit {
  list?: ExportedList;
  scope: TableScope;
}

/**
 * Writes the research tables (docs/export.md) into `outDir`, one file per
 * table (or per table and list), then manifest.json. Every table is read
 * from one snapshot of the store, so the files are of one moment even while
 * another process writes. Rows are read in keyset batches and written as they
 * come, so memory stays flat whatever the store's size; each file appears
 * under its name only when whole.
 */
export async function exportResearchTables(
  store: Store,
  options: ExportOptions,
  progress: ProgressListener,
): Promise<ExportResult> {
  const outDir = resolve(options.outDir);
  refuseVirtualFolder(outDir, '--out');
  try {
    // One snapshot for every table: files read while another process writes agree with each other.
    return await store.readSnapshot((snapshot) => writeResearchTables(snapshot, options, progress));
  } catch (error) {
    throw explainWriteFailure(error, outDir, EXPORT);
  }
}

async function writeResearchTables(
  store: Store,
  options: ExportOptions,
  progress: ProgressListener,
): Promise<ExportResult> {
  const window = sentWindow(options.since, options.until);
  const selection = options.selection ?? {};
  const filtered = Boolean(selection.names?.length || selection.system);
  const lists = await selectLists(store, selection);
  const outDir = resolve(options.outDir);
  const withBodies = options.withBodies ?? false;
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;

  await mkdir(outDir, { recursive: true });
  // A manifest left by an earlier export would vouch for files this run replaces.
  await rm(join(outDir, MANIFEST_FILE), { force: true });

  const units: ExportUnit[] = options.perList
    ? lists.map((list) => ({
        list: describeList(list),
        scope: {
          mail: { ...window, listIds: [list.id] },
          threadListIds: [list.id],
          repos: list.repoId === null ? [] : [list.repoId],
          withBodies,
          batchSize,
        },
      }))
    : [
        {
          scope: {
            mail: { ...window, listIds: filtered ? lists.map((list) => list.id) : undefined },
            threadListIds: lists.map((list) => list.id),
            repos: filtered
              ? [...new Set(lists.map((list) => list.repoId).filter((id): id is number => id !== null))]
              : undefined,
            withBodies,
            batchSize,
          },
        },
      ];

  const result: ExportResult = {
    outDir,
    format: options.format,
    manifest: null,
    files: [],
    rows: 0,
    bytes: 0,
    interrupted: false,
  };
  const writer = await openFormatWriter(options.format, outDir);
  const provenance = new Map<string, LabelProvenanceCount>();
  try {
    for (const unit of units) {
      for (const table of TABLE_NAMES) {
        const file = options.signal?.aborted
          ? undefined
          : await exportTable(
              store,
              writer,
              table,
              unit,
              { outDir, withBodies, signal: options.signal, provenance },
              progress,
            );
        if (!file) {
          result.interrupted = true;
          return result;
        }
        result.files.push(file);
        result.rows += file.rows;
        result.bytes += file.bytes;
      }
    }
  } finally {
    await writer.close();
  }

  const manifest: ExportManifest = {
    listminer: { version: options.version },
    store: store.displayName,
    exportedAt: new Date().toISOString(),
    format: options.format,
    filters: {
      lists: filtered ? lists.map(describeList) : null,
      since: options.since ?? null,
      until: options.until ?? null,
      withBodies,
      perList: options.perList ?? false,
    },
    notExported: await notDrained(store, filtered ? lists.map((list) => list.id) : undefined),
    labelProvenance: [...provenance.values()].sort(
      (a, b) => b.messages - a.messages || String(a.rulesHash).localeCompare(String(b.rulesHash)),
    ),
    files: result.files,
  };
  result.manifest = join(outDir, MANIFEST_FILE);
  await writeFile(`${result.manifest}.partial`, `${JSON.stringify(manifest, null, 2)}\n`);
  await rename(`${result.manifest}.partial`, result.manifest);
  return result;
}

async function notDrained(store: Store, listIds: number[] | undefined): Promise<ExportManifest['notExported']> {
  const counts = { staged: 0, classified: 0, deferred: 0, shunted: 0, other: 0 };
  for (const { statuses } of await store.reports.lists(listIds))
    for (const status of Object.keys(counts) as (keyof typeof counts)[]) counts[status] += statuses[status];
  return counts;
}

/** Writes one file; undefined when the signal stopped it (the partial file is gone). */
async function exportTable(
  store: Store,
  writer: FormatWriter,
  table: TableName,
  unit: ExportUnit,
  options: { outDir: string; withBodies: boolean; signal?: AbortSignal; provenance: Map<string, LabelProvenanceCount> },
  progress: ProgressListener,
): Promise<ExportedFile | undefined> {
  const columns = tableColumns(table, { withBodies: options.withBodies });
  const name = `${table}${unit.list ? `--${listSlug(unit.list)}` : ''}.${writer.extension}`;
  const task = name;
  progress({ type: 'start', task, title: unit.list ? `${table} of ${unit.list.system} ${unit.list.name}` : table });
  const file = await writer.open(join(options.outDir, name), columns);
  let rows = 0;
  try {
    for await (const batch of readTableBatches(store, table, unit.scope)) {
      if (options.signal?.aborted) {
        await file.abort();
        progress({ type: 'end', task, status: 'skipped', detail: 'stopped' });
        return undefined;
      }
      await file.write(batch.map((row) => toCells(row, columns)));
      if (table === 'email_messages') countProvenance(options.provenance, batch);
      rows += batch.length;
      progress({ type: 'update', task, done: rows });
    }
    const bytes = await file.finish();
    progress({ type: 'end', task, status: 'done', detail: `${rows} rows, ${bytes} bytes` });
    return { file: name, table, ...(unit.list ? { list: unit.list } : {}), rows, bytes, columns };
  } catch (error) {
    await file.abort().catch(() => undefined);
    progress({ type: 'end', task, status: 'failed', detail: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

/** Tallies the exported messages by the rules and listminer version that labelled them, for the manifest. */
function countProvenance(tally: Map<string, LabelProvenanceCount>, rows: readonly ExportRow[]): void {
  for (const row of rows) {
    const rulesHash = (row.rules_hash as string | null) ?? null;
    const listminerVersion = (row.listminer_version as string | null) ?? null;
    const key = `${rulesHash}\u0000${listminerVersion}`;
    const entry = tally.get(key) ?? { rulesHash, listminerVersion, messages: 0 };
    entry.messages++;
    tally.set(key, entry);
  }
}

/**
 * The sent_at window of --since and --until (UTC months, both included) as
 * ISO instants. Mail with no date has no month, so either bound leaves it out.
 */
export function sentWindow(
  since: string | undefined,
  until: string | undefined,
): Pick<MailScope, 'sentFrom' | 'sentBefore'> {
  for (const [flag, month] of [
    ['--since', since],
    ['--until', until],
  ] as const) {
    if (month !== undefined && !isMonth(month))
      throw new InputError(`${flag} ${month} is not a month.`, 'Give a month as YYYY-MM, e.g. 2024-03.');
  }
  if (since !== undefined && until !== undefined && since > until) {
    throw new InputError(
      `--since ${since} is after --until ${until}.`,
      'Give --since a month before or equal to --until.',
    );
  }
  return {
    ...(since !== undefined ? { sentFrom: `${since}-01T00:00:00.000Z` } : {}),
    ...(until !== undefined ? { sentBefore: `${addMonths(until, 1)}-01T00:00:00.000Z` } : {}),
  };
}

function describeList(list: ListRecord): ExportedList {
  return { id: list.id, system: list.system, name: list.name };
}

/** A file-name-safe name for a list: its id (unique) and the last part of its name. */
export function listSlug(list: ExportedList): string {
  const tail = list.name.split('/').filter(Boolean).pop() ?? '';
  const safe = tail.replace(/[^A-Za-z0-9@._+-]+/g, '_').slice(0, 80);
  return safe ? `${list.id}-${safe}` : String(list.id);
}
