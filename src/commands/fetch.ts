import { Flags } from '@oclif/core';
import { BaseCommand, fetchFlags, listFlags, systemsFlag } from '../cli/base-command.js';
import { naming, renderTable } from '../cli/render-table.js';
import { stagedCount } from '../core/fetch/fetch-list.js';
import { describeFailures, describeHolder, fetchLists, type FetchResult } from '../core/fetch/fetch-lists.js';

export default class Fetch extends BaseCommand<typeof Fetch> {
  static override summary = 'Fetch new mail of the registered lists into staging.';
  static override description =
    'Each list is read month by month from its checkpoint through the current month. A list is worked on by one process at a time, so several fetch processes may share a PostgreSQL database. Ctrl-C or SIGTERM writes what was read, releases the list and exits with code 130; the next fetch resumes at the first unfinished month. Exit code 4 means some lists failed and the others were fetched.';
  static override examples = [
    '<%= config.bin %> fetch',
    '<%= config.bin %> fetch --list netdev --full',
    '<%= config.bin %> fetch --system apache_ponymail --months 6 --workers 4',
    '<%= config.bin %> fetch --list dev@kafka.apache.org --now --json',
  ];
  static override flags = {
    ...listFlags,
    ...fetchFlags,
    workers: Flags.integer({
      description: 'lists fetched at once [default: workers setting, else 2]',
      min: 1,
      max: 64,
    }),
    systems: systemsFlag,
  };

  async run(): Promise<FetchResult> {
    const { flags, settings } = this;
    const signal = this.stopSignal();
    const result = await this.withStore((store) =>
      this.withProgress('fetch', (progress) =>
        fetchLists(
          store,
          this.systems(flags.systems),
          {
            lists: flags.list,
            system: flags.system,
            now: flags.now,
            months: flags.months,
            full: flags.full,
            workers: flags.workers ?? settings.workers,
            ...this.fetchSettings(),
            signal,
          },
          progress,
        ),
      ),
    );
    this.render(result);
    const t = result.totals;
    if (result.interrupted)
      return this.finish(result, {
        stopped: this.stoppedAfter(`fetched ${t.months} months of ${t.lists} lists, ${t.staged} messages staged`),
      });
    return this.finish(result, { listsFailed: t.failed > 0 });
  }

  private render(result: FetchResult): void {
    const worked = result.lists.filter((list) => list.status !== 'skipped');
    for (const holder of result.heldElsewhere)
      this.note(`${holder.system} ${holder.list} was not fetched: ${describeHolder(holder)}.`);
    // A skipped list is always named, with why and until when.
    for (const list of result.waiting) this.note(list.reason);
    for (const line of describeFailures(result)) this.failure(line);
    if (worked.length === 0) {
      // Lists kept back by a breaker, a retry wait or another process were named already, with the reason.
      if (
        result.breakers.length === 0 &&
        result.heldElsewhere.length === 0 &&
        result.waiting.length === 0 &&
        !result.interrupted
      )
        this.note('No list was due; `--now` fetches them anyway.');
      return;
    }
    this.show(
      renderTable(
        [naming('system'), naming('list'), 'status', 'months', 'staged', 'already stored', 'deletions', 'error'],
        worked.map((l) => [
          l.system,
          l.list,
          l.status,
          `${l.monthsFetched}/${l.monthsPlanned}`,
          l.staged,
          l.duplicates,
          l.deletions,
          l.error?.message,
        ]),
      ),
    );
    const t = result.totals;
    this.note(
      `${t.lists} lists, ${t.months} months, ${stagedCount(t)}, ${t.duplicates} already stored, ${t.deletions} deletions, ${t.failed} failed`,
    );
  }
}
