import { join } from 'node:path';
import { csvFormat } from './csv-writer.js';
import type { ExportFormat, FormatWriter } from './format-writer.js';
import { jsonlFormat } from './jsonl-writer.js';
import { parquetFormat } from './parquet-writer.js';

/** The writer of a format; Parquet's DuckDB spills under `<outDir>/.duckdb-tmp` (removed when it closes). */
export async function openFormatWriter(format: ExportFormat, outDir: string): Promise<FormatWriter> {
  switch (format) {
    case 'csv':
      return csvFormat();
    case 'jsonl':
      return jsonlFormat();
    case 'parquet':
      return parquetFormat(join(outDir, '.duckdb-tmp'));
  }
}
