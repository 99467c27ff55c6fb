import type { Store } from '../store/store.js';
import { titleKey } from './issue-key.js';

/** A key a native issue's title carries that another issue of the repo already holds. */
export interface KeyConflict {
  issueId: number;
  repoId: number;
  key: string;
  /** The issue holding the key. */
  heldBy: number;
  /** shadow: the holder is a synthetic issue the mail should have linked to this one instead (a missed LINK); taken: another native issue. */
  kind: 'shadow' | 'taken';
}

export interface BackfillResult {
  /** Native issues given the key of their title. */
  filled: number;
  conflicts: KeyConflict[];
}

/**
 * Fills native issues' external_key from a `[KEY-N]` title prefix (a Jira
 * issue carried over to GitHub), one issue at a time so a key already taken
 * never fails the run; each such key is reported, and a synthetic holder is
 * recorded in issue_key_shadows with the native issue that shadows it.
 */
export async function backfillIssueKeys(store: Store, repoIds?: readonly number[]): Promise<BackfillResult> {
  const result: BackfillResult = { filled: 0, conflicts: [] };
  for (const issue of await store.project.nativeIssuesWithoutKey(repoIds)) {
    const key = titleKey(issue.title);
    if (!key) continue;
    let filled = false;
    try {
      filled = await store.project.setExternalKey(issue.id, key);
    } catch (error) {
      // A process that made the key's synthetic issue in between: the unique index refused the key.
      if (!(await store.reachable())) throw error;
    }
    if (filled) {
      result.filled++;
      continue;
    }
    const holder = await store.project.issueByKey(issue.repoId, key);
    if (!holder || holder.id === issue.id) continue;
    if (holder.isSynthetic) await store.project.recordShadow(holder.id, issue.id, issue.repoId, key);
    result.conflicts.push({
      issueId: issue.id,
      repoId: issue.repoId,
      key,
      heldBy: holder.id,
      kind: holder.isSynthetic ? 'shadow' : 'taken',
    });
  }
  return result;
}
