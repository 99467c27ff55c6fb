import { ArrivalClassifier } from '../classify/classify-on-arrival.js';
import { classifyStaged, type ClassifyResult } from '../classify/classify-staged.js';
import type { MirrorHandling } from '../config/load-config.js';
import { drainLists, drainResultOf, type DrainResult } from '../drain/drain-lists.js';
import { ArrivalDrainer } from '../drain/drain-on-arrival.js';
import {
  describeFailures,
  fetchLists,
  type FetchOptions,
  type FetchResult,
  type FetchSettings,
} from '../fetch/fetch-lists.js';
import { describeStageFailures } from '../pipeline/each-claimed-list.js';
import type { ProgressEvent, ProgressListener } from '../progress.js';
import type { ResolveResult } from '../people/resolve-people.js';
import { projectLists, type ProjectResult } from '../project/project-lists.js';
import { selectListIds } from '../registry/select-lists.js';
import type { Store } from '../store/store.js';
import type { Systems } from '../systems/load-systems.js';

export type SyncStage = 'fetch' | 'classify' | 'drain' | 'project';

export interface SyncOptions extends FetchSettings, Pick<FetchOptions, 'now' | 'full' | 'months' | 'openSource'> {
  /** --list: only these lists, in every stage. */
  lists?: readonly string[];
  /** --system: only this system's lists, in every stage. */
  system?: string;
  /** Lists fetched, drained and projected at once. */
  workers?: number;
  /** Threads that parse mail in classify. */
  classifyWorkers?: number;
  mirrorHandling?: MirrorHandling;
  /** Milliseconds the rules may take over one message in classify (classify's --match-budget). */
  matchBudgetMs?: number;
  /** Aborting stops the stage at work after its current batch; the stages after it do not start. */
  signal?: AbortSignal;
}

/**
 * One line per failure of the run, every stage: the list, the month and the
 * reason for fetch (describeFailures), the stage and the reason otherwise.
 */
export function describeSyncFailures(result: SyncResult): string[] {
  return [
    ...describeFailures(result.fetch),
    ...describeStageFailures('drain', result.drain?.lists ?? []),
    ...describeStageFailures('project', result.project?.lists ?? []),
  ];
}

export interface SyncResult {
  fetch: FetchResult;
  /** Absent when a signal stopped the run before the stage began and nothing had been labelled on arrival. */
  classify?: ClassifyResult;
  /** Absent when a signal stopped the run before the stage began and nothing had been drained on arrival. */
  drain?: DrainResult;
  project?: ProjectResult;
  /** The resolution chain run after the stages (docs/people.md); set by the sync command. */
  people?: ResolveResult;
  /** Lists that failed in some stage (the others went on). */
  failed: number;
  interrupted: boolean;
}

/**
 * fetch → classify → drain → project in one go. fetch takes the lists that
 * are due (or those named); the stages after it work on whatever mail is
 * waiting for them in the same lists, so mail an earlier run left halfway
 * moves on too. Each stage is the stage command's own work, with its own
 * locks and checkpoints, so a sync stopped anywhere resumes like the stages.
 */
export async function syncLists(
  store: Store,
  systems: Systems,
  options: SyncOptions,
  progress: ProgressListener,
): Promise<SyncResult> {
  const listIds = await selectListIds(store, { names: options.lists, system: options.system });
  const stopped = () => Boolean(options.signal?.aborted);

  // What fetch stages is labelled on its way in; the classify stage then finds only what that left staged.
  const arrivals = new ArrivalClassifier(store, systems, {
    workers: options.classifyWorkers,
    matchBudgetMs: options.matchBudgetMs,
    signal: options.signal,
  });
  // And drained right after, where the list allows: the drain stage then finds only what that left.
  const drainer = new ArrivalDrainer(store, { mirrorHandling: options.mirrorHandling, systems });
  let fetch: FetchResult;
  try {
    fetch = await runStage('fetch', progress, options.signal, (stageProgress) =>
      fetchLists(
        store,
        systems,
        {
          ...options,
          lists: options.lists,
          system: options.system,
          workers: options.workers,
          signal: options.signal,
          arrivals,
          drainer,
        },
        stageProgress,
      ),
    );
  } finally {
    await arrivals.close();
  }
  const result: SyncResult = { fetch, failed: fetch.totals.failed, interrupted: fetch.interrupted };
  // What was drained on arrival is reported whether or not the drain stage runs.
  const drainedOnArrival = drainer.results();
  if (drainedOnArrival.size > 0) result.drain = drainResultOf([], drainedOnArrival, stopped());
  // Stopped in fetch, the classify stage labels nothing, but it still reports what was labelled on arrival.
  if (stopped() && arrivals.results().lists.size === 0) return { ...result, interrupted: true };

  result.classify = await runStage('classify', progress, options.signal, (stageProgress) =>
    classifyStaged(
      store,
      systems,
      {
        lists: options.lists,
        system: options.system,
        workers: options.classifyWorkers,
        maxMessageBytes: options.maxMessageBytes,
        matchBudgetMs: options.matchBudgetMs,
        signal: options.signal,
        arrived: arrivals.results(),
      },
      stageProgress,
    ),
  );
  if (stopped()) return { ...result, interrupted: true };

  result.drain = await runStage('drain', progress, options.signal, (stageProgress) =>
    drainLists(
      store,
      {
        listIds,
        workers: options.workers,
        mirrorHandling: options.mirrorHandling,
        systems,
        signal: options.signal,
        arrived: drainedOnArrival,
      },
      stageProgress,
    ),
  );
  result.failed += result.drain.lists.filter((list) => list.status === 'failed').length;
  if (stopped()) return { ...result, interrupted: true };

  result.project = await runStage('project', progress, options.signal, (stageProgress) =>
    projectLists(store, { listIds, workers: options.workers, systems, signal: options.signal }, stageProgress),
  );
  result.failed += result.project.lists.filter((list) => list.status === 'failed').length;
  return { ...result, interrupted: stopped() };
}

/** Runs one stage as a row of the view, its lists' rows under it (task ids and titles carry the stage). */
async function runStage<T extends { lists: readonly object[] }>(
  stage: SyncStage,
  progress: ProgressListener,
  signal: AbortSignal | undefined,
  work: (progress: ProgressListener) => Promise<T>,
): Promise<T> {
  const task = `sync:${stage}`;
  progress({ type: 'start', task, title: stage });
  try {
    const result = await work((event) => progress(inStage(stage, event)));
    // The stage's row says how its lists went: ✖ when one failed, skipped when a signal stopped it, never ✔ over either.
    const { lists } = result;
    const failed = lists.filter((list) => 'status' in list && list.status === 'failed').length;
    if (failed) progress({ type: 'end', task, status: 'failed', detail: `${failed} of ${lists.length} lists failed` });
    else if (signal?.aborted) progress({ type: 'end', task, status: 'skipped', detail: 'stopped by a signal' });
    else progress({ type: 'end', task, status: 'done' });
    return result;
  } catch (error) {
    progress({ type: 'end', task, status: 'failed', detail: error instanceof Error ? error.message : String(error) });
    throw error;
  }
}

function inStage(stage: SyncStage, event: ProgressEvent): ProgressEvent {
  if (event.type === 'log') return { ...event, message: `${stage}: ${event.message}` };
  if (event.type === 'start') return { ...event, task: `${stage}:${event.task}`, title: `${stage}  ${event.title}` };
  return { ...event, task: `${stage}:${event.task}` };
}
