import { Flags } from '@oclif/core';
import { BaseCommand, listFlags } from '../cli/base-command.js';
import { naming, renderTable } from '../cli/render-table.js';
import { exportResearchTables, MANIFEST_FILE, type ExportResult } from '../core/export/export-research-tables.js';
import { EXPORT_FORMATS } from '../core/export/format-writer.js';

export default class Export extends BaseCommand<typeof Export> {
  static override summary =
    'Write the research tables as Parquet, CSV or JSON Lines files, for pandas, R, Polars and DuckDB.';
  static override description =
    'Writes email_messages, threads, senders, issues, pull_requests and pr_equivalents into --out, one file per table (or per table and list with --per-list), and manifest.json beside them: the listminer version, the store, the time, the filters, and each file with its rows, bytes and columns. Rows are in key order, so an export run twice writes the same files. --since and --until keep mail by the UTC month it was sent; mail with no date is left out when either is given. Bodies only with --with-bodies.';
  static override examples = [
    '<%= config.bin %> export --format parquet --out export/',
    '<%= config.bin %> export --format csv --out export/ --list dev@kafka.apache.org --since 2023-01 --until 2023-12',
    '<%= config.bin %> export --format jsonl --out export/ --per-list --with-bodies --json',
  ];
  static override flags = {
    ...listFlags,
    format: Flags.string({ description: 'file format', options: [...EXPORT_FORMATS], default: 'parquet' }),
    out: Flags.string({
      description: 'folder to write the files into (made when missing; files of the same names are replaced)',
      required: true,
    }),
    'per-list': Flags.boolean({ description: 'one file per table and list instead of one per table' }),
    'with-bodies': Flags.boolean({ description: 'add the message text (body_text) to email_messages' }),
    since: Flags.string({ description: 'only mail sent in this UTC month (YYYY-MM) or later' }),
    until: Flags.string({ description: 'only mail sent in this UTC month (YYYY-MM) or earlier' }),
  };

  async run(): Promise<ExportResult> {
    const { flags } = this;
    const signal = this.stopSignal();
    const result = await this.withStore((store) =>
      this.withProgress('export', (progress) =>
        exportResearchTables(
          store,
          {
            format: flags.format as ExportResult['format'],
            outDir: flags.out,
            selection: { names: flags.list, system: flags.system },
            perList: flags['per-list'],
            withBodies: flags['with-bodies'],
            since: flags.since,
            until: flags.until,
            version: this.config.version,
            signal,
          },
          progress,
        ),
      ),
    );
    if (result.interrupted) {
      // An export does not resume: without manifest.json the folder is incomplete, and the next run writes it whole.
      return this.finish(result, {
        stopped: `Stopped by a signal after ${result.files.length} files; ${MANIFEST_FILE} was not written. Run the export again.`,
      });
    }
    this.show(
      renderTable(
        [naming('file'), 'rows', 'bytes'],
        result.files.map((f) => [f.file, f.rows, f.bytes]),
      ),
    );
    this.note(`wrote ${result.files.length} files (${result.rows} rows, ${result.bytes} bytes) and ${result.manifest}`);
    return this.finish(result);
  }
}
