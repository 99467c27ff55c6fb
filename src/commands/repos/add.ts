import { Args } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { addRepo, type AddRepoResult } from '../../core/registry/register-repo.js';

export default class ReposAdd extends BaseCommand<typeof ReposAdd> {
  static override summary = 'Register a repository that lists and mail can be tied to.';
  static override description = 'Lists registered with this repository URL get it at once; their deferred mail drains on the next `listminer drain`.';
  static override examples = ['<%= config.bin %> repos add https://github.com/apache/kafka'];
  static override args = { url: Args.string({ description: 'repository URL', required: true }) };

  async run(): Promise<AddRepoResult> {
    const result = await this.withStore((store) => addRepo(store, this.args.url));
    const attached = result.listsAttached ? `; ${result.listsAttached} list(s) now tied to it` : '';
    const resolved = result.signaledMessagesResolved ? `; ${result.signaledMessagesResolved} drained message(s) that mention it now point to it` : '';
    this.note(`${result.action} repo ${result.repo.url}${attached}${resolved}`);
    return result;
  }
}
