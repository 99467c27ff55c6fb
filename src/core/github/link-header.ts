/**
 * The links of an HTTP Link header (RFC 8288) by rel: GitHub pages its lists
 * with `<url>; rel="next"`, `rel="last"` and so on. A link with several rels
 * is listed under each; the first link of a rel wins.
 */
export function parseLinkHeader(value: string): Record<string, string> {
  const links: Record<string, string> = {};
  // A URL is read between its angle brackets, so a comma or semicolon in it splits nothing.
  const pattern = /<([^>]*)>((?:\s*;\s*[^;,]+)*)/g;
  for (const match of value.matchAll(pattern)) {
    const url = match[1]!;
    for (const param of match[2]!.split(';')) {
      const rel = /^\s*rel\s*=\s*"?([^"]*)"?\s*$/i.exec(param)?.[1];
      if (!rel) continue;
      for (const name of rel.split(/\s+/).filter(Boolean)) links[name.toLowerCase()] ??= url;
    }
  }
  return links;
}

/** The next page's absolute URL, or undefined on the last page. */
export function nextPageUrl(linkHeader: string | undefined, pageUrl: string): string | undefined {
  if (!linkHeader) return undefined;
  const next = parseLinkHeader(linkHeader).next;
  return next === undefined ? undefined : new URL(next, pageUrl).toString();
}
