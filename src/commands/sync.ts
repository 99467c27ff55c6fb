import { Args, Flags } from '@oclif/core';
import { BaseCommand, fetchFlags, listFlags, matchBudgetFlag, systemsFlag } from '../cli/base-command.js';
import { renderTable } from '../cli/render-table.js';
import { InputError } from '../core/errors.js';
import { resolvePeopleWithGitHub } from '../core/people/resolve-with-github.js';
import { addLocalList, giveRepoCommand } from '../core/registry/register-list.js';
import { stagedCount } from '../core/fetch/fetch-list.js';
import { describeHolder } from '../core/fetch/fetch-lists.js';
import { describeOutcomes } from '../core/project/project-lists.js';
import { describeSyncFailures, syncLists, type SyncResult } from '../core/sync/sync-lists.js';

export default class Sync extends BaseCommand<typeof Sync> {
  static override summary = 'Fetch, classify, drain and project in one go.';
  static override description =
    'Runs the four stages one after the other for the lists that are due (or those named), each as its own command would, with one progress view. Given a PATH (an mbox file, a folder of them, a .mbox.gz or a Maildir), registers it as a list first and reads all of it: the one-command way in. Stopped at any point, the next sync resumes. Exit code 4 means some lists failed and the others went through.';
  static override examples = [
    '<%= config.bin %> sync',
    '<%= config.bin %> sync --quiet                  # for cron',
    '<%= config.bin %> sync kafka-dev.mbox --rules apache_ponymail --repo https://github.com/apache/kafka',
    '<%= config.bin %> sync --list dev@kafka.apache.org --now --json',
  ];
  static override args = {
    path: Args.string({ description: 'a local mbox file or folder, .mbox.gz or Maildir to register and read whole' }),
  };
  static override flags = {
    ...listFlags,
    ...fetchFlags,
    workers: Flags.integer({
      description: 'lists fetched, drained and projected at once [default: workers setting, else 2]',
      min: 1,
      max: 64,
    }),
    rules: Flags.string({
      description: 'with PATH: the system whose rules classify its mail (e.g. apache_ponymail, public_inbox)',
    }),
    repo: Flags.string({
      description: 'with PATH: the repository the list is about; without one its mail waits (deferred)',
    }),
    'match-budget': matchBudgetFlag,
    systems: systemsFlag,
  };

  async run(): Promise<SyncResult> {
    const { flags, args, settings } = this;
    if (!args.path && (flags.rules || flags.repo))
      throw new InputError(
        '--rules and --repo go with a PATH.',
        'Give the mbox or Maildir to register, or use `listminer lists add` for a list already registered.',
      );
    const systems = this.systems(flags.systems);
    const signal = this.stopSignal();
    const result = await this.withStore(async (store) => {
      const local = args.path
        ? await addLocalList(store, systems, { path: args.path, rules: flags.rules, repoUrl: flags.repo })
        : undefined;
      if (local) this.note(`${local.action} ${local.list.system} list ${local.list.name}`);
      const synced = await this.withProgress('sync', (progress) =>
        syncLists(
          store,
          systems,
          {
            lists: local ? [local.list.name] : flags.list,
            system: local ? local.list.system : flags.system,
            // A local archive named on the command line is read whole, now.
            now: flags.now || Boolean(local),
            full: flags.full || Boolean(local),
            months: flags.months,
            workers: flags.workers ?? settings.workers,
            mirrorHandling: settings.mirrorHandling,
            matchBudgetMs: flags['match-budget'],
            ...this.fetchSettings(),
            signal,
          },
          progress,
        ),
      );
      // The people behind the new mail (docs/people.md): the resolution chain, as `people resolve` runs it.
      if (!synced.interrupted) {
        synced.people = await resolvePeopleWithGitHub(store, {
          token: process.env.GITHUB_TOKEN || undefined,
          contactEmail: settings.contactEmail,
          minMessages: settings.githubMinMessages,
          signal,
          onNotice: (sentence) => this.note(sentence),
        });
        // A signal during the people chain stops sync there, as during any stage.
        if (synced.people.interrupted) synced.interrupted = true;
      }
      return synced;
    });
    this.render(result);
    if (result.interrupted) return this.finish(result, { stopped: this.stoppedAfter(describeSync(result)) });
    if (result.failed > 0)
      this.note(`${result.failed} list(s) failed (named above, each with its reason); the others went through.`);
    return this.finish(result, { listsFailed: result.failed > 0 });
  }

  private render(result: SyncResult): void {
    const { fetch, classify, drain, project } = result;
    const t = fetch.totals;
    this.show(
      renderTable(
        ['stage', 'lists', 'result'],
        [
          [
            'fetch',
            t.lists,
            `${stagedCount(t)}, ${t.duplicates} already stored, ${t.months} months, ${t.failed} failed`,
          ],
          ...(classify
            ? [['classify', classify.lists.length, `${classify.classified} classified, ${classify.shunted} shunted`]]
            : []),
          ...(drain
            ? [
                [
                  'drain',
                  drain.lists.length,
                  `${drain.drained} drained, ${drain.deferred} deferred, ${drain.shunted} shunted`,
                ],
              ]
            : []),
          ...(project ? [['project', project.lists.length, describeOutcomes(project)]] : []),
          ...(result.people
            ? [['people', '', `${result.people.messagesRead} message(s) read, ${result.people.merges.length} merge(s)`]]
            : []),
        ],
      ),
    );
    for (const holder of fetch.heldElsewhere)
      this.note(`${holder.system} ${holder.list} was not fetched: ${describeHolder(holder)}.`);
    // A skipped list is always named, with why and until when; a failed one with its month and reason, --quiet or not.
    for (const list of fetch.waiting) this.note(list.reason);
    for (const line of describeSyncFailures(result)) this.failure(line);
    const waiting = drain?.lists.filter((list) => list.status === 'deferred') ?? [];
    for (const list of waiting)
      this.note(
        `${list.system} ${list.name} has no repo; its ${list.deferred} messages wait. Give it one with \`${giveRepoCommand(list)}\`, then sync again.`,
      );
  }
}

function describeSync(result: SyncResult): string {
  const parts = [`fetched ${result.fetch.totals.staged} messages`];
  if (result.classify) parts.push(`classified ${result.classify.classified}`);
  if (result.drain) parts.push(`drained ${result.drain.drained}`);
  if (result.project) parts.push(`projected ${result.project.examined}`);
  return parts.join(', ');
}
