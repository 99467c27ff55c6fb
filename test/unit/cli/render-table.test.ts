import { describe, expect, it } from 'vitest';
import { renderBarChart } from '../../../src/cli/render-bar-chart.js';
import { fitColumns, ids, naming, renderTable, wrapText } from '../../../src/cli/render-table.js';

const widest = (text: string) => Math.max(...text.split('\n').map((line) => [...line].length));
const deep = '/tmp/vitest-a1b2c3/some/deeply/nested/folder/of/samples/examples';
const lists = [`${deep}/quarry-dev.mbox`, `${deep}/kernel-net.mbox`];

describe('tables fit the terminal without losing what names a row', () => {
  it('keeps a table that fits as it is', () => {
    expect(fitColumns([5, 10], [5, 10], [false, false], 20)).toEqual([5, 10]);
    expect(renderTable(['a', 'b'], [['x', 'y']], { width: 80 })).not.toContain('…');
  });

  it('gives room to naming columns first and the rest evenly', () => {
    expect(fitColumns([10, 40, 60], [10, 14, 14], [true, false, false], 60)).toEqual([10, 25, 25]);
    expect(fitColumns([30, 40], [22, 14], [true, false], 50)).toEqual([30, 20]);
    expect(fitColumns([30, 40], [22, 14], [true, false], 30)).toBeUndefined();
  });

  it('never cuts a cell: long words and URLs wrap whole into the column', () => {
    const error =
      'HTTP 503 from https://lists.apache.org/api/stats.lua?list=dev&domain=kafka.apache.org&d=2024-03 after 3 tries';
    const table = renderTable([naming('list'), 'error'], [['dev@kafka.apache.org', error]], { width: 60 });
    expect(widest(table)).toBeLessThanOrEqual(60);
    expect(table).not.toContain('…');
    const joined = table
      .split('\n')
      .map((line) => line.split('│')[2]?.trim() ?? '')
      .join('');
    expect(joined.replaceAll(' ', '')).toContain(error.replaceAll(' ', ''));
  });

  it.each([60, 80, 100, 120])('keeps both list names distinguishable at %i columns', (width) => {
    const table = renderTable(
      ['system', naming('list'), 'months', 'first', 'last', 'complete', 'failures', 'next retry'],
      lists.map((list) => ['apache_ponymail', list, 12, '2024-01', '2024-12', 'yes', '', '2026-12-25T10:00:00.000Z']),
      { width },
    );
    expect(widest(table)).toBeLessThanOrEqual(width);
    expect(table).not.toContain('…');
    expect(table).toContain('quarry-dev.mbox');
    expect(table).toContain('kernel-net.mbox');
  });

  it('turns a table too wide for the width into one record per row', () => {
    const head = [
      'id',
      'system',
      naming('list'),
      naming('repo'),
      'last month',
      'state',
      'staged',
      'drained',
      'deferred',
      'shunted',
      'skipped',
    ];
    const rows = lists.map((list, i) => [
      i + 1,
      'apache_ponymail',
      list,
      'https://github.com/apache/quarry',
      '2024-12',
      'complete',
      1234567,
      294,
      0,
      0,
      0,
    ]);
    const text = renderTable(head, rows, { width: 80 });
    expect(text).not.toContain('┌');
    expect(widest(text)).toBeLessThanOrEqual(80);
    expect(text).toMatch(/^list +\/tmp\/vitest-a1b2c3\//m);
    expect(text).toMatch(/^staged +1,234,567$/m);
    expect(text.split('\n').filter((line) => /^─+$/.test(line))).toHaveLength(3);
  });

  it('right-aligns numbers with thousands separators', () => {
    const table = renderTable(
      ['list', 'messages'],
      [
        ['a', 1234567],
        ['b', 12],
      ],
      { width: undefined },
    );
    expect(table).toContain('│ 1,234,567 │');
    expect(table).toContain('│        12 │');
  });

  it('prints ids as typed, to be given back as arguments, while counts keep their separators', () => {
    const table = renderTable([ids('merge'), ids('kept'), 'messages'], [[2341, 12345, 2341]], { width: undefined });
    expect(table).toContain('│  2341 │ 12345 │    2,341 │');
  });

  it('shows the control characters of a cell as escapes, so a name from mail cannot drive the terminal', () => {
    const table = renderTable(['name'], [['\u001b[2J\u001b]0;PWNED\u0007Evil\u009b1m']], { width: 80 });
    expect(table).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(table).toContain('\\x1b[2J\\x1b]0;PWNED\\x07Evil\\x9b1m');
  });

  it('does not narrow a table when there is no width (a pipe)', () => {
    const long = 'x'.repeat(300);
    const table = renderTable(['a', 'b'], [[long, long]], { width: undefined });
    expect(table).toContain(long);
  });

  it('wraps a header at its words, never cutting one', () => {
    const table = renderTable([naming('list'), 'examined', 'new issues', 'clean_fit'], [['dev', 1, 2, 3]], {
      width: 30,
    });
    expect(table).toContain('examined');
    expect(table).toContain('clean_fit');
  });

  it('breaks a naming cell after a path separator, keeping the file name whole', () => {
    expect(wrapText(`${deep}/quarry-dev.mbox`, 20, true).split('\n').at(-1)).toBe('quarry-dev.mbox');
  });
});

describe('bar charts fit the width', () => {
  it('scales bars to the width, the largest filling it and a small value still visible', () => {
    const chart = renderBarChart(
      [
        { label: '2024-01', value: 1000 },
        { label: '2024-02', value: 1 },
        { label: '2024-03', value: 0 },
      ],
      { width: 40 },
    );
    const lines = chart.split('\n');
    expect(widest(chart)).toBe(40);
    expect(lines.map((line) => (line.match(/█/g) ?? []).length)).toEqual([40 - 7 - 4 - 3, 1, 0]);
  });
});
