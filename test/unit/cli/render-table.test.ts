import { describe, expect, it } from 'vitest';
import { renderBarChart } from '../../../src/cli/render-bar-chart.js';
import { fitColumns, renderTable } from '../../../src/cli/render-table.js';

const widest = (text: string) => Math.max(...text.split('\n').map((line) => [...line].length));

describe('tables and charts fit the terminal', () => {
  it('keeps a table that fits as it is', () => {
    expect(fitColumns([5, 10], 20)).toBeUndefined();
    expect(renderTable(['a', 'b'], [['x', 'y']], { width: 80 })).not.toContain('…');
  });

  it('narrows the widest columns first and wraps their cells to the width', () => {
    expect(fitColumns([5, 40, 60], 60)).toEqual([5, 27, 28]);
    const long = 'a failure message that goes on and on about what the archive answered and when to try again';
    const table = renderTable(['list', 'error'], [['dev@kafka.apache.org', long]], { width: 60 });
    expect(widest(table)).toBeLessThanOrEqual(60);
    expect(table).toContain('try again');
  });

  it('scales bars to the width, the largest filling it and a small value still visible', () => {
    const chart = renderBarChart([{ label: '2024-01', value: 1000 }, { label: '2024-02', value: 1 }, { label: '2024-03', value: 0 }], { width: 40 });
    const lines = chart.split('\n');
    expect(widest(chart)).toBe(40);
    expect(lines.map((line) => (line.match(/█/g) ?? []).length)).toEqual([40 - 7 - 4 - 3, 1, 0]);
  });
});
