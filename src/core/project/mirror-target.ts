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
const GIT_PR_MESSAGE_ID = /^git-pr-(\d+)-[\w.-]+@git\.apache\.org$/i;

export function mirrorTarget(captures: Record<string, string> | null, messageId: string | null): MirrorTarget | null {
  if (captures?.kind === 'discussion') return null;
  const captured = Number.parseInt(captures?.number ?? '', 10);
  const fromId = GIT_PR_MESSAGE_ID.exec(messageId ?? '');
  const number = Number.isInteger(captured) && captured > 0 ? captured : fromId ? Number(fromId[1]) : null;
  if (number === null) return null;
  const kind =
    captures?.kind === 'pull_request' || captures?.kind === 'issue' ? captures.kind : fromId ? 'pull_request' : null;
  return { number, kind };
}
