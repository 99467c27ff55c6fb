import { Flags } from '@oclif/core';
import { BaseCommand, listFlags, MAX_COUNT } from '../cli/base-command.js';
import { renderBarChart } from '../cli/render-bar-chart.js';
import { naming, renderTable } from '../cli/render-table.js';
import { describeWait } from '../core/fetch/fetch-policy.js';
import { collectStats, type StatsResult } from '../core/stats/collect-stats.js';

export default class Stats extends BaseCommand<typeof Stats> {
  static override summary = 'Show how much of each list is fetched, classified and drained, and what the mail is.';
  static override description =
    "Per list: months scanned, first month and last month with mail, whether the scan is complete, failures and the next retry (a failing list also as one sentence), and its mail by status. Then each class's share of stored mail, the mirror share, signaled repos (and the repository URLs mail names that are not registered, each with the command that registers it), resolved senders, the rules (sha256 of the systems file) and listminer versions the stored labels were made with, lists whose mail waits for a repo (with the command that gives it one), months fetch left as gaps, and missed-LINK shadows. With --list, each named list's messages per month as a bar chart.";
  static override examples = [
    '<%= config.bin %> stats',
    '<%= config.bin %> stats --list dev@kafka.apache.org',
    '<%= config.bin %> stats --system public_inbox --json',
  ];
  static override flags = {
    ...listFlags,
    unresolved: Flags.integer({
      description: 'how many unresolved signaled repositories to list, most mentioned first (0: all; --json has all)',
      default: 10,
      min: 0,
      max: MAX_COUNT,
    }),
  };

  async run(): Promise<StatsResult> {
    const { flags } = this;
    const result = await this.withStore((store) => collectStats(store, { names: flags.list, system: flags.system }));
    if (result.lists.length === 0) {
      this.note('No lists are registered; add one with `listminer lists add`.');
      return this.finish(result);
    }
    this.render(result, flags.unresolved);
    return this.finish(result);
  }

  private render(result: StatsResult, unresolvedShown: number): void {
    this.show(
      renderTable(
        [naming('system'), naming('list'), 'months', 'first', 'last mail', 'complete', 'failures', 'next retry'],
        result.lists.map((l) => [
          l.system,
          l.name,
          l.monthsScanned,
          l.firstMonth,
          l.lastMailMonth,
          l.scanComplete ? 'yes' : 'no',
          l.failedAttempts ? `${l.failedAttempts}${l.sidelinedAt ? ' (sidelined)' : ''}: ${l.lastFailure ?? ''}` : '',
          l.retryAfter,
        ]),
      ),
    );
    // A failing list is named with its reason and its next try, not left to a column.
    for (const l of result.lists.filter((list) => list.failedAttempts > 0))
      this.show(describeWait(l, Boolean(l.sidelinedAt), new Date()));
    const t = result.totals;
    this.show(
      renderTable(
        [naming('list'), 'staged', 'classified', 'drained', 'deferred', 'shunted', 'pending'],
        [
          ...result.lists.map((l) => [
            `${l.system} ${l.name}`,
            l.staged,
            l.classified,
            l.drained,
            l.deferred,
            l.shunted,
            l.pending,
          ]),
          ...(result.lists.length > 1
            ? [['all lists', t.staged, t.classified, t.drained, t.deferred, t.shunted, t.pending]]
            : []),
        ],
      ),
    );
    this.show(
      renderTable(
        ['class', 'messages', 'share'],
        [
          ...result.classes.map((c) => [c.msgClass, c.count, percent(c.share)]),
          ['mirror (github_mirror + commit_notify)', result.mirror.count, percent(result.mirror.share)],
        ],
      ),
    );
    const { signaledRepos: s, senders, externalKeys: k } = result;
    this.show(
      renderTable(
        ['figure', 'count', 'share'],
        [
          ['stored messages', t.stored, ''],
          ['signaled repo captured', s.captured, `${percent(s.capturedShare)} of stored`],
          ['signaled repo resolved', s.resolved, `${percent(s.resolvedShare)} of captured`],
          [
            'senders resolved',
            senders.resolved,
            `${percent(senders.resolvedShare)} of ${senders.humans} human (${senders.bots} bot)`,
          ],
          [
            'people (senders)',
            result.people.people,
            `from ${result.people.addresses} address(es); ${result.people.merges} merge(s)`,
          ],
          ['issue mail with external key', k.withKey, `of ${k.issueEvents}`],
          ['missed-LINK shadows', result.missedLinkShadows, ''],
        ],
      ),
    );
    if (result.labelProvenance.length > 0) {
      this.show(
        renderTable(
          ['labelled by rules (sha256 of systems file)', 'listminer', 'messages'],
          result.labelProvenance.map((p) => [
            p.rulesHash ?? 'not recorded',
            p.listminerVersion ?? 'not recorded',
            p.messages,
          ]),
        ),
      );
    }
    const unresolved = result.unresolvedSignaledRepos;
    if (unresolved.length > 0) {
      const shown = unresolvedShown === 0 ? unresolved : unresolved.slice(0, unresolvedShown);
      const messages = unresolved.reduce((total, repo) => total + repo.messages, 0);
      this.show(
        `${unresolved.length} repository URL(s) named in ${messages} message(s) are not registered; \`listminer repos add --from FILE\` registers a file of them at once.`,
      );
      this.show(
        renderTable(
          [naming('signaled repository'), 'messages', 'register'],
          shown.map((repo) => [repo.url, repo.messages, repo.fix]),
        ),
      );
      if (shown.length < unresolved.length)
        this.show(`(the ${shown.length} most mentioned of ${unresolved.length}; --unresolved 0 or --json lists all)`);
    }
    if (result.gaps.length > 0) {
      this.show(`${result.gaps.length} month(s) could not be read and were gone past; every fetch tries them again.`);
      this.show(
        renderTable(
          [naming('list'), 'month', 'failures', 'last failed', 'last error'],
          result.gaps.map((g) => [`${g.system} ${g.list}`, g.month, g.failures, g.lastFailedAt, g.lastError]),
        ),
      );
    }
    if (result.stuck.length > 0) {
      this.show(`${result.stuck.length} list(s) cannot drain: they have no repo.`);
      this.show(
        renderTable(
          [naming('list'), 'waiting', 'fix'],
          result.stuck.map((l) => [`${l.system} ${l.name}`, l.waiting, l.fix]),
        ),
      );
    }
    for (const chart of result.monthly) {
      const undated = chart.undated ? `, ${chart.undated} undated` : '';
      this.show(`\n${chart.system} ${chart.name}: messages per month${undated}`);
      this.show(
        chart.months.length
          ? renderBarChart(chart.months.map((m) => ({ label: m.month!, value: m.count })))
          : '(no dated mail)',
      );
    }
  }
}

function percent(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}
