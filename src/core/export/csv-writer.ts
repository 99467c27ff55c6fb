import type { Cell, Column } from './export-columns.js';
import type { FormatWriter, TableWriter } from './format-writer.js';
import { TextFile } from './text-file.js';

/** RFC 4180 ends records with CRLF; a line break inside a field is kept as it is, quoted. */
const RECORD_END = '\r\n';
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * One field of RFC 4180 CSV. NULL is an empty field and the empty string a
 * quoted empty field (`""`), so readers that tell them apart (DuckDB, R's
 * readr) can; booleans are `true`/`false`, timestamps ISO-8601 UTC.
 */
export function csvField(cell: Cell): string {
  if (cell === null) return '';
  const text = String(cell);
  if (text === '') return '""';
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRecord(cells: readonly Cell[]): string {
  return cells.map(csvField).join(',') + RECORD_END;
}

export function csvFormat(): FormatWriter {
  return {
    extension: 'csv',
    async open(path: string, columns: readonly Column[]): Promise<TableWriter> {
      const file = new TextFile(path);
      await file.write(csvRecord(columns.map((column) => column.name)));
      return {
        write: (rows) => file.writeAll(rows.map(csvRecord)),
        finish: () => file.finish(),
        abort: () => file.abort(),
      };
    },
    close: async () => {},
  };
}
