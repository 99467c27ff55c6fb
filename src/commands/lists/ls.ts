import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { naming, renderTable } from '../../cli/render-table.js';
import { listLists, type ListSummary } from '../../core/registry/list-summaries.js';

export default class ListsLs extends BaseCommand<typeof ListsLs> {
  static override summary = 'Show the registered lists, their fetch state and message counts.';
  static override examples = ['<%= config.bin %> lists ls', '<%= config.bin %> lists ls --system public_inbox --json'];
  static override flags = { system: Flags.string({ description: 'only lists of this system' }) };

  async run(): Promise<{ lists: ListSummary[] }> {
    const lists = await this.withStore((store) => listLists(store, { system: this.flags.system }));
    if (lists.length === 0) this.note('No lists are registered; add one with `listminer lists add`.');
    else {
      this.show(
        renderTable(
          [
            naming('id'),
            naming('system'),
            naming('list'),
            naming('repo'),
            'last month',
            'state',
            'staged',
            'drained',
            'deferred',
            'shunted',
            'skipped',
          ],
          lists.map((l) => [
            l.id,
            l.system,
            l.name,
            l.repoUrl,
            l.lastMonth,
            l.state,
            l.counts.staged,
            l.counts.drained,
            l.counts.deferred,
            l.counts.shunted,
            l.skippedEntries.length,
          ]),
        ),
      );
      const gaps = lists.flatMap((l) =>
        l.gaps.map((g) => [`${l.system} ${l.name}`, g.month, g.failures, g.lastFailedAt, g.lastError]),
      );
      if (gaps.length) {
        this.show(
          `${gaps.length} month(s) could not be read run after run: fetch went past them as gaps and tries them again every run.`,
        );
        this.show(renderTable([naming('list'), 'gap month', 'failures', 'last failed', 'last error'], gaps));
      }
    }
    return this.finish({ lists });
  }
}
