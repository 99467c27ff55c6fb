import { describe, expect, it } from 'vitest';
import { classColour, sparkline, stackedChart } from '../../../../src/core/render/charts.js';

const months = ['2024-01', '2024-02', '2024-03'];
const counts = [
  { month: '2024-01', msgClass: 'discuss', count: 4 },
  { month: '2024-01', msgClass: 'patch_submission', count: 2 },
  { month: '2024-03', msgClass: 'discuss', count: 7 },
];

describe('charts', () => {
  it('draws one bar a month and class, carrying its figures, with no style element the page policy would refuse', () => {
    const chart = stackedChart(months, counts, ['discuss', 'patch_submission']).value;
    const attribute = (tag: string, name: string) => new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1];
    const bars = (chart.match(/<rect[^>]*data-count[^>]*>/g) ?? []).map(
      (tag) => `${attribute(tag, 'data-month')} ${attribute(tag, 'data-class')} ${attribute(tag, 'data-count')}`,
    );
    expect(bars.sort()).toEqual(['2024-01 discuss 4', '2024-01 patch_submission 2', '2024-03 discuss 7']);
    expect(chart).not.toContain('<style');
    expect(chart).not.toMatch(/\sstyle="/);
    expect(chart).toMatch(
      /<svg[^>]*role="img"[^>]*><title>Messages per month by class, 2024-01 to 2024-03<\/title><desc>[^<]*highest month has 7 messages/,
    );
    expect(chart).toContain(`fill="${classColour('discuss')}"`);
  });

  it('gives a class the same colour on every list, and an unknown class a grey', () => {
    expect(classColour('discuss')).toBe(classColour('discuss'));
    expect(classColour('discuss')).not.toBe(classColour('review'));
    expect(classColour('no_such_class')).toBe('#dddddd');
  });

  it('draws the same bytes for the same figures', () => {
    expect(stackedChart(months, counts, ['discuss', 'patch_submission']).value).toBe(
      stackedChart(months, counts, ['patch_submission', 'discuss']).value,
    );
    const line = months.map((month, i) => ({ month, count: i * 3 }));
    expect(sparkline(line).value).toBe(sparkline(line).value);
    expect(sparkline(line).value).toContain('<title>messages per month, 2024-01 to 2024-03, at most 6 a month</title>');
  });

  it('says so when there is no dated mail', () => {
    expect(stackedChart([], [], []).value).toContain('No dated mail.');
    expect(sparkline([]).value).toBe('');
  });
});
