import Table from 'cli-table3';
import { showControls } from './show-controls.js';

export type Cell = string | number | boolean | null | undefined;

/**
 * A column: its title, and whether it names the row (a list, a system, a
 * repo). A naming column is never cut and is the last to give way when the
 * table is narrowed.
 */
export type Column = string | { title: string; names?: true; ids?: true };

/** A column that names the row; a number in it is an id, printed as typed. */
export function naming(title: string): Column {
  return { title, names: true };
}

/** A column of ids (a person, a merge) that do not name the row: printed as typed, without thousands separators, to be given back as arguments. */
export function ids(title: string): Column {
  return { title, ids: true };
}

/** Charts' width when the output is not a terminal (a pipe, cron, a test) and $COLUMNS is unset. */
export const DEFAULT_WIDTH = 100;

/** Below this many characters a naming column is not narrowed further: the table becomes records instead. */
const MIN_NAMING = 20;
/** Below this many characters a text column is not narrowed further. */
const MIN_TEXT = 12;
/** A column's padding: one space either side. */
const PADDING = 2;

const thousands = new Intl.NumberFormat('en-US', { maximumFractionDigits: 20 });

/** How wide charts may be: the terminal's columns (stdout, else stderr), else $COLUMNS, else 100. */
export function terminalWidth(): number {
  return process.stdout.columns || process.stderr.columns || columnsFromEnv() || DEFAULT_WIDTH;
}

/**
 * How wide tables may be: stdout's columns when it is a terminal, else
 * $COLUMNS when set; otherwise (a pipe, a file) tables are not narrowed at
 * all, so nothing a script reads is wrapped.
 */
export function tableWidth(): number | undefined {
  if (process.stdout.isTTY && process.stdout.columns) return process.stdout.columns;
  return columnsFromEnv();
}

function columnsFromEnv(): number | undefined {
  const fromEnv = Number(process.env.COLUMNS);
  return Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : undefined;
}

/**
 * A plain table for stdout: no colours, so it reads the same in a pipe.
 * Numbers are right-aligned with thousands separators. Nothing is ever cut:
 * to fit `width` (tableWidth() by default; none means no limit) the text
 * columns wrap first, the naming columns last (breaking after / @ . - so a
 * name's distinguishing end stays whole); when even that does not fit, each
 * row is printed as a record of `title  value` lines instead.
 */
export function renderTable(
  head: readonly Column[],
  rows: readonly (readonly Cell[])[],
  options: { width?: number } = {},
): string {
  const columns = head.map((column) =>
    typeof column === 'string' ? { title: column, names: false, ids: false } : { names: false, ids: false, ...column },
  );
  const cells = rows.map((row) => columns.map((column, i) => formatCell(row[i], column.names || column.ids)));
  const numeric = columns.map(
    (_, i) =>
      cells.length > 0 &&
      rows.every((row) => typeof row[i] === 'number' || row[i] === null || row[i] === undefined || row[i] === ''),
  );
  const width = 'width' in options ? options.width : tableWidth();
  if (width === undefined)
    return drawTable(
      columns.map((c) => c.title),
      cells,
      numeric,
    );

  const natural = columns.map(
    (column, i) => Math.max(longestLine(column.title), ...cells.map((row) => longestLine(row[i]!))) + PADDING,
  );
  const least = columns.map((column, i) =>
    numeric[i]
      ? natural[i]!
      : Math.min(
          natural[i]!,
          Math.max(longestWord(column.title) + PADDING, (column.names ? MIN_NAMING : MIN_TEXT) + PADDING),
        ),
  );
  // Each column has a border on its left, and the table one more on the right.
  const budget = width - (columns.length + 1);
  const widths = fitColumns(
    natural,
    least,
    columns.map((c) => c.names),
    budget,
  );
  if (!widths)
    return renderRecords(
      columns.map((c) => c.title),
      cells,
      width,
    );
  const wrapped = cells.map((row) => row.map((cell, i) => wrapText(cell, widths[i]! - PADDING, columns[i]!.names)));
  const titles = columns.map((column, i) => wrapText(column.title, widths[i]! - PADDING, false));
  return drawTable(titles, wrapped, numeric, widths);
}

