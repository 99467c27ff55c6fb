import { Flags } from '@oclif/core';
import { BaseCommand, listFlags, matchBudgetFlag, systemsFlag } from '../cli/base-command.js';
import { renderExplanation } from '../cli/render-explanation.js';
import { aside, classifyStaged, type ClassifyResult } from '../core/classify/classify-staged.js';
import { explainMessage, type MessageExplanation } from '../core/classify/explain-message.js';
import { loadRuleBook } from '../core/classify/rule-set.js';

export default class Classify extends BaseCommand<typeof Classify> {
  static override summary = 'Parse staged mail and label each message with its class.';
  static override description =
    'Reads every staged message that has no class yet, builds its envelope (headers, plain-text body, patch facts, trailers) and runs the rules of systems.yaml over it. Running it again does nothing new. Ctrl-C or SIGTERM stops after the batch being written and exits with code 130; the next run goes on from there. --reclassify labels every stored message again after the rules changed, without fetching; a message that cannot be parsed is shunted with its bytes kept, and --retry-shunted tries those again. --dry-run reports what a run would change and writes nothing. --explain MESSAGE shows every rule tried on one stored message and why it matched or not.';
  static override examples = [
    '<%= config.bin %> classify',
    '<%= config.bin %> classify --list dev@kafka.apache.org',
    '<%= config.bin %> classify --reclassify --systems ./my-systems.yaml',
    '<%= config.bin %> classify --retry-shunted --json',
    '<%= config.bin %> classify --reclassify --dry-run --systems ./my-systems.yaml',
    '<%= config.bin %> classify --explain "<jira.1@quarry.example.org>"',
  ];
  static override flags = {
    ...listFlags,
    reclassify: Flags.boolean({ description: 'label every stored message again (after the rules changed)' }),
    'retry-shunted': Flags.boolean({ description: 'try messages that could not be parsed again' }),
    'dry-run': Flags.boolean({
      description:
        'label and count as the run would, and write nothing (with --reclassify: the changes of class it would make)',
    }),
    explain: Flags.string({
      description:
        'show every rule tried on one stored message (its Message-ID, with or without <>, or its message key), why it matched or not, and the winner; writes nothing',
      helpValue: 'MESSAGE',
      exclusive: ['reclassify', 'retry-shunted', 'dry-run'],
    }),
    systems: systemsFlag,
    workers: Flags.integer({
      description:
        'threads that parse mail, the main thread included (1: the main thread alone) [default: one per CPU, at most 8; 1 on 2 CPUs]',
      min: 1,
      max: 64,
    }),
    'match-budget': matchBudgetFlag,
  };

  async run(): Promise<ClassifyResult | MessageExplanation> {
    const { flags } = this;
    const systems = this.systems(flags.systems);
    loadRuleBook(systems); // a bad rule is refused before any database is opened
    if (flags.explain !== undefined) {
      const reference = flags.explain;
      const selection = { names: flags.list, system: flags.system };
      const explanation = await this.withStore((store) =>
        explainMessage(store, systems, reference, {
          selection,
          maxMessageBytes: this.settings.maxMessageBytes,
          budgetMs: flags['match-budget'],
        }),
      );
      this.show(renderExplanation(explanation));
      return this.finish(explanation);
    }
    const signal = this.stopSignal();
    const options = {
      lists: flags.list,
      system: flags.system,
      reclassify: flags.reclassify,
      retryShunted: flags['retry-shunted'],
      dryRun: flags['dry-run'],
      workers: flags.workers,
      maxMessageBytes: this.settings.maxMessageBytes,
      matchBudgetMs: flags['match-budget'],
      signal,
    };
    const result = await this.withStore((store) =>
      this.withProgress('classify', (progress) => classifyStaged(store, systems, options, progress)),
    );
    const classes = Object.entries(result.classes)
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => `${name} ${count}`)
      .join(', ');
    const counts = `classified ${result.classified}, shunted ${result.shunted}${flags.reclassify ? `, changed class ${result.changed}` : ''}${aside(result)}${classes ? ` (${classes})` : ''}`;
    const summary = result.dryRun ? `dry run, nothing written: would have ${counts}` : counts;
    if (result.interrupted) return this.finish(result, { stopped: this.stoppedAfter(summary) });
    this.show(summary);
    for (const change of result.changes) this.show(`  ${change.from} → ${change.to}: ${change.count}`);
    return this.finish(result);
  }
}
