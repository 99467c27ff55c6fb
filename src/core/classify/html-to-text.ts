/**
 * Readable text from an HTML-only message body. Deliberately small: classify
 * needs words for the rules and a body researchers can read, not layout, and
 * mailparser's own converter costs as much as the rest of the parse.
 */
const BLOCK_END = /<\/(?:p|div|li|tr|h[1-6]|blockquote|pre|table|ul|ol)\s*>|<br\s*\/?>|<(?:p|div|li|tr|h[1-6]|hr)(?:\s[^>]*)?>/gi;
const DROPPED = /<(script|style|head|title)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;

const NAMED: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: ' ',
  copy: '©',
  reg: '®',
  hellip: '…',
  mdash: '—',
  ndash: '–',
  lsquo: '‘',
  rsquo: '’',
  ldquo: '“',
  rdquo: '”',
  bull: '•',
  middot: '·',
  euro: '€',
};

export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<!--[\s\S]*?-->/g, '')
      .replace(DROPPED, '')
      .replace(/\s+/g, ' ')
      .replace(BLOCK_END, '\n')
      .replace(/<[^>]*>/g, ''),
  )
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .join('\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, entity: string) => {
    if (entity[0] === '#') {
      const code = entity[1] === 'x' || entity[1] === 'X' ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED[entity.toLowerCase()] ?? whole;
  });
}
