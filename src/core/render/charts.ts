import { Html, html } from './html.js';

/**
 * Charts as inline SVG written by hand: a sparkline and a stacked bar chart
 * need no library, read without script, and print the same bytes every time.
 * Each bar carries its figures (data-month, data-class, data-count) and a
 * <title>, so the figures can be read back and checked.
 */

/** Every month from first to last (YYYY-MM), gaps included, so an idle stretch shows as one. */
export function monthRange(first: string, last: string): string[] {
  const months: string[] = [];
  let [year, month] = first.split('-').map(Number) as [number, number];
  const [lastYear, lastMonth] = last.split('-').map(Number) as [number, number];
  while (year < lastYear || (year === lastYear && month <= lastMonth)) {
    months.push(`${year}-${String(month).padStart(2, '0')}`);
    month++;
    if (month > 12) {
      month = 1;
      year++;
    }
  }
  return months;
}

/** Messages per month as a line, one point a month. */
export function sparkline(counts: ReadonlyArray<{ month: string; count: number }>): Html {
  const width = 160;
  const height = 24;
  if (counts.length === 0) return html``;
  const max = Math.max(1, ...counts.map((c) => c.count));
  const step = counts.length > 1 ? width / (counts.length - 1) : 0;
  const points = counts.map((c, i) => `${(i * step).toFixed(1)},${(height - 1 - (c.count / max) * (height - 2)).toFixed(1)}`).join(' ');
  return html`<svg class="spark" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="messages per month, ${counts[0]!.month} to ${counts.at(-1)!.month}"><polyline fill="none" stroke="#3465a4" stroke-width="1.5" points="${points}"/></svg>`;
}

/** Colours of the classes, in the order of CLASS_ORDER; unknown classes take the last. */
const PALETTE = ['#3465a4', '#73d216', '#f57900', '#cc0000', '#75507b', '#c17d11', '#edd400', '#4e9a06', '#204a87', '#a40000', '#5c3566', '#888a85'];

/** The chart's colour of a class, given every class it shows in order. */
export function classColour(classes: readonly string[], msgClass: string): string {
  const index = classes.indexOf(msgClass);
  return PALETTE[index < 0 || index >= PALETTE.length ? PALETTE.length - 1 : index]!;
}

export interface MonthClassCount {
  month: string;
  msgClass: string;
  count: number;
}

/** Messages per month, stacked by class, with a legend. `months` is the x axis (gaps included). */
export function stackedChart(months: readonly string[], counts: readonly MonthClassCount[], classes: readonly string[]): Html {
  if (months.length === 0) return html`<p class="none">No dated mail.</p>`;
  const barWidth = Math.max(3, Math.min(40, Math.floor(900 / months.length)));
  const height = 160;
  const byMonth = new Map<string, MonthClassCount[]>();
  for (const c of counts) byMonth.set(c.month, [...(byMonth.get(c.month) ?? []), c]);
  const totals = months.map((m) => (byMonth.get(m) ?? []).reduce((sum, c) => sum + c.count, 0));
  const max = Math.max(1, ...totals);
  const width = Math.max(240, months.length * barWidth);
  const bars = months.map((month, i) => {
    let y = height;
    const stack = [...(byMonth.get(month) ?? [])].sort((a, b) => classes.indexOf(a.msgClass) - classes.indexOf(b.msgClass));
    return stack.map((c) => {
      const h = (c.count / max) * (height - 10);
      y -= h;
      return html`<rect x="${i * barWidth}" y="${y.toFixed(2)}" width="${barWidth - 1}" height="${h.toFixed(2)}" fill="${classColour(classes, c.msgClass)}" data-month="${month}" data-class="${c.msgClass}" data-count="${c.count}"><title>${month} ${c.msgClass}: ${c.count}</title></rect>`;
    });
  });
  const legend = classes.map((c) => html`<li><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${classColour(classes, c)}"/></svg> ${c}</li>`);
  return html`<figure class="chart"><svg width="${width}" height="${height + 14}" viewBox="0 0 ${width} ${height + 14}" role="img" aria-label="messages per month by class, ${months[0]} to ${months.at(-1)}, at most ${max} a month">${bars}<text x="0" y="${height + 12}" font-size="10">${months[0]}</text><text x="${width}" y="${height + 12}" font-size="10" text-anchor="end">${months.at(-1)}</text></svg><figcaption>Messages per month by class (highest month: ${max}).<ul class="legend">${legend}</ul></figcaption></figure>`;
}
