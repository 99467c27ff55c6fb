import { runInNewContext } from 'node:vm';
import MiniSearch from 'minisearch';
import { describe, expect, it } from 'vitest';
import {
  MonthIndexes,
  SEARCH_OPTIONS,
  searchableText,
  type SearchDocument,
} from '../../../../src/core/render/search-index.js';

describe('search index', () => {
  it("indexes a message's own words: not the text it quotes, not its signature", () => {
    const text = searchableText('On Monday Ana wrote:\n> quoted words\nmy answer\n-- \nAna, signing');
    expect(text).toContain('my answer');
    expect(text).not.toContain('quoted words');
    expect(text).not.toContain('signing');
    expect(searchableText(null)).toBe('');
  });

  it("writes a month's index as a script that the page's MiniSearch loads back, and forgets it", () => {
    const indexes = new MonthIndexes();
    indexes.add('2024-02', {
      id: 'a',
      subject: 'Scanner drops a row',
      sender: 'Ana ana@example.org',
      text: 'the split </script> loses data',
      href: 'm/aa/a.html',
      date: '2024-02-01',
    });
    indexes.add('2024-02', {
      id: 'b',
      subject: 'Compaction',
      sender: 'Ben ben@example.org',
      text: 'stalls',
      href: 'm/bb/b.html',
      date: '2024-02-02',
    });
    const script = indexes.take('2024-02')!;
    expect(indexes.take('2024-02')).toBeUndefined();
    expect(script).not.toContain('</script>');
    let loaded: MiniSearch<SearchDocument> | undefined;
    runInNewContext(script, {
      listminerSearch: (_month: string, index: object) => (loaded = MiniSearch.loadJS(index as never, SEARCH_OPTIONS)),
    });
    expect(loaded!.search('scaner', { fuzzy: 0.2 }).map((hit) => hit.href as string)).toEqual(['m/aa/a.html']);
    expect(loaded!.search('ben').map((hit) => hit.subject as string)).toEqual(['Compaction']);
  });
});
