import type { TrackerIssue, TrackerPerson, TrackerPullRequest } from '../store/tracker-records.js';

/** An item of `GET /repos/O/R/issues`: that listing holds pull requests too (the items with a `pull_request` key). */
export type IssuesItem =
  { kind: 'issue'; issue: TrackerIssue } | { kind: 'pull_request'; pullRequest: TrackerPullRequest };

/** What an item reads as: its row, or why it cannot be one. */
export interface ItemReading<T> {
  value?: T;
  error?: string;
}

type Json = Record<string, unknown>;

/** An item of the issues listing as the row it becomes: an issue, or a pull request under its issue id. */
export function readIssuesItem(item: unknown): ItemReading<IssuesItem> {
  const common = readCommon(item);
  if (common.error !== undefined) return { error: common.error };
  const { json, fields } = common.value!;
  if (json.pull_request !== undefined && json.pull_request !== null) {
    const pr = isObject(json.pull_request) ? json.pull_request : {};
    const mergedAt = readTime(pr.merged_at, 'pull_request.merged_at');
    if (mergedAt.error !== undefined) return { error: mergedAt.error };
    const { updatedAt: _updated, commentCount: _comments, externalKey: _key, ...rest } = fields;
    return {
      value: { kind: 'pull_request', pullRequest: { ...rest, idOf: 'issue', mergedAt: mergedAt.value ?? null } },
    };
  }
  return { value: { kind: 'issue', issue: fields } };
}

/** An item of `GET /repos/O/R/pulls` as its pull_requests row, under the pull request's own id. */
export function readPullsItem(item: unknown): ItemReading<TrackerPullRequest> {
  const common = readCommon(item);
  if (common.error !== undefined) return { error: common.error };
  const { json, fields } = common.value!;
  const mergedAt = readTime(json.merged_at, 'merged_at');
  if (mergedAt.error !== undefined) return { error: mergedAt.error };
  const { updatedAt: _updated, commentCount: _comments, externalKey: _key, ...rest } = fields;
  return { value: { ...rest, idOf: 'pull_request', mergedAt: mergedAt.value ?? null } };
}

/**
 * A Jira key the title starts with in brackets, `[KAFKA-123] …`, as Jira
 * writes keys (upper case); null when there is none.
 */
export function externalKeyOfTitle(title: string): string | null {
  const key = /^\s*\[([a-z][a-z0-9_]*-\d+)\]/i.exec(title)?.[1];
  return key ? key.toUpperCase() : null;
}

/** `owner/name` (lower case) of the repository an issue or pull request says it belongs to, when it says. */
export function itemRepository(item: unknown): string | undefined {
  if (!isObject(item)) return undefined;
  if (typeof item.repository_url === 'string') {
    const match = /\/repos\/([^/]+\/[^/]+)\/?$/.exec(item.repository_url);
    if (match) return match[1]!.toLowerCase();
  }
  const base = isObject(item.base) && isObject(item.base.repo) ? item.base.repo : undefined;
  return typeof base?.full_name === 'string' ? base.full_name.toLowerCase() : undefined;
}

function readCommon(item: unknown): ItemReading<{ json: Json; fields: TrackerIssue }> {
  if (!isObject(item)) return { error: 'it is not a JSON object' };
  if (item.id === undefined && typeof item.message === 'string')
    return { error: `it is GitHub's error answer "${item.message}", not an issue or pull request` };
  if (!Number.isSafeInteger(item.id) || (item.id as number) <= 0) return { error: 'it has no numeric id' };
  if (!Number.isSafeInteger(item.number) || (item.number as number) <= 0)
    return { error: `item ${String(item.id)} has no number` };
  const title = typeof item.title === 'string' ? item.title : '';
  const createdAt = readTime(item.created_at, 'created_at');
  if (createdAt.error !== undefined) return { error: `item ${String(item.id)}: ${createdAt.error}` };
  const updatedAt = readTime(item.updated_at, 'updated_at');
  if (updatedAt.error !== undefined) return { error: `item ${String(item.id)}: ${updatedAt.error}` };
  return {
    value: {
      json: item,
      fields: {
        id: item.id as number,
        number: item.number as number,
        title,
        state: typeof item.state === 'string' ? item.state.toLowerCase() : null,
        author: readPerson(item.user),
        url: typeof item.html_url === 'string' ? item.html_url : null,
        createdAt: createdAt.value ?? null,
        updatedAt: updatedAt.value ?? null,
        externalKey: externalKeyOfTitle(title),
        commentCount: Number.isSafeInteger(item.comments) ? (item.comments as number) : 0,
      },
    },
  };
}

/** The user an item names; null for a deleted account (GitHub gives `user: null` or the "ghost" user's login). */
function readPerson(user: unknown): TrackerPerson | null {
  if (!isObject(user) || typeof user.login !== 'string' || user.login === '') return null;
  const email = typeof user.email === 'string' && user.email.includes('@') ? user.email.trim().toLowerCase() : null;
  return { login: user.login, email };
}

/** An API time (ISO 8601) as the store writes times; absent or null is undefined. */
function readTime(value: unknown, field: string): ItemReading<string | undefined> {
  if (value === undefined || value === null) return { value: undefined };
  const at = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(at)) return { error: `${field} ${JSON.stringify(value)} is not a time` };
  return { value: new Date(at).toISOString() };
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
