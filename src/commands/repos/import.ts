import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { DEFAULT_API_URL } from '../../core/github/github-api.js';
import { importRepo, type ImportRepoResult } from '../../core/registry/import-repo.js';

export default class ReposImport extends BaseCommand<typeof ReposImport> {
  static override summary =
    "Import a GitHub repository's issues and pull requests, from API pages in files or from the API.";
  static override description =
    'Registers the repository as `repos add` does, then writes its issues, pull requests and their authors (by GitHub login). Running it again changes nothing but what GitHub changed. With --github the token comes from GITHUB_TOKEN; it is sent to the API and nowhere else.';
  static override examples = [
    'gh api --paginate "repos/apache/kafka/issues?state=all&per_page=100" > issues.json',
    'gh api --paginate "repos/apache/kafka/pulls?state=all&per_page=100" > pulls.json',
    '<%= config.bin %> repos import apache/kafka --issues issues.json --pulls pulls.json',
    'GITHUB_TOKEN=… <%= config.bin %> repos import https://github.com/apache/kafka --github',
  ];
  // oclif draws the exclusive and dependent flags as a broken usage line; this says what is allowed.
  static override usage = [
    '<%= command.id %> REPO --issues FILE [--pulls FILE]',
    '<%= command.id %> REPO --pulls FILE',
    '<%= command.id %> REPO --github [--api-url URL]',
  ];
  static override args = {
    repo: Args.string({ description: 'repository: https://github.com/OWNER/NAME or OWNER/NAME', required: true }),
  };
  static override flags = {
    issues: Flags.string({
      description: 'file of GET /repos/OWNER/NAME/issues pages (a JSON array, arrays one after another, or JSON lines)',
      exclusive: ['github'],
    }),
    pulls: Flags.string({ description: 'file of GET /repos/OWNER/NAME/pulls pages', exclusive: ['github'] }),
    github: Flags.boolean({
      description: 'fetch the pages from the GitHub API (token from GITHUB_TOKEN)',
      exclusive: ['issues', 'pulls'],
    }),
    'api-url': Flags.string({
      description: `GitHub REST API base URL [default: ${DEFAULT_API_URL}]`,
      dependsOn: ['github'],
    }),
  };

  async run(): Promise<ImportRepoResult> {
    const { flags } = this;
    const source = flags.github
      ? { kind: 'github' as const, apiUrl: flags['api-url'], token: process.env.GITHUB_TOKEN || undefined }
      : { kind: 'files' as const, issuesFile: flags.issues, pullsFile: flags.pulls };
    const result = await this.withStore((store) =>
      this.withProgress('import', (progress) =>
        importRepo(
          store,
          this.args.repo,
          { source, contactEmail: this.settings.contactEmail, signal: this.stopSignal() },
          progress,
        ),
      ),
    );
    const { issues, pullRequests } = result;
    if (result.interrupted) {
      return this.finish(result, {
        stopped: this.stoppedAfter(
          `${result.pagesRead} page(s) of ${result.repo.url} saved (issues ${issues.added} added, pull requests ${pullRequests.added} added)`,
        ),
      });
    }
    this.show(
      `${result.repo.url}: issues ${issues.added} added, ${issues.updated} updated; pull requests ${pullRequests.added} added, ${pullRequests.updated} updated; ` +
        `${result.contributorsAdded} contributor(s) added; ${result.pagesRead} page(s) read.`,
    );
    if (result.repoAdded)
      this.note(
        `added repo ${result.repo.url}${result.listsAttached ? `; ${result.listsAttached} list(s) now tied to it` : ''}`,
      );
    if (result.stoppedForRateLimit)
      this.note(
        `Stopped: GitHub's rate limit is spent; run again after ${result.runAgainAfter}. What was read is saved.`,
      );
    return this.finish(result);
  }
}
