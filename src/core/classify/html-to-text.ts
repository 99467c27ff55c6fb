import { decodeHTML } from 'entities';

/**
 * Readable text from an HTML-only message body. Deliberately small: classify
 * needs words for the rules and a body researchers can read, not layout, and
 * mailparser's own converter costs as much as the rest of the parse.
 * Entities are decoded as a browser does in text (the `entities` package):
 * all of HTML's named ones, and the legacy few that need no semicolon.
 */
const BLOCKS = new Set([
  'p',
  'div',
  'li',
  'tr',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'blockquote',
  'pre',
  'table',
  'ul',
  'ol',
  'br',
  'hr',
]);
const DROPPED = ['script', 'style', 'head', 'title'];

export function htmlToText(html: string): string {
  return decodeHTML(stripTags(dropNonText(html)))
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

/**
 * Tags out, a line break for each block element, source whitespace folded
 * as a browser would. One pass: every character is looked at a bounded
 * number of times, however the tags are broken.
 */
function stripTags(html: string): string {
  const out: string[] = [];
  let at = 0;
  while (at < html.length) {
    const open = html.indexOf('<', at);
    if (open === -1) {
      out.push(html.slice(at).replace(/\s+/g, ' '));
      break;
    }
    out.push(html.slice(at, open).replace(/\s+/g, ' '));
    const close = html.indexOf('>', open);
    if (close === -1) {
      out.push(html.slice(open).replace(/\s+/g, ' '));
      break;
    }
    const name = /^\/?\s*([a-z][a-z0-9]*)/i.exec(html.slice(open + 1, Math.min(close, open + 20)))?.[1]?.toLowerCase();
    if (name && BLOCKS.has(name)) out.push('\n');
    at = close + 1;
  }
  return out.join('');
}

/**
 * Removes comments and the content of script, style, head and title. Done
 * with a scan rather than lazy regular expressions: an unclosed `<!--` or
 * `<title>` repeated through a hostile message would make those quadratic.
 */
function dropNonText(html: string): string {
  // ASCII only: toLowerCase() turns U+0130 into two code units, and indices into `lower` must hold in `html`.
  const lower = html.replace(/[A-Z]+/g, (upper) => upper.toLowerCase());
  const out: string[] = [];
  const closedAfter = new Map<string, number>();
  // `kept` is where the text not yet copied starts; `from` where the next tag is searched for.
  let kept = 0;
  let from = 0;
  for (;;) {
    const open = lower.indexOf('<', from);
    if (open === -1) break;
    if (lower.startsWith('<!--', open)) {
      const end = lower.indexOf('-->', open + 4);
      out.push(html.slice(kept, open));
      kept = from = end === -1 ? html.length : end + 3;
      continue;
    }
    const name = DROPPED.find(
      (tag) => lower.startsWith(tag, open + 1) && !/[a-z0-9]/.test(lower[open + 1 + tag.length] ?? ''),
    );
    if (!name) {
      from = open + 1;
      continue;
    }
    // Where the element closes; remembered as "nowhere" once a search failed, so each tag name is searched for at most once per closing.
    let close = closedAfter.get(name);
    if (close === undefined || (close !== -1 && close < open)) {
      close = lower.indexOf(`</${name}`, open);
      closedAfter.set(name, close);
    }
    out.push(html.slice(kept, open));
    const tagEnd = lower.indexOf('>', close === -1 ? open : close);
    kept = from = tagEnd === -1 ? html.length : tagEnd + 1;
  }
  out.push(html.slice(kept));
  return out.join('');
}
