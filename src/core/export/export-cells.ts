import type { ExportRow } from '../store/export-records.js';
import { JSON_COLUMNS, type Cell, type Column } from './export-columns.js';

/**
 * One row of the store as the cells of its declared columns. The engines
 * answer differently (0/1 or true/false, JSON text or parsed jsonb with its
 * keys reordered); the cells are the same from both.
 */
export function toCells(row: ExportRow, columns: readonly Column[]): Cell[] {
  return columns.map((column) => toCell(row[column.name], column));
}

function toCell(value: unknown, column: Column): Cell {
  if (value === null || value === undefined) return null;
  switch (column.type) {
    case 'BIGINT': {
      const number = Number(value);
      return Number.isFinite(number) ? number : null;
    }
    case 'BOOLEAN':
      return typeof value === 'boolean' ? value : Number(value) !== 0;
    case 'TIMESTAMPTZ': {
      const date = value instanceof Date ? value : new Date(value as string | number);
      return Number.isNaN(date.getTime()) ? null : date.toISOString();
    }
    case 'VARCHAR':
      if (JSON_COLUMNS.has(column.name)) return canonicalJson(value);
      return typeof value === 'string' ? value : `${value as number | bigint}`;
  }
}

/** JSON text with object keys sorted: jsonb (PostgreSQL) does not keep the order SQLite's text has. */
export function canonicalJson(value: unknown): string {
  const parsed = typeof value === 'string' ? parseOrKeep(value) : value;
  return JSON.stringify(sortKeys(parsed));
}

function parseOrKeep(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]),
  );
}

/**
 * The rule captures researchers filter on most, as columns of their own:
 * `external_key`, `captured_repo`, `number` (the issue or pull request
 * number, when it is all digits) and `action`. The whole object stays in
 * `captures`.
 */
export function withCaptureColumns(row: ExportRow): ExportRow {
  const raw = row.captures;
  const captures = typeof raw === 'string' ? parseOrKeep(raw) : raw;
  const get = (key: string): string | null => {
    if (captures === null || typeof captures !== 'object' || Array.isArray(captures)) return null;
    const value = (captures as Record<string, unknown>)[key];
    return value === null || value === undefined ? null : `${value as string | number}`;
  };
  const number = get('number');
  return {
    ...row,
    external_key: get('external_key'),
    captured_repo: get('repo'),
    // A number a 64-bit column or a double cannot hold exactly is left to `captures`, which has it whole.
    number: number !== null && /^\d+$/.test(number) && Number.isSafeInteger(Number(number)) ? Number(number) : null,
    action: get('action'),
  };
}