/**
 * Column widths within `budget`: each column starts at its least width and
 * the room left goes to the naming columns first, then evenly to the others
 * up to their natural width. Undefined when even the least widths do not fit.
 */
export function fitColumns(
  natural: readonly number[],
  least: readonly number[],
  naming: readonly boolean[],
  budget: number,
): number[] | undefined {
  const widths = [...least];
  let left = budget - widths.reduce((a, b) => a + b, 0);
  if (left < 0) return undefined;
  for (const group of [true, false]) {
    const members = natural
      .map((_, i) => i)
      .filter((i) => naming[i] === group)
      .sort((a, b) => natural[a]! - least[a]! - (natural[b]! - least[b]!));
    members.forEach((index, position) => {
      const share = Math.floor(left / (members.length - position));
      const grant = Math.min(natural[index]! - widths[index]!, share);
      widths[index]! += grant;
      left -= grant;
    });
  }
  return widths;
}

/** Each row as lines of `title  value` (empty values left out), values wrapped under themselves, a rule above each row and below the last. */
function renderRecords(titles: readonly string[], rows: readonly string[][], width: number): string {
  const titleWidth = Math.max(...titles.map((title) => title.length));
  const room = Math.max(MIN_TEXT, width - titleWidth - 2);
  const rule = '─'.repeat(Math.min(width, titleWidth + 2 + room));
  const records = rows.map((row) =>
    row
      .flatMap((cell, i) =>
        cell === ''
          ? []
          : wrapText(cell, room, true)
              .split('\n')
              .map((line, n) => `${(n === 0 ? titles[i]! : '').padEnd(titleWidth)}  ${line}`),
      )
      .join('\n'),
  );
  return [...records.flatMap((record) => [rule, record]), rule].join('\n');
}

function drawTable(
  titles: readonly string[],
  rows: readonly string[][],
  numeric: readonly boolean[],
  colWidths?: number[],
): string {
  const table = new Table({ head: [...titles], style: { head: [], border: [] }, ...(colWidths ? { colWidths } : {}) });
  for (const row of rows)
    table.push(row.map((content, i) => (numeric[i] ? { content, hAlign: 'right' as const } : content)));
  return table.toString();
}

/** A cell's text: a count with thousands separators, an id as typed, text with its control characters shown (showControls). */
function formatCell(cell: Cell, id: boolean): string {
  if (cell === null || cell === undefined) return '';
  if (typeof cell === 'number' && !id) return thousands.format(cell);
  return showControls(String(cell));
}

/**
 * `text` in lines of at most `width` characters. Lines break at spaces; a
 * longer word breaks after one of / @ . - (a naming cell) or anywhere (other
 * text), so nothing is cut.
 */
export function wrapText(text: string, width: number, naming: boolean): string {
  const size = Math.max(1, width);
  const out: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(' ')) {
      const candidate = line === '' ? word : `${line} ${word}`;
      if (length(candidate) <= size) {
        line = candidate;
        continue;
      }
      if (line !== '') out.push(line);
      line = '';
      for (const piece of breakWord(word, size, naming)) {
        if (line !== '') out.push(line);
        line = piece;
      }
    }
    out.push(line);
  }
  return out.join('\n');
}

/** A word in pieces of at most `size` characters, broken after separators where it can be. */
function breakWord(word: string, size: number, naming: boolean): string[] {
  const chars = [...word];
  const pieces: string[] = [];
  let start = 0;
  while (chars.length - start > size) {
    let end = start + size;
    if (naming) {
      // Prefer a path or address boundary, so a file's or a list's name stays whole.
      const after = (separators: string) => {
        for (let i = start + size; i > start; i--) if (separators.includes(chars[i - 1]!)) return i;
        return undefined;
      };
      end = after('/@') ?? after('.-_') ?? end;
    }
    pieces.push(chars.slice(start, end).join(''));
    start = end;
  }
  pieces.push(chars.slice(start).join(''));
  return pieces;
}

function length(text: string): number {
  return [...text].length;
}

function longestLine(text: string): number {
  return Math.max(0, ...text.split('\n').map(length));
}

function longestWord(text: string): number {
  return Math.max(0, ...text.split(/[\s]+/).map(length));
}
