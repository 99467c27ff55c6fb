import { Flags } from '@oclif/core';
import { BaseCommand, listFlags, systemsFlag } from '../cli/base-command.js';
import { classifyStaged, type ClassifyResult } from '../core/classify/classify-staged.js';
import { loadRuleBook } from '../core/classify/rule-set.js';

export default class Classify extends BaseCommand<typeof Classify> {
  static override summary = 'Parse staged mail and label each message with its class.';
  static override description =
    'Reads every staged message that has no class yet, builds its envelope (headers, plain-text body, patch facts, trailers) and runs the rules of systems.yaml over it. Running it again does nothing new. Ctrl-C or SIGTERM stops after the batch being written and exits with code 130; the next run goes on from there. --reclassify labels every stored message again after the rules changed, without fetching; a message that cannot be parsed is shunted with its bytes kept, and --retry-shunted tries those again.';
  static override examples = [
    '<%= config.bin %> classify',
    '<%= config.bin %> classify --list dev@kafka.apache.org',
    '<%= config.bin %> classify --reclassify --systems ./my-systems.yaml',
    '<%= config.bin %> classify --retry-shunted --json',
  ];
  static override flags = {
    ...listFlags,
    reclassify: Flags.boolean({ description: 'label every stored message again (after the rules changed)' }),
    'retry-shunted': Flags.boolean({ description: 'try messages that could not be parsed again' }),
    systems: systemsFlag,
    workers: Flags.integer({ description: 'threads that parse mail, the main thread included (1: the main thread alone) [default: one per CPU, at most 8; 1 on 2 CPUs]', min: 1, max: 64 }),
    'match-budget': Flags.integer({ description: 'milliseconds the rules may take over one message before it is shunted as one they cannot match', default: 2000, min: 1 }),
  };

  async run(): Promise<ClassifyResult> {
    const { flags } = this;
    const systems = this.systems(flags.systems);
    loadRuleBook(systems); // a bad rule is refused before any database is opened
    const signal = this.stopSignal();
    const options = { lists: flags.list, system: flags.system, reclassify: flags.reclassify, retryShunted: flags['retry-shunted'], workers: flags.workers, maxMessageBytes: this.settings.maxMessageBytes, matchBudgetMs: flags['match-budget'], signal };
    const result = await this.withStore((store) => this.withProgress('classify', (progress) => classifyStaged(store, systems, options, progress)));
    const classes = Object.entries(result.classes)
      .sort((a, b) => b[1] - a[1])
      .map(([name, count]) => `${name} ${count}`)
      .join(', ');
    const summary = `classified ${result.classified}, shunted ${result.shunted}${flags.reclassify ? `, changed class ${result.changed}` : ''}${classes ? ` (${classes})` : ''}`;
    if (result.interrupted) this.exitInterrupted(result, summary);
    this.show(summary);
    for (const change of result.changes) this.show(`  ${change.from} → ${change.to}: ${change.count}`);
    return result;
  }
}
