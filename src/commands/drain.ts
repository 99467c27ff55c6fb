import { Flags } from '@oclif/core';
import { BaseCommand, listFlags, systemsFlag } from '../cli/base-command.js';
import { naming, renderTable } from '../cli/render-table.js';
import { drainLists, type DrainResult } from '../core/drain/drain-lists.js';
import { giveRepoCommand } from '../core/registry/register-list.js';
import { selectListIds } from '../core/registry/select-lists.js';

export default class Drain extends BaseCommand<typeof Drain> {
  static override summary = 'Move classified mail into the research tables, one writer per list.';
  static override description =
    "Resolves each message's repo, sender, thread and signaled repo and writes it to email_messages with its body. Mail of a list with no repo stays deferred and drains by itself once the list has one. Running it again changes nothing. Ctrl-C or SIGTERM stops after the batch being written, releases the lists and exits with code 130.";
  static override examples = [
    '<%= config.bin %> drain',
    '<%= config.bin %> drain --list dev@kafka.apache.org',
    '<%= config.bin %> drain --workers 4 --json',
  ];
  static override flags = {
    ...listFlags,
    workers: Flags.integer({
      description: 'lists drained at once (never one list twice) [default: the workers setting]',
      min: 1,
      max: 64,
    }),
    systems: systemsFlag,
  };

  async run(): Promise<DrainResult> {
    const { flags } = this;
    const systems = this.systems(flags.systems);
    const signal = this.stopSignal();
    const result = await this.withStore(async (store) => {
      const listIds = await selectListIds(store, { names: flags.list, system: flags.system });
      return this.withProgress('drain', (progress) =>
        drainLists(
          store,
          {
            listIds,
            workers: flags.workers ?? this.settings.workers,
            mirrorHandling: this.settings.mirrorHandling,
            systems,
            signal,
          },
          progress,
        ),
      );
    });
    if (result.lists.length === 0 && !result.interrupted) this.note('Nothing to drain: no list holds classified mail.');
    else {
      this.show(
        renderTable(
          [naming('list'), 'status', 'drained', 'deferred', 'shunted', 'threads repaired'],
          result.lists.map((l) => [
            `${l.system} ${l.name}`,
            l.error ? `${l.status}: ${l.error}` : l.status,
            l.drained,
            l.deferred,
            l.shunted,
            l.threadsRepaired,
          ]),
        ),
      );
    }
    for (const list of result.lists.filter((l) => l.status === 'deferred')) {
      this.note(
        `${list.system} ${list.name} has no repo; its ${list.deferred} messages wait. Give it one with \`${giveRepoCommand(list)}\`, then drain again.`,
      );
    }
    if (result.interrupted)
      return this.finish(result, {
        stopped: this.stoppedAfter(
          `drained ${result.drained} messages of ${result.lists.length} lists, ${result.shunted} shunted`,
        ),
      });
    return this.finish(result, this.stageFailures('drain', result.lists));
  }
}
