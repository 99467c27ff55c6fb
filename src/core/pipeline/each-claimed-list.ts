import type { LockOwner } from '../locks/lock-owner.js';
import type { ProgressListener } from '../progress.js';
import type { ListRecord } from '../store/list-records.js';
import type { LockedStage } from '../store/lock-records.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Store } from '../store/store.js';

/** What every per-list stage reports of a list. */
export interface ClaimedListResult {
  listId: number;
  /** The stage's own outcomes, and `busy` (another process holds the list), `failed` (see error), `interrupted` (a signal). */
  status: string;
  error?: string;
}

/** One line per list that failed in a per-list stage (drain, project): the list, the stage, the reason. */
export function describeStageFailures(
  stage: string,
  lists: ReadonlyArray<{ system: string; name: string; status: string; error?: string }>,
): string[] {
  return lists
    .filter((list) => list.status === 'failed')
    .map((list) => `${list.system} ${list.name}: ${stage} failed: ${list.error ?? 'no reason given'}`);
}

/** A stage that writes a list with one writer at a time. */
export interface ListStage<R extends ClaimedListResult> {
  stage: LockedStage;
  /** The list's result before any work (counts at zero). */
  start(list: ListRecord): R;
  /** The list's work, lock held: fills `result` (its status `interrupted` when the signal stopped it) and gives the progress row's last words. */
  work(list: ListRecord, result: R, task: string): Promise<string>;
}

export interface EachClaimedListOptions {
  owner: LockOwner;
  /** Lists worked on at once; never one list twice. */
  workers?: number;
  /** Aborted: no further list is taken. */
  signal?: AbortSignal;
}

/**
 * Works on lists `workers` at a time, one writer per list and stage: takes
 * the list's lock for the stage (a list another process holds is `busy`),
 * runs the work under a progress row, and releases the lock however the work
 * ended. A failure of one list is that list's result and the others go on; a
 * database failure stops the run. Results come in list id order.
 */
export async function eachClaimedList<R extends ClaimedListResult>(
  store: Store,
  listIds: readonly number[],
  stage: ListStage<R>,
  options: EachClaimedListOptions,
  progress: ProgressListener,
): Promise<R[]> {
  const queue = [...listIds];
  const results: R[] = [];
  // Once for every list, those with no work included: a dead holder's lock goes even where nothing needs the list now.
  await store.locks.recoverDead(stage.stage, options.owner);
  const claimAndWork = async (listId: number): Promise<R | undefined> => {
    const list = await store.lists.byId(listId);
    if (!list) return undefined;
    const result = stage.start(list);
    await store.locks.recoverDead(stage.stage, options.owner);
    if (!(await store.locks.claim(listId, stage.stage, options.owner))) {
      // Removed since it was read (`lists rm` beside this run): nothing of it is left to work on.
      if (!(await store.lists.byId(listId))) return undefined;
      progress({
        type: 'log',
        level: 'warn',
        message: `${list.name}: another ${stage.stage} holds this list; skipped`,
      });
      return { ...result, status: 'busy' };
    }
    const task = `list-${listId}`;
    progress({ type: 'start', task, title: `${list.system} ${list.name}` });
    try {
      const detail = await stage.work(list, result, task);
      progress({ type: 'end', task, status: result.status === 'interrupted' ? 'skipped' : 'done', detail });
    } catch (error) {
      // The database failing stops the run (a sentence, exit 1); the list keeps its mail.
      if (error instanceof StoreFailure) throw error;
      result.status = 'failed';
      result.error = (error as Error).message;
      progress({ type: 'end', task, status: 'failed', detail: result.error });
    } finally {
      await store.locks.release(listId, stage.stage, options.owner);
    }
    return result;
  };
  const worker = async () => {
    for (let listId = queue.shift(); listId !== undefined && !options.signal?.aborted; listId = queue.shift()) {
      const result = await claimAndWork(listId);
      if (result) results.push(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, options.workers ?? 1) }, worker));
  return results.sort((a, b) => a.listId - b.listId);
}
