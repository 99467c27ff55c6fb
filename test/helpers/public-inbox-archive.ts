import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fixtureMessages } from './mail-files.js';

export interface InboxCommit {
  raw: Buffer;
  /** Committer date: when the archive received the mail. */
  at: Date;
  /** `m` adds a message, `d` withdraws one. */
  kind?: 'm' | 'd';
}

/**
 * A public-inbox v2 archive in a temp folder: <root>/<inbox>/git/<N>.git bare
 * repositories, one commit per message holding the file `m` (or `d` for a
 * deletion), written with git fast-import. Lists reach it at file://<root>.
 */
export class PublicInboxArchive {
  constructor(
    readonly root: string,
    readonly inbox: string,
  ) {}

  get baseUrl(): string {
    return `file://${this.root}`;
  }

  epochDir(epoch: number): string {
    return join(this.root, this.inbox, 'git', `${epoch}.git`);
  }

  /** Appends commits to an epoch, creating it when it does not exist yet. */
  addCommits(epoch: number, commits: readonly InboxCommit[]): void {
    const dir = this.epochDir(epoch);
    const fresh = !existsSync(dir);
    if (fresh) {
      mkdirSync(dir, { recursive: true });
      execFileSync('git', ['init', '--quiet', '--bare', dir]);
    }
    const parts: Buffer[] = [];
    commits.forEach((commit, i) => {
      const time = Math.floor(commit.at.getTime() / 1000);
      const subject = Buffer.from(commit.kind === 'd' ? 'delete\n' : 'add\n');
      parts.push(
        Buffer.from(
          `commit refs/heads/master\nauthor Sender <sender@example.com> ${time} +0000\ncommitter Archive <archive@example.com> ${time} +0000\ndata ${subject.length}\n`,
        ),
        subject,
        Buffer.from(i === 0 && !fresh ? 'from refs/heads/master^0\n' : ''),
        Buffer.from(`deleteall\nM 100644 inline ${commit.kind ?? 'm'}\ndata ${commit.raw.length}\n`),
        commit.raw,
        Buffer.from('\n\n'),
      );
    });
    execFileSync('git', ['--git-dir', dir, 'fast-import', '--quiet'], {
      input: Buffer.concat(parts),
      maxBuffer: 1 << 30,
    });
  }

  /** Commit ids of an epoch, newest first. */
  commits(epoch: number): string[] {
    return execFileSync('git', ['--git-dir', this.epochDir(epoch), 'rev-list', 'master'], { encoding: 'utf8' })
      .trim()
      .split('\n');
  }
}

/** Kernel-shaped mail: a b4 patch series with review, a partial re-roll, and git send-email revisions (test/fixtures/kernel). */
export function kernelMail(): Buffer[] {
  return [...fixtureMessages('kernel/series.mbox'), ...fixtureMessages('kernel/revisions.mbox')];
}

/** A copy of a message under a new Message-ID, for months larger than the fixtures. */
export function withMessageId(raw: Buffer, id: string): Buffer {
  const text = raw.toString('latin1');
  const replaced = /^message-id:.*$/im.test(text)
    ? text.replace(/^message-id:.*$/im, `Message-ID: <${id}>`)
    : `Message-ID: <${id}>\n${text}`;
  return Buffer.from(replaced, 'latin1');
}
