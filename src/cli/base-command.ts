import { Command, Errors, Flags, type Interfaces } from '@oclif/core';
import { MATCH_BUDGET_MS, MAX_MATCH_BUDGET_MS } from '../core/classify/match-within-budget.js';
import { chooseCacheDir } from '../core/config/cache-dir.js';
import { loadConfig, MAX_BACKFILL_MONTHS, type Config } from '../core/config/load-config.js';
import type { FetchSettings } from '../core/fetch/fetch-lists.js';
import type { ProgressListener } from '../core/progress.js';
import { chooseDb, chooseStoreTimeouts, redactSecrets } from '../core/db-target.js';
import { ExitCode, hintLine, ListminerError } from '../core/errors.js';
import { withStore } from '../core/store/open-store.js';
import { describeStageFailures } from '../core/pipeline/each-claimed-list.js';
import { lostConnectionFailure } from '../core/store/store-failure.js';
import type { Store } from '../core/store/store.js';
import { loadSystems, type Systems } from '../core/systems/load-systems.js';
import { limitHeapGrowth } from './heap-growth.js';
import { chooseProgressMode, runWithProgress } from './progress-view.js';
import { showControls } from './show-controls.js';

/**
 * The most a count flag (--limit, --unresolved) takes. oclif bounds an
 * integer flag only when told to; without it 99999999999999999999 passes as
 * a float the database refuses.
 */
export const MAX_COUNT = 1_000_000_000;

/** --match-budget, for classify and sync. */
export const matchBudgetFlag = Flags.integer({
  description: 'milliseconds the rules may take over one message before it is shunted as one they cannot match',
  default: MATCH_BUDGET_MS,
  min: 1,
  max: MAX_MATCH_BUDGET_MS,
});

/** --systems, for commands that read systems.yaml. */
export const systemsFlag = Flags.string({ description: 'systems.yaml to use instead of the bundled one' });

/** How far back fetch reads, for fetch and sync. */
export const fetchFlags = {
  now: Flags.boolean({ description: 'fetch even lists not due yet (ignore cadence and retry waits)' }),
  months: Flags.integer({
    description:
      'for remote lists never fetched: how many recent months to read (a local archive is read whole) [default: backfill_months, else 12]',
    min: 1,
    max: MAX_BACKFILL_MONTHS,
  }),
  full: Flags.boolean({
    description: "read the archive's whole history, months fetched before included (nothing is stored twice)",
  }),
};

/** --list and --system, for every command that works list by list (resolved by selectLists). */
export const listFlags = {
  list: Flags.string({
    description: 'only this list (address, inbox name or path); may be given more than once',
    multiple: true,
  }),
  system: Flags.string({ description: "only this system's lists; chooses between lists that share a name" }),
};

export type CommandFlags<T extends typeof Command> = Interfaces.InferredFlags<
  (typeof BaseCommand)['baseFlags'] & T['flags']
>;
export type CommandArgs<T extends typeof Command> = Interfaces.InferredArgs<T['args']>;

