/** What a GitHub mirror mail echoes: a pull request or issue number, and which of the two when the mail says. */
export interface MirrorTarget {
  number: number;
  kind: 'pull_request' | 'issue' | null;
}

/**
 * The git.apache.org era's Message-IDs name the pull request and repository:
 * `<git-pr-262-activemq-artemis@git.apache.org>`. None of the GitBox mail in
 * the test corpus carries a GitHub node id, so none is read (docs/project.md).
 */
const GIT_PR_MESSAGE_ID = /^git-pr-(\d{1,9})-[\w.-]+@git\.apache\.org$/i;
/** A captured number as GitHub gives them: nine digits at most, as github-references reads subjects (an issue table's INTEGER holds them). */
const GITHUB_NUMBER = /^\s*0*(\d{1,9})\s*$/;

export function mirrorTarget(captures: Record<string, string> | null, messageId: string | null): MirrorTarget | null {
  if (captures?.kind === 'discussion') return null;
  const captured = Number(GITHUB_NUMBER.exec(captures?.number ?? '')?.[1] ?? 0);
  const fromId = GIT_PR_MESSAGE_ID.exec(messageId ?? '');
  const number = captured > 0 ? captured : fromId ? Number(fromId[1]) : null;
  if (!number) return null;
  const kind =
    captures?.kind === 'pull_request' || captures?.kind === 'issue' ? captures.kind : fromId ? 'pull_request' : null;
  return { number, kind };
}
