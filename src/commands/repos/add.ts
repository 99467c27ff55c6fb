import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { DEFAULT_API_URL } from '../../core/github/github-api.js';
import { addReposFrom, type AddReposResult } from '../../core/registry/register-repo.js';

export default class ReposAdd extends BaseCommand<typeof ReposAdd> {
  static override summary =
    'Register repositories that lists and mail can be tied to: one URL, a file of them, or a GitHub organization.';
  static override description =
    'Lists registered with a repository URL get it at once (their deferred mail drains on the next `listminer drain`), and stored mail that names it (`stats` lists the repositories mail names that are not registered) points to it. Running it again registers nothing new. With --org the token comes from GITHUB_TOKEN when set; it is sent to the API and nowhere else.';
  static override examples = [
    '<%= config.bin %> repos add https://github.com/apache/kafka',
    '<%= config.bin %> repos add --from repos.txt',
    '<%= config.bin %> repos add --org github.com/apache',
  ];
  static override args = { url: Args.string({ description: 'repository URL' }) };
  static override flags = {
    from: Flags.string({ description: 'file of repository URLs, one a line (# starts a comment)' }),
    org: Flags.string({
      description: 'every repository of this GitHub organization (github.com/ORG or ORG), from the GitHub API',
    }),
    'api-url': Flags.string({
      description: `GitHub REST API base URL [default: ${DEFAULT_API_URL}]`,
      dependsOn: ['org'],
    }),
  };

  async run(): Promise<AddReposResult> {
    const { flags } = this;
    const github = {
      apiUrl: flags['api-url'],
      token: process.env.GITHUB_TOKEN || undefined,
      contactEmail: this.settings.contactEmail,
    };
    const result = await this.withStore((store) =>
      addReposFrom(store, { url: this.args.url, file: flags.from, org: flags.org, github }),
    );
    const [only] = result.repos;
    const it = result.repos.length === 1 ? 'it' : 'them';
    const what =
      result.repos.length === 1 && only
        ? `${only.action} repo ${only.repo.url}`
        : `added ${result.added} repo(s), ${result.unchanged} already registered`;
    const attached = result.listsAttached ? `; ${result.listsAttached} list(s) now tied to ${it}` : '';
    const resolved = result.signaledMessagesResolved
      ? `; ${result.signaledMessagesResolved} drained message(s) that mention ${it} now point to ${it}`
      : '';
    this.note(`${what}${attached}${resolved}`);
    return this.finish(result);
  }
}
