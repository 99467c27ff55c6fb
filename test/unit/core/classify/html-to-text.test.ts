import { describe, expect, it } from 'vitest';
import { htmlToText } from '../../../../src/core/classify/html-to-text.js';

describe('HTML to text', () => {
  it('keeps the words, breaks lines at blocks and decodes entities', () => {
    const html =
      '<html><head><title>T</title><style>p{}</style></head><body><p>Hello&nbsp;<b>world</b> &amp; all</p><div>Second&#8217;s line<br>third</div><!-- hidden --><script>x()</script></body></html>';
    expect(htmlToText(html)).toBe('Hello world & all\n\nSecond’s line\nthird');
  });

  it('keeps text after a tag that never closes', () => {
    expect(htmlToText('before <b class="x" after')).toBe('before <b class="x" after');
  });

  it('gets through a megabyte of broken markup (unclosed comments, titles and tags) in one pass', () => {
    const hostile = `${'<!--<title><p <br '.repeat(60_000)}end`;
    expect(htmlToText(hostile).length).toBeLessThan(hostile.length);
    // An element that never closes loses its tag, not the rest of the message.
    expect(htmlToText('<title>x'.repeat(100_000))).toBe('x'.repeat(100_000));
  });

  it('decodes every HTML named entity, and the legacy ones without a semicolon, as a browser does', () => {
    expect(htmlToText('<p>&hellip;&ThinSpace;&frac12;&eacute;&copy 2024 &lt;tag&gt; &bogus; AT&amp;T</p>')).toBe(
      '…\u2009½é© 2024 <tag> &bogus; AT&T',
    );
  });

  it('drops a script after text whose lower case is longer (Turkish İ) without eating the text around it', () => {
    expect(htmlToText('<p>İİİ before</p><script>x()</script><p>after</p>')).toBe('İİİ before\n\nafter');
  });

  it('gets through a megabyte of <a<a<a, of unclosed nesting and of entities', () => {
    expect(htmlToText('<a'.repeat(500_000))).toBe('<a'.repeat(500_000));
    expect(htmlToText('<div><b>x'.repeat(120_000))).toBe(Array.from({ length: 120_000 }, () => 'x').join('\n'));
    expect(htmlToText('&amp;'.repeat(200_000))).toBe('&'.repeat(200_000));
  });
});
