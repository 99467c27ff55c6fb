import { terminalWidth } from './render-table.js';

export interface Bar {
  label: string;
  value: number;
}

/**
 * One row per bar: its label, a bar of █ scaled so the largest value fills
 * the width, and the value. A value above zero always shows at least one
 * block, so a quiet month is told from an empty one.
 */
export function renderBarChart(bars: readonly Bar[], options: { width?: number } = {}): string {
  if (bars.length === 0) return '';
  const width = options.width ?? terminalWidth();
  const labelWidth = Math.max(...bars.map((bar) => bar.label.length));
  const valueWidth = Math.max(...bars.map((bar) => String(bar.value).length));
  const room = Math.max(1, width - labelWidth - valueWidth - 3);
  const largest = Math.max(0, ...bars.map((bar) => bar.value));
  return bars
    .map((bar) => {
      const blocks = bar.value <= 0 || largest === 0 ? 0 : Math.max(1, Math.round((bar.value / largest) * room));
      return `${bar.label.padEnd(labelWidth)} │${'█'.repeat(blocks)} ${bar.value}`;
    })
    .join('\n');
}
