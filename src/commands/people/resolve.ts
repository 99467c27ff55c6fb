import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { DEFAULT_API_URL } from '../../core/github/github-api.js';
import { resolvePeopleWithGitHub } from '../../core/people/resolve-with-github.js';
import type { ResolveResult } from '../../core/people/resolve-people.js';

export default class PeopleResolve extends BaseCommand<typeof PeopleResolve> {
  static override summary =
    'Run the resolution chain: names and trailers of new mail, noreply addresses, then GitHub (with GITHUB_TOKEN).';
  static override description =
    'Incremental: mail is read once, and nothing merged by hand or undone is merged again. Senders with fewer messages than `github_min_messages` (config, default 3) are not looked up; answers are kept in the store, and "unknown" is asked again after 30 days. `sync` runs this after project.';
  static override examples = ['<%= config.bin %> people resolve', 'GITHUB_TOKEN=… <%= config.bin %> people resolve'];
  static override flags = {
    'api-url': Flags.string({ description: `GitHub REST API base URL [default: ${DEFAULT_API_URL}]` }),
  };

  async run(): Promise<ResolveResult> {
    const result = await this.withStore((store) =>
      resolvePeopleWithGitHub(store, {
        token: process.env.GITHUB_TOKEN || undefined,
        apiUrl: this.flags['api-url'],
        contactEmail: this.settings.contactEmail,
        minMessages: this.settings.githubMinMessages,
        signal: this.stopSignal(),
        onNotice: (sentence) => this.note(sentence),
      }),
    );
    this.show(
      `${result.messagesRead} message(s) read; ${result.namesRecorded} name(s) and ${result.identitiesRecorded} identit(ies) recorded; ${result.merges.length} merge(s); ${result.githubAsked} GitHub lookup(s).`,
    );
    if (result.interrupted)
      return this.finish(result, {
        stopped: this.stoppedAfter(`read ${result.messagesRead} messages, made ${result.merges.length} merges`),
      });
    return this.finish(result);
  }
}
