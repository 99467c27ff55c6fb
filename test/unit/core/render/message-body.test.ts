import { describe, expect, it } from 'vitest';
import { linkify, renderBody, splitBody } from '../../../../src/core/render/message-body.js';

describe('splitBody', () => {
  it('cuts text, quoted text, a patch and the signature apart', () => {
    const text = [
      'On Mon, Alice wrote:',
      '> the old code',
      '> skipped it',
      'I agree.',
      '---',
      ' foo.c | 2 +-',
      '',
      'diff --git a/foo.c b/foo.c',
      'index 1..2 100644',
      '--- a/foo.c',
      '+++ b/foo.c',
      '@@ -1,2 +1,2 @@',
      ' int x;',
      '-int y = 0;',
      '+int y = 1;',
      '-- ',
      'Alice',
    ].join('\n');
    expect(splitBody(text).map((b) => [b.kind, b.lines.length])).toEqual([
      ['text', 1],
      ['quote', 2],
      ['text', 4],
      ['diff', 8],
      ['signature', 2],
    ]);
  });

  it("takes git's closing version line under a patch as the signature", () => {
    const blocks = splitBody('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n--\n2.43.0\n');
    expect(blocks.map((b) => b.kind)).toEqual(['diff', 'signature']);
  });

  it('does not take a line of dashes in prose for a patch', () => {
    expect(splitBody('--- a list item\nnot a diff').map((b) => b.kind)).toEqual(['text']);
  });
});

describe('renderBody', () => {
  it('escapes markup in every kind of block', () => {
    const out = renderBody('<script>alert(1)</script>\n> <img src=x onerror=alert(1)>\n-- \n<b>sig</b>').value;
    expect(out).not.toMatch(/<script|<img|<b>/);
    expect(out).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(out).toContain('<details class="quote"><summary>quoted text, 1 line</summary>');
    expect(out).toContain('<details class="signature">');
  });

  it('styles added and removed lines of a patch', () => {
    const out = renderBody('diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-<a>\n+<b>').value;
    expect(out).toContain('<span class="del">-&lt;a&gt;</span>');
    expect(out).toContain('<span class="add">+&lt;b&gt;</span>');
    expect(out).toContain('<span class="hunk">@@ -1 +1 @@</span>');
  });
});

describe('linkify', () => {
  it('links http(s) addresses only, without trailing punctuation, with no referrer or standing', () => {
    expect(linkify('see https://example.org/a?b=1&c=2. or javascript:alert(1)').value).toBe(
      'see <a href="https://example.org/a?b=1&amp;c=2" rel="nofollow noopener noreferrer">https://example.org/a?b=1&amp;c=2</a>. or javascript:alert(1)',
    );
  });

  it('ends an address at a quote, so it cannot leave its attribute', () => {
    expect(linkify('http://x.example/"onmouseover="alert(1)').value).toBe(
      '<a href="http://x.example/" rel="nofollow noopener noreferrer">http://x.example/</a>&quot;onmouseover=&quot;alert(1)',
    );
  });
});
