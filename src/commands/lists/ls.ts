import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderTable } from '../../cli/render-table.js';
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
          ['id', 'system', 'list', 'repo', 'last month', 'state', 'staged', 'drained', 'deferred', 'shunted', 'skipped', 'gaps'],
          lists.map((l) => [l.id, l.system, l.name, l.repoUrl, l.lastMonth, l.state, l.counts.staged, l.counts.drained, l.counts.deferred, l.counts.shunted, l.skippedEntries.length, l.gaps.map((g) => g.month).join(' ')]),
        ),
      );
    }
    return { lists };
  }
}
