import type { Cell, Column } from './export-columns.js';

export const EXPORT_FORMATS = ['parquet', 'csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** One file being written. It appears under its final name only when finished. */
export interface TableWriter {
  /** Appends one batch of rows, each a cell per declared column. */
  write(rows: readonly (readonly Cell[])[]): Promise<void>;
  /** Completes the file under its final name; returns its size in bytes. */
  finish(): Promise<number>;
  /** Removes what was written (a stopped or failed export leaves no half file). */
  abort(): Promise<void>;
}

/** One format for a whole export run: opens a writer per file, and frees what it holds at the end. */
export interface FormatWriter {
  readonly extension: string;
  open(path: string, columns: readonly Column[]): Promise<TableWriter>;
  close(): Promise<void>;
}