/**
 * What every listminer command shares: the global flags, the config file,
 * opening the store, and one place that turns errors into a sentence, a hint
 * and an exit code.
 */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static override enableJsonFlag = true;

  static override baseFlags = {
    db: Flags.string({
      description: 'SQLite file or postgres:// URL [env: LISTMINER_DB; default ./listminer.db]',
      helpGroup: 'GLOBAL',
    }),
    config: Flags.string({
      description: 'YAML config file [env: LISTMINER_CONFIG; default ./listminer.yaml when present]',
      helpGroup: 'GLOBAL',
    }),
    quiet: Flags.boolean({
      description: 'print nothing when all went well; else only the failures, one line each (for cron)',
      helpGroup: 'GLOBAL',
    }),
    debug: Flags.boolean({ description: 'show stack traces of errors', helpGroup: 'GLOBAL' }),
  };

  protected flags!: CommandFlags<T>;
  protected args!: CommandArgs<T>;
  protected settings!: Config;

  override async init(): Promise<void> {
    await super.init();
    limitHeapGrowth();
    const { args, flags } = await this.parse({
      flags: this.ctor.flags,
      baseFlags: (super.ctor as typeof BaseCommand).baseFlags,
      enableJsonFlag: this.ctor.enableJsonFlag,
      args: this.ctor.args,
      strict: this.ctor.strict,
    }).catch((error: unknown) => {
      // oclif wraps what a flag's parser throws in a CLIError, but not what an argument's does (`Expected an integer`): both are usage errors.
      throw error instanceof Errors.CLIError
        ? error
        : new Errors.CLIError((error as Error).message, { exit: ExitCode.usage });
    });
    this.flags = flags as CommandFlags<T>;
    this.args = args as CommandArgs<T>;
    const { config, warnings } = loadConfig(this.flags.config, process.env);
    this.settings = config;
    for (const warning of warnings) this.note(`warning: ${warning.file}:${warning.line ?? ''} ${warning.message}`);
    process.on('uncaughtException', this.crashListener);
  }

  /** An error thrown where no command code can catch it (a database client's timer) still gets its sentence and exit code. */
  private readonly crashListener = (error: Error) => {
    process.exit(this.report(lostConnectionFailure(error, redactSecrets(this.database)) ?? error, error));
  };

  /** The database this run uses: --db, LISTMINER_DB, the config file, the default. */
  protected get database(): string {
    return chooseDb(this.flags.db, process.env, this.settings.database);
  }

  protected withStore<R>(fn: (store: Store) => Promise<R>): Promise<R> {
    return withStore(this.database, fn, chooseStoreTimeouts(process.env));
  }

  private stopController: AbortController | undefined;
  private readonly stopListener = (signal: NodeJS.Signals) => {
    if (this.stopController!.signal.aborted) process.exit(ExitCode.interrupted);
    this.note(`${signal}: stopping after the current batch, releasing the lists (${signal} again stops at once)`);
    this.stopController!.abort();
  };

  /**
   * An AbortSignal that the first SIGINT or SIGTERM aborts, for a stage to
   * stop at its next batch, release its locks and return what it did. A
   * second signal exits at once. The listeners go when the command ends.
   */
  protected stopSignal(): AbortSignal {
    if (!this.stopController) {
      this.stopController = new AbortController();
      process.on('SIGINT', this.stopListener);
      process.on('SIGTERM', this.stopListener);
    }
    return this.stopController.signal;
  }

  /**
   * The one way a command ends (README, exit codes): the typed result goes
   * out (under --json always, a failed list or a signal notwithstanding) and
   * the outcome picks the exit code. A signal: its sentence on stderr, exit
   * 130. Lists that failed (each named by `failure` already): exit 4. An
   * error (verify --strict's gap, the lists a stage failed): printed by the
   * one place that prints errors, after the result, with its exit code.
   */
  protected finish<R extends object>(result: R, outcome: Outcome = {}): R {
    if (outcome.stopped === undefined && outcome.error === undefined && !outcome.listsFailed) return result; // oclif prints it under --json
    if (this.jsonEnabled()) this.logJson(result);
    this.resultShown = true;
    if (outcome.stopped !== undefined) {
      this.logToStderr(outcome.stopped);
      return this.exit(ExitCode.interrupted);
    }
    if (outcome.error) throw outcome.error;
    return this.exit(ExitCode.partial);
  }

  /** The sentence of a stage a signal stopped, for `finish`: what it did, and that the next run resumes. */
  protected stoppedAfter(done: string): string {
    return `Stopped by a signal: ${done}. The next run resumes from there.`;
  }

  /**
   * The outcome of a per-list stage (drain, project): each list that failed
   * is named on its own line, and the run ends with a sentence that counts
   * them (exit 4).
   */
  protected stageFailures(
    stage: 'drain' | 'project',
    lists: ReadonlyArray<{ system: string; name: string; status: string; error?: string }>,
  ): Outcome {
    const failed = lists.filter((list) => list.status === 'failed').length;
    if (failed === 0) return {};
    for (const line of describeStageFailures(stage, lists)) this.failure(line);
    const done = stage === 'drain' ? 'drained' : 'projected';
    const hint = 'Each list that failed is named above with its reason; run again with --debug for the stack.';
    return {
      error: new ListminerError(
        `${failed} of ${lists.length} lists failed to ${stage}; the rest ${done}.`,
        ExitCode.partial,
        hint,
      ),
    };
  }

  /** Set once `finish` printed the result: an error after it goes to stderr, so that stdout carries the result alone. */
  private resultShown = false;

  override async finally(error: Error | undefined): Promise<unknown> {
    process.off('uncaughtException', this.crashListener);
    process.off('SIGINT', this.stopListener);
    process.off('SIGTERM', this.stopListener);
    return super.finally(error);
  }

  /** What fetching needs from the config file and the environment, for fetch and sync alike. */
  protected fetchSettings(): FetchSettings {
    const { settings } = this;
    return {
      cadenceDays: settings.cadenceDays,
      backfillMonths: settings.backfillMonths,
      contactEmail: settings.contactEmail,
      cacheDir: chooseCacheDir(settings, process.env),
      maxMessageBytes: settings.maxMessageBytes,
      mailAccounts: settings.mailAccounts,
      mailTimeoutMs: settings.mailTimeoutSeconds * 1000,
    };
  }

  protected systems(file?: string): Systems {
    return loadSystems(file ?? this.settings.systems);
  }

  /** Runs a stage's work under the progress view this run asks for (bars, plain lines, or none). */
  protected withProgress<R>(title: string, work: (progress: ProgressListener) => Promise<R>): Promise<R> {
    return runWithProgress(title, chooseProgressMode({ quiet: this.flags.quiet, json: this.jsonEnabled() }), work, {
      signal: this.stopController?.signal,
    });
  }

  /*
   * The output contract of every command (README, "Output"): stdout carries
   * the result (a table, or --json), stderr progress and diagnostics. What
   * they write for humans shows control characters as escapes (showControls):
   * names and subjects come from mail.
   * --quiet prints nothing when all went well, and only `failure` lines
   * (and an error) when something did; exit codes do not change.
   */

  /** A line for the human on stderr, unless --quiet or --json. */
  protected note(message: string): void {
    if (!this.flags?.quiet && !this.jsonEnabled()) this.logToStderr(showControls(message));
  }

  /** One line on stderr for one thing that failed (a list, a month), --quiet or not; --json carries it in the result instead. */
  protected failure(line: string): void {
    if (!this.jsonEnabled()) this.logToStderr(showControls(line));
  }

  /** The result for humans on stdout, unless --quiet; --json replaces it with the typed result. */
  protected show(text: string): void {
    if (!this.flags?.quiet && !this.jsonEnabled()) this.log(showControls(text));
  }

  protected override async catch(error: Error & { exitCode?: number; oclif?: { exit?: number } }): Promise<unknown> {
    if (error instanceof Errors.ExitError) throw error;
    return this.exit(this.report(error));
  }

  /** The one place an error becomes a sentence and a hint (the stack too with --debug); returns its exit code. */
  private report(error: Error & { exitCode?: number; oclif?: { exit?: number } }, cause: Error = error): number {
    const described = describeError(error);
    if (this.jsonEnabled() && !this.resultShown) {
      this.logJson({ error: { message: described.message, hint: described.hint, exitCode: described.exitCode } });
    } else {
      // oclif mutes its own stderr under --json; the result is on stdout already, the error is not part of it.
      const lines = [`Error: ${described.message}`, ...(described.hint ? [hintLine(described.hint)] : [])].map(
        showControls,
      );
      if (this.argv.includes('--debug') && cause.stack) lines.push(redactSecrets(cause.stack));
      process.stderr.write(`${lines.join('\n')}\n`);
    }
    return described.exitCode;
  }
}

