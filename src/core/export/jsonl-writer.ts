import { JSON_COLUMNS, type Cell, type Column } from './export-columns.js';
import type { FormatWriter, TableWriter } from './format-writer.js';
import { TextFile } from './text-file.js';

/**
 * One JSON object a line, its keys in column order; timestamps are ISO-8601
 * UTC strings, NULL is null. A JSON column (captures, trailers,
 * references_ids) is nested as the object or array it holds, not as a
 * string of JSON: its cell is already canonical JSON text.
 */
export function jsonLine(columns: readonly Column[], cells: readonly Cell[]): string {
  const value = (column: Column, cell: Cell) =>
    JSON_COLUMNS.has(column.name) && typeof cell === 'string' ? cell : JSON.stringify(cell);
  return `{${columns.map((column, i) => `${JSON.stringify(column.name)}:${value(column, cells[i] ?? null)}`).join(',')}}\n`;
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
