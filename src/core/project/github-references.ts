import type { ProjectMessage } from '../store/project-records.js';
import type { Store } from '../store/store.js';

/** `GH-1234` anywhere (Apache's convention for a GitHub number in a subject). */
const GH_KEY = /\bGH-(\d{1,9})\b/gi;
/** `#1234` standing as a word: `Fix the reader (#1234)`, `#1234: title`, `[#1234]`. */
const HASH_NUMBER = /(?:^|[\s([])#(\d{1,9})(?=$|[\s)\],:;.!?])/g;

/** Request Tracker's tag, `[rt.example.org #123]`: its number is RT's, also in a person's reply. */
const RT_TAG = /\[[^[\]#]{1,80}?\s+#\d+\]/g;

/** The GitHub issue or pull request numbers a subject names, in the order named, each once. */
export function githubNumbersOf(subject: string | null): number[] {
  if (!subject) return [];
  const text = subject.replace(RT_TAG, ' ');
  const numbers = [...text.matchAll(GH_KEY), ...text.matchAll(HASH_NUMBER)]
    .sort((a, b) => a.index - b.index)
    .map((m) => Number(m[1]));
  return [...new Set(numbers.filter((n) => n > 0))];
}

/** True for a repo URL on GitHub, whose issues and pull requests `repos import` brings. */
export function isGitHubRepo(url: string | undefined): boolean {
  return url !== undefined && /^https:\/\/github\.com\/[^/]+\/[^/]+$/i.test(url);
}

export interface GitHubReferences {
  issueIds: number[];
  pullRequestIds: number[];
}

/**
 * The imported issues and pull requests of the message's repo that its
 * subject names by `GH-N` or `#N`. Mail of a numbered tracker is left out
 * (its `[rt.example.org #123]` is that tracker's number, not GitHub's), and
 * so is a number the store does not hold: nothing is made up for it.
 * GitHub numbers issues and pull requests from one sequence, so a number is
 * one or the other.
 */
export async function githubReferencesOf(tx: Store, m: ProjectMessage): Promise<GitHubReferences> {
  const found: GitHubReferences = { issueIds: [], pullRequestIds: [] };
  if (m.repoId === null || m.msgClass === 'github_mirror' || m.captures?.tracker) return found;
  for (const number of githubNumbersOf(m.subject)) {
    const pullRequestId = await tx.project.pullRequestByNumber(m.repoId, number);
    if (pullRequestId !== undefined) found.pullRequestIds.push(pullRequestId);
    else {
      const issueId = await tx.project.issueByNumber(m.repoId, number);
      if (issueId !== undefined) found.issueIds.push(issueId);
    }
  }
  return found;
}
