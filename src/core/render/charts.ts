import * as Plot from '@observablehq/plot';
import { parseHTML } from 'linkedom';
import { MSG_CLASSES } from '../classify/envelope.js';
import { Html, html } from './html.js';

/**
 * Charts drawn at render time by Observable Plot into a server-side DOM
 * (linkedom), written into the page as SVG: they read without script and
 * print the same bytes every time. Plot's own <style> elements are dropped
 * (the pages' policy allows the site's stylesheet only; style.css carries
 * the rules). Each bar carries its figures (data-month, data-class,
 * data-count) and a <title>, so the figures can be read back and checked.
 */

/** The little of a DOM element the charts touch (the project compiles without the DOM library). */
interface ChartNode {
  querySelectorAll(selector: string): Iterable<ChartNode>;
  remove(): void;
  setAttribute(name: string, value: string): void;
  insertBefore(node: ChartNode, before: ChartNode | null): void;
  readonly firstChild: ChartNode | null;
  textContent: string | null;
  readonly outerHTML: string;
}
/** The little of a DOM document the charts touch. */
interface ChartDocument {
  createElementNS(namespace: string, name: string): ChartNode;
}

let plotDocument: ChartDocument | undefined;
function documentForPlot(): ChartDocument {
  plotDocument ??= parseHTML('<!DOCTYPE html><html><body></body></html>').document as unknown as ChartDocument;
  return plotDocument;
}

/** Paul Tol's "muted" scheme (told apart with every common colour blindness), then two greys: one colour per class on every list. */
const CLASS_COLOURS = [
  '#332288',
  '#88ccee',
  '#44aa99',
  '#117733',
  '#999933',
  '#ddcc77',
  '#cc6677',
  '#882255',
  '#aa4499',
  '#555555',
  '#dddddd',
];
const UNKNOWN_CLASS_COLOUR = '#dddddd';

/** The chart's colour of a class: the same on every list. */
export function classColour(msgClass: string): string {
  const index = (MSG_CLASSES as readonly string[]).indexOf(msgClass);
  return index < 0 ? UNKNOWN_CLASS_COLOUR : CLASS_COLOURS[index]!;
}

/** The order classes stack in: classify's order, then any other in code-point order. */
function classRank(msgClass: string): number {
  const index = (MSG_CLASSES as readonly string[]).indexOf(msgClass);
  return index < 0 ? MSG_CLASSES.length : index;
}

/** Plot's SVG with its <style> removed and a <title> and <desc> first, for screen readers. */
function svgOf(chart: ChartNode, title: string, desc: string): Html {
  for (const style of [...chart.querySelectorAll('style')]) style.remove();
  const document = documentForPlot();
  const titleNode = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  titleNode.textContent = title;
  const descNode = document.createElementNS('http://www.w3.org/2000/svg', 'desc');
  descNode.textContent = desc;
  chart.insertBefore(descNode, chart.firstChild);
  chart.insertBefore(titleNode, descNode);
  chart.setAttribute('role', 'img');
  // linkedom serializes text and attributes escaped, so mail in a label stays text.
  return new Html(chart.outerHTML);
}

/** Messages per month as a line, one point a month. */
export function sparkline(counts: ReadonlyArray<{ month: string; count: number }>): Html {
  if (counts.length === 0) return html``;
  const label = `messages per month, ${counts[0]!.month} to ${counts.at(-1)!.month}, at most ${Math.max(...counts.map((c) => c.count))} a month`;
  const chart = Plot.plot({
    document: documentForPlot() as never,
    className: 'spark',
    width: 160,
    height: 24,
    margin: 2,
    x: { axis: null },
    y: { axis: null, domain: [0, Math.max(1, ...counts.map((c) => c.count))] },
    marks: [Plot.lineY(counts, { x: (_: unknown, i: number) => i, y: 'count', stroke: '#332288', strokeWidth: 1.5 })],
  }) as unknown as ChartNode;
  return svgOf(chart, label, label);
}

export interface MonthClassCount {
  month: string;
  msgClass: string;
  count: number;
}

/** Messages per month, stacked by class, with a legend. `months` is the x axis (gaps included). */
export function stackedChart(
  months: readonly string[],
  counts: readonly MonthClassCount[],
  classes: readonly string[],
): Html {
  if (months.length === 0) return html`<p class="none">No dated mail.</p>`;
  const shown = [...classes].sort((a, b) => classRank(a) - classRank(b) || (a < b ? -1 : a > b ? 1 : 0));
  const data = [...counts].sort((a, b) =>
    a.month < b.month ? -1 : a.month > b.month ? 1 : classRank(a.msgClass) - classRank(b.msgClass),
  );
  const totals = new Map<string, number>();
  for (const c of counts) totals.set(c.month, (totals.get(c.month) ?? 0) + c.count);
  const max = Math.max(1, ...totals.values());
  const width = Math.min(960, Math.max(480, months.length * 28 + 80));
  // A label needs about 50 pixels: every month when there is room, else every few, else one a year.
  const step = Math.ceil(50 / ((width - 80) / months.length));
  const yearly = months.length > 36;
  const ticks = yearly ? months.filter((m) => m.endsWith('-01')) : months.filter((_, i) => i % step === 0);
  const chart = Plot.plot({
    document: documentForPlot() as never,
    className: 'bars',
    width,
    height: 200,
    marginLeft: 44,
    marginBottom: 30,
    x: {
      type: 'band',
      domain: [...months],
      label: null,
      ticks,
      tickFormat: (m: string) => (yearly ? m.slice(0, 4) : m),
      padding: 0.1,
    },
    y: { label: 'messages', grid: true, domain: [0, max], nice: true },
    color: { domain: shown, range: shown.map(classColour) },
    marks: [
      Plot.barY(data, {
        x: 'month',
        y: 'count',
        fill: 'msgClass',
        order: shown,
        title: (c: MonthClassCount) => `${c.month} ${c.msgClass}: ${c.count}`,
        render(index, scales, values, dimensions, context, next) {
          const group = next!(index, scales, values, dimensions, context) as unknown as ChartNode;
          const rects = [...group.querySelectorAll('rect')];
          index.forEach((row, i) => {
            const c = data[row]!;
            rects[i]?.setAttribute('data-month', c.month);
            rects[i]?.setAttribute('data-class', c.msgClass);
            rects[i]?.setAttribute('data-count', String(c.count));
          });
          return group as never;
        },
      }),
      Plot.ruleY([0]),
    ],
  }) as unknown as ChartNode;
  const title = `Messages per month by class, ${months[0]} to ${months.at(-1)}`;
  const desc = `Stacked bars, one a month; the highest month has ${max} messages. Classes: ${shown.join(', ')}.`;
  const legend = shown.map(
    (c) =>
      html`<li><svg width="10" height="10" aria-hidden="true"><rect width="10" height="10" fill="${classColour(c)}"/></svg> ${c}</li>`,
  );
  return html`<figure class="chart">${svgOf(chart, title, desc)}<figcaption>Messages per month by class (highest month: ${max}).<ul class="legend">${legend}</ul></figcaption></figure>`;
}