/** How a run ended beyond its result, for `finish`. Nothing given: it went well (exit 0). */
export interface Outcome {
  /** A signal stopped the run: the sentence that says what it did (stderr; --json carries the result). Exit 130. */
  stopped?: string;
  /** Some lists failed and the others went on; each was named by `failure`. Exit 4. */
  listsFailed?: boolean;
  /** The run is done but ends as this error says (its sentence, hint and exit code). */
  error?: ListminerError;
}

interface DescribedError {
  message: string;
  hint?: string;
  exitCode: number;
}

/** Your input is wrong (2), the work failed (1), or listminer has a bug (1, and says so). */
export function describeError(error: Error & { exitCode?: number; oclif?: { exit?: number } }): DescribedError {
  if (error instanceof ListminerError) {
    return {
      message: redactSecrets(error.message),
      hint: error.hint && redactSecrets(error.hint),
      exitCode: error.exitCode,
    };
  }
  if (error instanceof Errors.CLIError) {
    // oclif's own parse errors: unknown flag, missing argument.
    const lines = error.message.split('\n').map((line) => line.trim());
    const useful = lines.filter(
      (line) => line && !/^The following errors? occurred:?$|^See more help with --help$/.test(line),
    );
    // oclif names a missing flag without its dashes ("Missing required flag out").
    const message = redactSecrets(useful.join('; ') || error.message).replace(
      /(Missing required flags?:? )([a-z][\w-]*)/g,
      '$1--$2',
    );
    return { message, hint: 'See --help for the flags and arguments.', exitCode: error.oclif?.exit ?? ExitCode.usage };
  }
  return {
    message: `listminer hit an unexpected error: ${redactSecrets(error.message)}`,
    hint: 'Run again with --debug for the stack trace, and report it.',
    exitCode: ExitCode.failed,
  };
}
