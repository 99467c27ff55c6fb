import { normalizeRepoUrl } from '../registry/repo-url.js';

/**
 * Axis B: which repository a message speaks of, read from what classify
 * captured, else from the first github.com/OWNER/REPO link in the body. The
 * URL is normalized the way `repos add` normalizes, so the two meet.
 */
const GITHUB_LINK = /https?:\/\/(?:www\.)?github\.com\/([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9_.-]+)/g;

/** First path segments of github.com pages that are not owners. */
const NOT_OWNERS = new Set([
  'orgs',
  'settings',
  'notifications',
  'apps',
  'marketplace',
  'sponsors',
  'features',
  'about',
  'login',
  'site',
  'topics',
  'explore',
  'users',
  'pricing',
  'enterprise',
  'collections',
]);

export function findSignaledRepoUrl(
  captures: Record<string, string> | null,
  body: string,
  repoUrlTemplate: string | undefined,
): string | null {
  const fromCaptures = repoFromCaptures(captures ?? {}, repoUrlTemplate);
  if (fromCaptures) return fromCaptures;
  for (const match of body.matchAll(GITHUB_LINK)) {
    const owner = match[1]!;
    const name = match[2]!.replace(/\.git$/, '').replace(/\.+$/, '');
    if (NOT_OWNERS.has(owner.toLowerCase()) || !name) continue;
    const repo = normalizeRepoUrl(`https://github.com/${owner}/${name}`);
    if (repo) return repo.url;
  }
  return null;
}

function repoFromCaptures(captures: Record<string, string>, template: string | undefined): string | null {
  const { owner, repo } = captures;
  if (!repo) return null;
  let url: string | undefined;
  if (/^[a-z]+:\/\/|^git@/i.test(repo)) url = repo;
  else if (owner) url = `https://github.com/${owner}/${repo}`;
  else if (repo.includes('/')) url = `https://github.com/${repo}`;
  else if (template) url = template.replaceAll('{repo}', repo).replaceAll('{owner}', owner ?? '');
  return (url && normalizeRepoUrl(url)?.url) ?? null;
}
