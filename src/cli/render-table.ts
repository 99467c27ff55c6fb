import Table from 'cli-table3';

export type Cell = string | number | boolean | null | undefined;

/** Columns when the output is not a terminal (a pipe, cron, a test). */
export const DEFAULT_WIDTH = 100;

/** The narrowest a column is squeezed to: one character and its padding. */
const MIN_COLUMN = 3;

/** How wide tables and charts may be: the terminal's columns (stdout, else stderr), else $COLUMNS, else 100. */
export function terminalWidth(): number {
  const fromEnv = Number(process.env.COLUMNS);
  return process.stdout.columns || process.stderr.columns || (Number.isInteger(fromEnv) && fromEnv > 0 ? fromEnv : DEFAULT_WIDTH);
}

/**
 * A plain table for stdout: no colours, so it reads the same in a pipe. It
 * fits `width` (the terminal's, by default): when the cells are wider, the
 * widest columns give way first and their cells wrap at word boundaries (a
 * word longer than its column is cut with …).
 */
export function renderTable(head: readonly string[], rows: readonly (readonly Cell[])[], options: { width?: number } = {}): string {
  const cells = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))));
  const natural = head.map((title, i) => Math.max(longestLine(title), ...cells.map((row) => longestLine(row[i] ?? ''))) + 2);
  // Each column has a border on its left, and the table one more on the right.
  const colWidths = fitColumns(natural, (options.width ?? terminalWidth()) - (head.length + 1));
  const table = new Table({ head: [...head], style: { head: [], border: [] }, ...(colWidths ? { colWidths, wordWrap: true } : {}) });
  for (const row of cells) table.push(row);
  return table.toString();
}

/**
 * Column widths that fit `budget` characters, or undefined when the natural
 * widths already do. Narrow columns keep their width; the budget left is
 * shared evenly among the wide ones (water-filling).
 */
export function fitColumns(natural: readonly number[], budget: number): number[] | undefined {
  if (natural.reduce((a, b) => a + b, 0) <= budget) return undefined;
  const widths = [...natural];
  const order = natural.map((width, index) => ({ width, index })).sort((a, b) => a.width - b.width);
  let left = budget;
  order.forEach(({ width, index }, position) => {
    const share = Math.floor(left / (order.length - position));
    widths[index] = Math.max(MIN_COLUMN, Math.min(width, share));
    left -= widths[index]!;
  });
  return widths;
}

function longestLine(text: string): number {
  return Math.max(0, ...text.split('\n').map((line) => [...line].length));
}
