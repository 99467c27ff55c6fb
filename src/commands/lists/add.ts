import { Args, Flags } from '@oclif/core';
import { BaseCommand, systemsFlag } from '../../cli/base-command.js';
import { addList, type AddListResult } from '../../core/registry/register-list.js';
import { loadSystems } from '../../core/systems/load-systems.js';

/** The bundled systems, one per line, for --help (the manifest keeps them as the build saw systems.yaml). */
const BUNDLED = [...loadSystems().systems.values()]
  .filter((system) => system.name !== 'generic')
  .map((system) => `${system.name}: ${system.description ?? ''}`)
  .join('\n');

export default class ListsAdd extends BaseCommand<typeof ListsAdd> {
  static override summary = 'Register a mailing list to fetch.';
  static override description =
    'NAME is the list address for Pony Mail, pipermail, HyperKitty, imap and pop3 lists (for a mailbox, --base-url is imaps://user@host/Folder or pop3s://user@host), the inbox name for public-inbox archives, and a path for mbox and Maildir sources. Adding a list again updates what the flags give and never makes a second row.\n\nSystems of the bundled systems.yaml (for --system, and --rules of mbox and maildir lists):\n' +
    BUNDLED;
  static override examples = [
    '<%= config.bin %> lists add --system apache_ponymail dev@kafka.apache.org --repo https://github.com/apache/kafka',
    '<%= config.bin %> lists add --system public_inbox netdev --address netdev@vger.kernel.org',
    '<%= config.bin %> lists add --system mbox --rules apache_ponymail ./archives/kafka-dev.mbox.gz',
    '<%= config.bin %> lists add --system hyperkitty users@lists.example.org --base-url https://lists.example.org/archives',
  ];
  static override args = {
    name: Args.string({ description: 'list address, inbox name or local path', required: true }),
  };
  static override flags = {
    system: Flags.string({ description: 'archive system from systems.yaml (listed below)', required: true }),
    repo: Flags.string({ description: 'repository the list is about, e.g. https://github.com/apache/kafka' }),
    'list-id': Flags.string({ description: 'List-Id header value (default: derived from the address)' }),
    address: Flags.string({ description: 'the list e-mail address, when NAME is not one' }),
    'base-url': Flags.string({
      description: "archive URL to use instead of the system's (a mirror or local server), or an imap/pop3 mailbox URL",
    }),
    rules: Flags.string({ description: "system whose rules classify this list's mail (for mbox and Maildir)" }),
    systems: systemsFlag,
  };

  async run(): Promise<AddListResult> {
    const { flags } = this;
    const result = await this.withStore((store) =>
      addList(store, this.systems(flags.systems), {
        system: flags.system,
        name: this.args.name,
        address: flags.address,
        listId: flags['list-id'],
        repoUrl: flags.repo,
        baseUrl: flags['base-url'],
        rules: flags.rules,
      }),
    );
    this.note(
      `${result.action} ${result.list.system} list ${result.list.name}${result.repo ? ` (repo ${result.repo.url})` : ''}`,
    );
    if (result.moved) {
      this.note(
        `moved its ${result.moved.messages} stored message(s) from ${result.moved.fromRepoUrl} to ${result.repo!.url}` +
          `${result.moved.syntheticIssues ? ` and dropped ${result.moved.syntheticIssues} synthetic issue(s) made under the old repo` : ''}; run listminer project to link them again`,
      );
    }
    if (result.rulesChanged) {
      this.note(
        `its rules were ${result.rulesChanged.from}: its mail is to be drained and projected again` +
          `${result.rulesChanged.syntheticIssues ? ` (${result.rulesChanged.syntheticIssues} synthetic issue(s) made under the old rules dropped)` : ''}; run listminer classify --reclassify, then drain and project`,
      );
    }
    return this.finish(result);
  }
}
