import { Flags } from '@oclif/core';
import { BaseCommand, listFlags, systemsFlag } from '../cli/base-command.js';
import { ids, naming, renderTable } from '../cli/render-table.js';
import { projectLists, type ProjectResult } from '../core/project/project-lists.js';
import { selectListIds } from '../core/registry/select-lists.js';

export default class Project extends BaseCommand<typeof Project> {
  static override summary = 'Tie drained mail to issues and pull requests, one writer per list.';
  static override description =
    "Gives every drained message an outcome (projected_kind). On lists whose rules system's projection_policy is clean_fit, tracker mail (Jira) links to the issue of its key or makes a synthetic one, and the rest of its thread follows it; GitHub mirror mail links to the pull request or issue it echoes; patch threads of the other lists are grouped into series (the pr_equivalents view). Running it again changes nothing. --backfill-keys first fills native issues' external_key from [KEY-N] title prefixes and reports the keys already taken.";
  static override examples = [
    '<%= config.bin %> project',
    '<%= config.bin %> project --list dev@kafka.apache.org',
    '<%= config.bin %> project --backfill-keys --json',
  ];
  static override flags = {
    ...listFlags,
    workers: Flags.integer({
      description: 'lists projected at once (never one list twice) [default: the workers setting]',
      min: 1,
      max: 64,
    }),
    'backfill-keys': Flags.boolean({
      description: "fill native issues' external_key from [KEY-N] title prefixes first, and report keys already taken",
    }),
    systems: systemsFlag,
  };

  async run(): Promise<ProjectResult> {
    const { flags } = this;
    const systems = this.systems(flags.systems);
    const signal = this.stopSignal();
    const result = await this.withStore(async (store) => {
      const listIds = await selectListIds(store, { names: flags.list, system: flags.system });
      return this.withProgress('project', (progress) =>
        projectLists(
          store,
          {
            listIds,
            workers: flags.workers ?? this.settings.workers,
            systems,
            backfillKeys: flags['backfill-keys'],
            signal,
          },
          progress,
        ),
      );
    });
    if (result.backfill) {
      this.show(
        `backfill: ${result.backfill.filled} issue keys filled, ${result.backfill.conflicts.length} already taken`,
      );
      if (result.backfill.conflicts.length > 0) {
        this.show(
          renderTable(
            [naming('key'), ids('native issue'), ids('held by'), 'kind'],
            result.backfill.conflicts.map((c) => [
              c.key,
              c.issueId,
              c.heldBy,
              c.kind === 'shadow' ? 'missed-LINK shadow (synthetic)' : 'taken by a native issue',
            ]),
          ),
        );
      }
    }
    if (result.lists.length === 0) this.note('Nothing to project: every drained message has its outcome.');
    else {
      this.show(
        renderTable(
          [
            naming('list'),
            'policy',
            'status',
            'examined',
            'linked',
            'created',
            'inherited',
            'mirror',
            'mailing-list only',
            'new issues',
          ],
          result.lists.map((l) => [
            `${l.system} ${l.name}`,
            l.policy,
            l.error ? `${l.status}: ${l.error}` : l.status,
            l.examined,
            l.linked,
            l.created,
            l.inherited,
            l.mirror,
            l.none,
            l.issuesCreated,
          ]),
        ),
      );
    }
    if (result.interrupted)
      return this.finish(result, {
        stopped: this.stoppedAfter(`projected ${result.examined} messages of ${result.lists.length} lists`),
      });
    return this.finish(result, this.stageFailures('project', result.lists));
  }
}
