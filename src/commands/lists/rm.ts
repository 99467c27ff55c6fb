import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { removeList } from '../../core/registry/register-list.js';
import type { ListRecord } from '../../core/store/list-records.js';

export default class ListsRm extends BaseCommand<typeof ListsRm> {
  static override summary = 'Remove a registered list.';
  static override description =
    'A list that holds mail is only removed with --force, and then all its mail goes with it.';
  static override examples = [
    '<%= config.bin %> lists rm dev@kafka.apache.org',
    '<%= config.bin %> lists rm netdev --system public_inbox --force',
  ];
  static override args = { name: Args.string({ description: 'list address, inbox name or path', required: true }) };
  static override flags = {
    system: Flags.string({ description: 'the system, when the name is registered in more than one' }),
    force: Flags.boolean({ description: 'remove the list even though it holds mail' }),
  };

  async run(): Promise<{ removed: ListRecord; messages: number }> {
    const { list, messages } = await this.withStore((store) =>
      removeList(store, this.args.name, { system: this.flags.system, force: this.flags.force }),
    );
    this.note(`removed ${list.system} list ${list.name}${messages ? ` and its ${messages} messages` : ''}`);
    return this.finish({ removed: list, messages });
  }
}
