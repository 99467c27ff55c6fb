import { Flags } from '@oclif/core';
import { BaseCommand, systemsFlag } from '../../cli/base-command.js';
import { naming, renderTable } from '../../cli/render-table.js';
import { discoverLists, type DiscoverListsResult } from '../../core/registry/discover-lists.js';

export default class ListsDiscover extends BaseCommand<typeof ListsDiscover> {
  static override summary = "Register the lists an archive's catalogue names.";
  static override description =
    "Reads the catalogue of an archive system that has one (Pony Mail; groups.io, whose catalogue is the groups the API key's account is subscribed to; a news server, whose catalogue is its groups, --domain a hierarchy such as gmane.comp) and registers every list in it, or those of one domain, with the repository its repo_url_template gives. Running it again registers nothing twice.";
  static override examples = [
    '<%= config.bin %> lists discover --system apache_ponymail --domain kafka.apache.org',
    '<%= config.bin %> lists discover --system apache_ponymail --base-url http://127.0.0.1:8080 --json',
  ];
  static override flags = {
    system: Flags.string({ description: 'archive system from systems.yaml', required: true }),
    domain: Flags.string({ description: 'only lists of this domain, e.g. kafka.apache.org' }),
    'base-url': Flags.string({ description: "archive URL to use instead of the system's (a mirror or local server)" }),
    systems: systemsFlag,
  };

  async run(): Promise<DiscoverListsResult> {
    const { flags } = this;
    const result = await this.withStore((store) =>
      this.withProgress('Discovering lists', (progress) =>
        discoverLists(
          store,
          this.systems(flags.systems),
          {
            system: flags.system,
            domain: flags.domain,
            baseUrl: flags['base-url'],
            contactEmail: this.settings.contactEmail,
            mailAccounts: this.settings.mailAccounts,
            mailTimeoutMs: this.settings.mailTimeoutSeconds * 1000,
          },
          { progress },
        ),
      ),
    );
    if (result.lists.length > 0) {
      this.show(
        renderTable(
          [naming('list'), 'list-id', naming('repo'), 'action'],
          result.lists.map((l) => [l.name, l.listId, l.repoUrl, l.action]),
        ),
      );
    }
    this.note(
      `${result.found} lists found: ${result.added} added, ${result.updated} updated, ${result.unchanged} unchanged`,
    );
    return this.finish(result);
  }
}
