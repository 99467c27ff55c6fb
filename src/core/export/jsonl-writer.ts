import type { Cell, Column } from './export-columns.js';
import type { FormatWriter, TableWriter } from './format-writer.js';
import { TextFile } from './text-file.js';

/** One JSON object a line, its keys in column order; timestamps are ISO-8601 UTC strings, NULL is null. */
export function jsonLine(columns: readonly Column[], cells: readonly Cell[]): string {
  return `{${columns.map((column, i) => `${JSON.stringify(column.name)}:${JSON.stringify(cells[i] ?? null)}`).join(',')}}\n`;
}

export function jsonlFormat(): FormatWriter {
  return {
    extension: 'jsonl',
    async open(path: string, columns: readonly Column[]): Promise<TableWriter> {
      const file = new TextFile(path);
      return {
        write: (rows) => file.writeAll(rows.map((cells) => jsonLine(columns, cells))),
        finish: () => file.finish(),
        abort: () => file.abort(),
      };
    },
    close: async () => {},
  };
}
