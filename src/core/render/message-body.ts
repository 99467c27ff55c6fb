import { Html, html } from './html.js';

/** One stretch of a message's text, as a thread page shows it. */
export type BodyBlock = { kind: 'text' | 'quote' | 'signature' | 'diff'; lines: string[] };

const DIFF_START = /^(diff --git |Index: |--- \S)/;
const DIFF_LINE =
  /^([ +\-@\\]|$|diff |index |new file mode|deleted file mode|similarity index|dissimilarity index|rename (from|to) |copy (from|to) |old mode|new mode|Binary files )/;

/**
 * A message's plain text cut into text, quoted text (`>` lines), the
 * signature (from the `-- ` line on) and patches (from a `diff --git`,
 * `Index:` or `--- a/…` followed by `+++` line, while lines look like a
 * unified diff).
 */
export function splitBody(text: string): BodyBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').replace(/\n+$/, '').split('\n');
  const blocks: BodyBlock[] = [];
  const push = (kind: BodyBlock['kind'], line: string) => {
    const last = blocks.at(-1);
    if (last && last.kind === kind) last.lines.push(line);
    else blocks.push({ kind, lines: [line] });
  };
  let inDiff = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '-- ') {
      blocks.push({ kind: 'signature', lines: lines.slice(i) });
      break;
    }
    if (inDiff && !DIFF_LINE.test(line)) inDiff = false;
    if (!inDiff && DIFF_START.test(line) && (!line.startsWith('--- ') || lines[i + 1]?.startsWith('+++ ')))
      inDiff = true;
    // git's own signature under a patch: "--" or "-- " then the version.
    if (inDiff && /^--\s?$/.test(line) && i >= lines.length - 3) {
      blocks.push({ kind: 'signature', lines: lines.slice(i) });
      break;
    }
    if (inDiff) push('diff', line);
    else if (line.startsWith('>')) push('quote', line);
    else push('text', line);
  }
  return blocks;
}

const URL_PATTERN = /\bhttps?:\/\/[^\s<>"'`]+[^\s<>"'`.,;:!?)\]]/g;

/** Plain text with its http(s) addresses as links that pass on no referrer and no standing. */
export function linkify(text: string): Html {
  const parts: Html[] = [];
  let at = 0;
  for (const match of text.matchAll(URL_PATTERN)) {
    parts.push(html`${text.slice(at, match.index)}`);
    parts.push(html`<a href="${match[0]}" rel="nofollow noopener noreferrer">${match[0]}</a>`);
    at = match.index + match[0].length;
  }
  parts.push(html`${text.slice(at)}`);
  return html`${parts}`;
}

function diffLine(line: string): Html {
  const kind =
    line.startsWith('+++ ') || line.startsWith('--- ')
      ? 'file'
      : line.startsWith('+')
        ? 'add'
        : line.startsWith('-')
          ? 'del'
          : line.startsWith('@@')
            ? 'hunk'
            : '';
  return kind ? html`<span class="${kind}">${line}</span>\n` : html`${line}\n`;
}

/** The blocks as markup: text as preformatted text, quotes and signatures folded, patches as styled diffs. */
export function renderBody(text: string | null): Html {
  if (text === null) return html`<p class="none">The text of this message is not stored.</p>`;
  return html`${splitBody(text).map((block) => {
    const joined = block.lines.join('\n');
    switch (block.kind) {
      case 'text':
        return joined.trim() === '' ? html`` : html`<pre class="text">${linkify(joined)}</pre>\n`;
      case 'quote':
        return html`<details class="quote"><summary>quoted text, ${block.lines.length} line${block.lines.length === 1 ? '' : 's'}</summary><pre>${linkify(joined)}</pre></details>\n`;
      case 'signature':
        return html`<details class="signature"><summary>signature</summary><pre>${linkify(joined)}</pre></details>\n`;
      case 'diff':
        return html`<pre class="diff">${block.lines.map(diffLine)}</pre>\n`;
    }
  })}`;
}
