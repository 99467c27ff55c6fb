import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Every file under `dir`, as paths relative to it with `/`, sorted. */
export function siteFiles(dir: string): string[] {
  const out: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) walk(path);
      else out.push(relative(dir, path).split(sep).join('/'));
    }
  };
  walk(dir);
  return out.sort();
}

/** Path → SHA-256 of every file under `dir`: two sites are byte-identical when these are equal. */
export function siteDigest(dir: string): Record<string, string> {
  return Object.fromEntries(
    siteFiles(dir).map((file) => [
      file,
      createHash('sha256')
        .update(readFileSync(join(dir, file)))
        .digest('hex'),
    ]),
  );
}

export interface SiteLink {
  page: string;
  attribute: 'href' | 'src' | 'content';
  value: string;
  tag: string;
}

const TAG = /<([a-zA-Z][a-zA-Z0-9]*)\b([^<>]*)>/g;
const ATTRIBUTE = /\s([a-zA-Z-:]+)(?:="([^"]*)")?/g;

/** The tags of a page with their attributes (the site quotes every attribute value with "). */
export function pageTags(html: string): Array<{ name: string; attributes: Record<string, string> }> {
  const tags: Array<{ name: string; attributes: Record<string, string> }> = [];
  for (const match of html.matchAll(TAG)) {
    const attributes: Record<string, string> = {};
    for (const a of match[2]!.matchAll(ATTRIBUTE)) attributes[a[1]!.toLowerCase()] = a[2] ?? '';
    tags.push({ name: match[1]!.toLowerCase(), attributes });
  }
  return tags;
}

const unescape = (value: string) =>
  value
    .replace(/&#x27;|&apos;/g, "'")
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');

/**
 * Links of the site's pages that do not lead anywhere: a relative href or src
 * (and a meta refresh's url) must name a file of the site, and a #fragment an
 * id on that page. Links out must be http(s).
 */
export function brokenLinks(dir: string): string[] {
  const problems: string[] = [];
  const ids = new Map<string, Set<string>>();
  const idsOf = (file: string) => {
    let set = ids.get(file);
    if (!set) {
      set = new Set([...readFileSync(file, 'utf8').matchAll(/\sid="([^"]+)"/g)].map((m) => unescape(m[1]!)));
      ids.set(file, set);
    }
    return set;
  };
  for (const page of siteFiles(dir).filter((f) => f.endsWith('.html'))) {
    const file = join(dir, page);
    for (const tag of pageTags(readFileSync(file, 'utf8'))) {
      const targets: string[] = [];
      if (tag.attributes.href !== undefined) targets.push(tag.attributes.href);
      if (tag.attributes.src !== undefined) targets.push(tag.attributes.src);
      if (tag.name === 'meta' && tag.attributes['http-equiv'] === 'refresh')
        targets.push(/url=(.*)$/.exec(tag.attributes.content ?? '')![1]!);
      for (const raw of targets) {
        const target = unescape(raw);
        if (/^https?:\/\//.test(target)) continue;
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) {
          problems.push(`${page}: ${tag.name} links to ${target}`);
          continue;
        }
        const [path, fragment] = target.split('#') as [string, string | undefined];
        const linked = path === '' ? file : resolve(dirname(file), path.split('?')[0]!);
        if (!linked.startsWith(resolve(dir)) || !existsSync(linked)) {
          problems.push(`${page}: ${target} does not exist`);
          continue;
        }
        if (fragment && linked.endsWith('.html') && !idsOf(linked).has(fragment))
          problems.push(`${page}: ${target} has no #${fragment}`);
      }
    }
  }
  return problems;
}
