import Table from 'cli-table3';

export type Cell = string | number | boolean | null | undefined;

/** A plain table for stdout: no colours, so it reads the same in a pipe. */
export function renderTable(head: readonly string[], rows: readonly (readonly Cell[])[]): string {
  const table = new Table({ head: [...head], style: { head: [], border: [] } });
  for (const row of rows) table.push(row.map((cell) => (cell === null || cell === undefined ? '' : String(cell))));
  return table.toString();
}
