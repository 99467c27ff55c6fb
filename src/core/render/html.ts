import { escapeUTF8 } from 'entities';

/** Text made safe for HTML content and quoted attribute values: & < > " ' escaped. */
export function esc(text: string | number | null | undefined): string {
  return text === null || text === undefined ? '' : escapeUTF8(String(text));
}

/** Markup already escaped, so templates can tell it from text. */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A tagged template: every interpolated value is escaped unless it is Html (or an array of Html). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) {
    out += piece(values[i]) + strings[i + 1]!;
  }
  return new Html(out);
}

function piece(value: unknown): string {
  if (value instanceof Html) return value.value;
  if (Array.isArray(value)) return value.map(piece).join('');
  if (value === null || value === undefined || value === false) return '';
  return esc(value as string);
}

/**
 * Reading pages run no script at all; the Message-ID lookup and search pages
 * alone run the site's own script files. Mail can bring neither script nor styles:
 * everything from mail is escaped text, and the policy stands behind that.
 */
const POLICY_READING = "default-src 'none'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'";
const POLICY_SCRIPTED =
  "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; base-uri 'none'; form-action 'self'";

export interface PageFrame {
  title: string;
  /** Relative path from the page to the site's root: '' or '../' repeated. */
  root: string;
  /** The trail of links above this page, root first. */
  trail?: Array<{ href: string; text: string }>;
  body: Html;
  /** The site's own script files a page runs (lookup and search pages only), from the site's root. */
  scripts?: string[];
}

/** A whole page: doctype, policy, stylesheet, trail, body. */
export function page(frame: PageFrame): string {
  const trail = [{ href: `${frame.root}index.html`, text: 'All lists' }, ...(frame.trail ?? [])];
  return `${html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${new Html(frame.scripts ? POLICY_SCRIPTED : POLICY_READING)}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${frame.title}</title>
<link rel="stylesheet" href="${frame.root}style.css">
<link rel="icon" href="${frame.root}favicon.svg" type="image/svg+xml">
${(frame.scripts ?? []).map((script) => html`<script src="${frame.root}${script}" defer></script>\n`)}</head>
<body>
<nav class="trail">${trail.map((t, i) => html`${i ? ' › ' : ''}<a href="${t.href}">${t.text}</a>`)} · <a href="${frame.root}lookup.html">Find a Message-ID</a></nav>
<main>
${frame.body}
</main>
</body>
</html>
`}`;
}

/** A link out of the site, to an address only when it is http(s); otherwise its text. */
export function outLink(url: string | null, text: string): Html {
  if (url && /^https?:\/\//i.test(url)) return html`<a href="${url}" rel="nofollow noopener noreferrer">${text}</a>`;
  return html`${text}`;
}

/** A UTC instant as `2024-02-06 15:09 UTC`; '' when unknown. */
export function showDate(iso: string | null): string {
  if (!iso) return '';
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
