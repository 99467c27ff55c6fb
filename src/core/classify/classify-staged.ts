import { availableParallelism } from 'node:os';
import { BATCH_BYTES, BATCH_MESSAGES } from '../pipeline/batch-bytes.js';
import type { ProgressListener } from '../progress.js';
import type { ClassifyOutcome, ClassifySelection, MessageToClassify, ProvenLabel } from '../store/classify-records.js';
import { LISTMINER_VERSION } from '../listminer-version.js';
import { selectLists } from '../registry/select-lists.js';
import type { ListRecord } from '../store/list-records.js';
import { sameJson } from '../store/row-mapping.js';
import type { LabelProvenance, StagedStatus, StoredLabel } from '../store/staging-records.js';
import type { Store } from '../store/store.js';
import { StoreFailure } from '../store/store-failure.js';
import type { TableStatistics } from '../store/table-statistics.js';
import { requireSystem, type Systems } from '../systems/load-systems.js';
import { DEFAULT_MAX_MESSAGE_BYTES } from '../config/load-config.js';
import { overlapBatches } from '../pipeline/overlap-batches.js';
import { tooLargeReason } from '../pipeline/too-large-reason.js';
import { classifyMessages, toStoredVerdict, type StoredVerdict } from './classify-message.js';
import { MATCH_BUDGET_MS } from './match-within-budget.js';
import { ClassifyPool } from './classify-pool.js';
import { loadRuleBook, type ListContext, type RuleBook } from './rule-set.js';

export interface ClassifyOptions {
  /** Only these lists (name, address or path). */
  lists?: readonly string[];
  /** The system of `lists`, when a name is registered in more than one. */
  system?: string;
  /** Label every stored message again (all but shunted ones), e.g. after the rules changed. */
  reclassify?: boolean;
  /** Try shunted messages again. */
  retryShunted?: boolean;
  /** Messages read, parsed and written together (one transaction): at most this many… */
  batchSize?: number;
  /** …and no more raw bytes than this, unless one message alone is larger. */
  batchBytes?: number;
  /** Aborting stops the run after the batch being written; the rest stays for the next run. */
  signal?: AbortSignal;
  /** Worker threads that parse (1: parse on the main thread); a CPU's worth but one, at most 8, when absent. Needs the systems file on disk. */
  workers?: number;
  /** A message larger than this is shunted unparsed, its bytes never read (the config's max_message_bytes). */
  maxMessageBytes?: number;
  /** Milliseconds the rules may take over one message before it is shunted (2,000 when absent). */
  matchBudgetMs?: number;
  /** Label and count as a run would, and write nothing: the report says what the run would change. */
  dryRun?: boolean;
  /** What sync labelled as fetch staged it (classify-on-arrival.ts): counted into this run's result. */
  arrived?: ArrivedResults;
}

/** Labels already saved by the run this stage belongs to: each list's counts, by its id, and the classes. */
export interface ArrivedResults {
  lists: ReadonlyMap<number, ListClassifyResult>;
  classes: Record<string, number>;
}

export interface ListClassifyResult {
  list: string;
  system: string;
  rules: string;
  classified: number;
  shunted: number;
  /** Under --reclassify: messages whose class is now different. */
  changed: number;
  /** Labelled mail that could not be labelled again (it no longer parses, or its rules overran the budget): it keeps its label. */
  kept: number;
  /** Messages another process moved on after this run read them (drained, labelled, relabelled): left as that process left them. */
  skipped: number;
}

/** How many messages went from one class to another: a rule change never re-labels stored mail silently. */
export interface ClassChange {
  from: string;
  to: string;
  count: number;
}

export interface ClassifyResult {
  /** The rules (sha256 of the systems file's text) and the listminer every label of this run records. */
  provenance: LabelProvenance;
  /** Nothing was written (--dry-run): the figures say what a run would do. */
  dryRun: boolean;
  classified: number;
  shunted: number;
  changed: number;
  kept: number;
  skipped: number;
  /** Under --reclassify: the changes of class, most frequent first. */
  changes: ClassChange[];
  /** Messages per class among those labelled in this run. */
  classes: Record<string, number>;
  lists: ListClassifyResult[];
  /** A signal stopped the run before it ran out of mail. */
  interrupted: boolean;
}

const RECLASSIFY_STATUSES: readonly StagedStatus[] = ['staged', 'classified', 'drained', 'deferred'];

/** Below this many messages to label, a run parses on the main thread. */
export const WORKERS_FROM_MESSAGES = 2000;

/**
 * Threads that parse: one per CPU (at most 8), the main thread among them,
 * which parses a batch whenever every worker is busy and writes the store
 * in between. Only the main thread on 2 CPUs: there the second thread made
 * classify about a fifth faster but put `sync`'s peak RSS over 300 MB
 * (about 320 against 280; with V8's heap growth capped, 332 against 249 at
 * 1,000,000 messages, docs/performance.md); `--workers 2` asks for it.
 * Only the main thread for a small run too, where starting a worker costs
 * as much as parsing a few hundred messages.
 */
async function defaultWorkers(
  store: Store,
  lists: readonly ListRecord[],
  statuses: readonly StagedStatus[],
): Promise<number> {
  const cpus = availableParallelism();
  if (cpus <= 2) return 1;
  let pending = 0;
  for (const list of lists) pending += await store.classify.count({ listId: list.id, statuses });
  return pending >= WORKERS_FROM_MESSAGES ? Math.min(8, cpus) : 1;
}

/**
 * The classify stage: every staged message without a class gets its
 * envelope and class. Reads and writes go in batches, one transaction per
 * batch, so a stopped run resumes where the store says and a second run
 * finds nothing new. With workers, several batches are parsed at once while
 * the main thread writes the finished ones in order.
 */
export async function classifyStaged(
  store: Store,
  systems: Systems,
  options: ClassifyOptions,
  progress: ProgressListener,
): Promise<ClassifyResult> {
  const book = loadRuleBook(systems);
  const lists = await selectLists(store, { names: options.lists, system: options.system });
  const statuses: StagedStatus[] = options.reclassify ? [...RECLASSIFY_STATUSES] : ['staged'];
  if (options.retryShunted) statuses.push('shunted');
  const provenance: LabelProvenance = { rulesHash: systems.rulesHash, listminerVersion: LISTMINER_VERSION };
  const dryRun = options.dryRun ?? false;
  const result: ClassifyResult = {
    provenance,
    dryRun,
    classified: 0,
    shunted: 0,
    changed: 0,
    kept: 0,
    skipped: 0,
    changes: [],
    classes: { ...options.arrived?.classes },
    lists: [],
    interrupted: false,
  };
  const changes = new Map<string, ClassChange>();
  // A run stopped before it began (sync stopped in fetch) only reports: no thread to start.
  const workers = options.signal?.aborted ? 1 : (options.workers ?? (await defaultWorkers(store, lists, statuses)));
  const budgetMs = options.matchBudgetMs ?? MATCH_BUDGET_MS;
  const pool = ClassifyPool.start(workers - 1, { systemsFile: systems.file, budgetMs });
  const statistics = store.staging.statistics();
  try {
    for (const list of lists) {
      if (options.signal?.aborted) {
        // Stopped before this list: what sync labelled in it on arrival is still this run's.
        const arrived = options.arrived?.lists.get(list.id);
        if (arrived) count(result, arrived);
        continue;
      }
      const outcome = await classifyList({
        store,
        systems,
        book,
        pool,
        list,
        statuses,
        batchSize: options.batchSize ?? BATCH_MESSAGES,
        batchBytes: options.batchBytes ?? BATCH_BYTES,
        maxMessageBytes: options.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES,
        signal: options.signal,
        classes: result.classes,
        changes,
        statistics,
        budgetMs,
        provenance,
        dryRun,
        arrived: options.arrived?.lists,
        progress,
      });
      count(result, outcome);
    }
  } finally {
    await pool?.close();
  }
  result.changes = [...changes.values()].sort(
    (a, b) => b.count - a.count || a.from.localeCompare(b.from) || a.to.localeCompare(b.to),
  );
  result.interrupted = Boolean(options.signal?.aborted);
  return result;
}

/** The rules a list's mail goes through: its own choice, else its system's. */
export function rulesSystemOf(systems: Systems, list: Pick<ListRecord, 'system' | 'rulesSystem'>): string {
  return list.rulesSystem ?? requireSystem(systems, list.system).rulesFrom;
}

/** A batch read for classifying, with its raw bytes counted. */
interface ReadBatch {
  batch: MessageToClassify[];
  bytes: number;
}

interface ListRun {
  store: Store;
  systems: Systems;
  book: RuleBook;
  pool: ClassifyPool | undefined;
  list: ListRecord;
  statuses: readonly StagedStatus[];
  batchSize: number;
  batchBytes: number;
  maxMessageBytes: number;
  signal: AbortSignal | undefined;
  classes: Record<string, number>;
  changes: Map<string, ClassChange>;
  /** The run's count of rows labelled or shunted, for PostgreSQL's statistics of staged_messages: one for all the lists of a run. */
  statistics: TableStatistics;
  budgetMs: number;
  provenance: LabelProvenance;
  dryRun: boolean;
  arrived: ReadonlyMap<number, ListClassifyResult> | undefined;
  progress: ProgressListener;
}

async function classifyList(run: ListRun): Promise<ListClassifyResult> {
  const { store, list, pool, progress } = run;
  const rulesName = rulesSystemOf(run.systems, list);
  const rules = run.book.rulesOf(rulesName);
  const context: ListContext = { listId: list.listId, listAddress: list.listAddress };
  const selection: ClassifySelection = { listId: list.id, statuses: run.statuses, maxSize: run.maxMessageBytes };
  const task = `list-${list.id}`;
  const outcome = listOutcome(list, rulesName, run.arrived?.get(list.id));
  // Parsing a message costs several times its size (a 200 MB one took 1.5 GB): one over the cap is shunted from its size alone.
  const tooLarge = await store.classify.tooLarge(list.id, run.statuses, run.maxMessageBytes);
  if (tooLarge.length > 0) {
    const shunts = tooLarge.map((m) => ({
      id: m.id,
      status: m.status,
      error: tooLargeReason(m.size, run.maxMessageBytes),
    }));
    outcome.shunted += run.dryRun ? shunts.length : (await store.classify.save(shunts, run.provenance)).size;
  }
  const total = await store.classify.count(selection);
  if (total === 0) return outcome;
  progress({ type: 'start', task, title: `${list.system} ${list.name}`, total });

  const judge = (batch: MessageToClassify[]) =>
    judgeBatch(
      pool,
      { rulesName, rules, context, budgetMs: run.budgetMs, signal: run.signal },
      batch.map((m) => m.raw),
    );
  // Batches in flight: one per worker and one for the main thread, and never
  // more than a batch's worth of raw bytes waiting beyond the first.
  let done = 0;
  await overlapBatches({
    read: async (previous: ReadBatch | undefined) => {
      const batch = await store.classify.nextBatch(
        selection,
        previous?.batch.at(-1)!.id ?? 0,
        run.batchSize,
        run.batchBytes,
      );
      return batch.length > 0 ? { batch, bytes: batch.reduce((sum, m) => sum + m.raw.length, 0) } : undefined; // bytes before the pool takes the buffers over
    },
    // A stop does not wait for a worker minutes into a batch: the batch stays staged; the pool's workers are stopped on the way out.
    prepare: ({ batch }) => untilAborted(judge(batch), run.signal),
    write: async ({ batch }, verdicts) => {
      await saveBatch(store, batch, verdicts, outcome, run);
      done += batch.length;
      progress({
        type: 'update',
        task,
        done,
        total,
        detail: `${outcome.classified} classified, ${outcome.shunted} shunted`,
      });
    },
    depth: (pool?.size ?? 0) + 1,
    roomFor: (waiting) => waiting.reduce((sum, entry) => sum + entry.bytes, 0) < run.batchBytes,
    signal: run.signal,
  });
  const stopped = run.signal?.aborted ? `, stopped after ${done} of ${total}` : '';
  progress({
    type: 'end',
    task,
    status: run.signal?.aborted ? 'skipped' : 'done',
    detail: `${outcome.classified} classified, ${outcome.shunted} shunted${outcome.changed ? `, ${outcome.changed} changed class` : ''}${aside(outcome)}${stopped}`,
  });
  return outcome;
}

/** What a run left as it was, when it left anything: labels it could not renew, rows another process had moved on. */
export function aside({ kept, skipped }: Pick<ListClassifyResult, 'kept' | 'skipped'>): string {
  return (
    (kept ? `, ${kept} kept their labels (not labelled again: see classify --explain)` : '') +
    (skipped ? `, ${skipped} left as another process had just written them (run again to label them)` : '')
  );
}

/** Adds a list's outcome to the run's. */
function count(result: ClassifyResult, outcome: ListClassifyResult): void {
  result.lists.push(outcome);
  result.classified += outcome.classified;
  result.shunted += outcome.shunted;
  result.changed += outcome.changed;
  result.kept += outcome.kept;
  result.skipped += outcome.skipped;
}

/** A list's counts for a run: from those given (what sync labelled on arrival), else from nothing. */
export function listOutcome(
  list: ListRecord,
  rules: string,
  from?: Pick<ListClassifyResult, 'classified' | 'shunted' | 'changed'>,
): ListClassifyResult {
  return {
    list: list.name,
    system: list.system,
    rules,
    classified: from?.classified ?? 0,
    shunted: from?.shunted ?? 0,
    changed: from?.changed ?? 0,
    kept: 0,
    skipped: 0,
  };
}

/** Whose rules a batch of one list goes through, and how long they may take over a message. */
export interface ListRules {
  rulesName: string;
  rules: ReturnType<RuleBook['rulesOf']>;
  context: ListContext;
  budgetMs: number;
  signal: AbortSignal | undefined;
}

/**
 * Parses and labels a batch of one list's raw messages: on a free worker,
 * which may take the buffers over, else on the main thread between its writes.
 */
export function judgeBatch(
  pool: ClassifyPool | undefined,
  { rulesName, rules, context, budgetMs, signal }: ListRules,
  raws: Buffer[],
): Promise<StoredVerdict[]> {
  if (pool?.hasIdleWorker) return pool.classify(rulesName, context, raws);
  return classifyMessages(raws, rules, { list: context, budgetMs, signal }, toStoredVerdict);
}

/** What saveBatch counts into: the run's classes and changes of class, its statistics of staged_messages, its provenance. */
export type SaveTally = Pick<ListRun, 'classes' | 'changes' | 'statistics' | 'provenance' | 'dryRun'>;

/** Saves a batch's verdicts (writeOutcomes) and counts what this run wrote into `outcome` and the tally. */
export async function saveBatch(
  store: Store,
  batch: MessageToClassify[],
  verdicts: StoredVerdict[],
  outcome: ListClassifyResult,
  { classes, changes, statistics, provenance, dryRun }: SaveTally,
): Promise<void> {
  const outcomes: ClassifyOutcome[] = [];
  batch.forEach((message, index) => {
    const verdict = verdicts[index]!;
    if ('error' in verdict) {
      // A message already drained keeps its labels: a parse that fails now never undoes what was stored.
      if (message.status === 'staged' || message.status === 'shunted')
        outcomes.push({ id: message.id, status: message.status, error: verdict.error });
      else outcome.kept++;
      return;
    }
    const replaces =
      message.label && !sameLabel(message.label, verdict.classification)
        ? { ...message.label, listId: message.listId, messageKey: message.messageKey }
        : undefined;
    outcomes.push({ id: message.id, status: message.status, ...verdict, ...(replaces ? { replaces } : {}) });
  });
  // Only what this run wrote counts: a second classify may have labelled a row first. A dry run counts what it would write.
  const { written, saved: savedOutcomes } = dryRun
    ? { written: new Set(outcomes.map((o) => o.id)), saved: outcomes }
    : await writeOutcomes(store, outcomes, provenance);
  const before = new Map(batch.map((m) => [m.id, m.msgClass]));
  for (const saved of savedOutcomes) {
    if (!written.has(saved.id)) {
      outcome.skipped++;
      continue;
    }
    const cls = countSaved(outcome, classes, saved);
    const previous = before.get(saved.id);
    if (cls !== undefined && previous && previous !== cls) {
      outcome.changed++;
      const key = `${previous}\u0000${cls}`;
      const change = changes.get(key) ?? { from: previous, to: cls, count: 0 };
      change.count++;
      changes.set(key, change);
    }
  }
  if (!dryRun) await statistics.grew(written.size);
}

/** Counts a label or shunt written into the list's figures and the run's classes; the class, for a label. */
export function countSaved(
  outcome: ListClassifyResult,
  classes: Record<string, number>,
  saved: { error: string } | { classification: StoredLabel },
): string | undefined {
  if ('error' in saved) {
    outcome.shunted++;
    return undefined;
  }
  outcome.classified++;
  const cls = saved.classification.msgClass;
  classes[cls] = (classes[cls] ?? 0) + 1;
  return cls;
}

/**
 * A label is replaced (and goes to label_history) when its class, its rule
 * or its captures change. The same label from other rules only takes the new
 * provenance: a history row per message per edit of the rules would record
 * nothing a figure depends on.
 */
function sameLabel(old: ProvenLabel, label: StoredLabel): boolean {
  return old.msgClass === label.msgClass && old.source === label.source && sameJson(old.captures, label.captures);
}

/**
 * One transaction for the batch; when the database refuses it, message by
 * message, and a message whose row is refused (PostgreSQL refusing a value
 * in its captures, say) is shunted with the reason, so one message never
 * keeps a list's mail staged. Mail already labelled keeps its labels, as
 * when it no longer parses. The database itself failing shunts nothing.
 */
async function writeOutcomes(
  store: Store,
  outcomes: ClassifyOutcome[],
  provenance: LabelProvenance,
): Promise<{ written: Set<number>; saved: ClassifyOutcome[] }> {
  try {
    return { written: await store.classify.save(outcomes, provenance), saved: outcomes };
  } catch (error) {
    if (error instanceof StoreFailure) throw error;
  }
  const written = new Set<number>();
  const saved: ClassifyOutcome[] = [];
  for (const outcome of outcomes) {
    try {
      for (const id of await store.classify.save([outcome], provenance)) written.add(id);
      saved.push(outcome);
    } catch (error) {
      if (error instanceof StoreFailure) throw error;
      if (!(await store.reachable())) throw error;
      if (outcome.status !== 'staged' && outcome.status !== 'shunted') continue;
      const shunt: ClassifyOutcome = {
        id: outcome.id,
        status: outcome.status,
        error: `classify: the database refused the message's row: ${storableText((error as Error).message)}`,
      };
      for (const id of await store.classify.save([shunt], provenance)) written.add(id);
      saved.push(shunt);
    }
  }
  return { written, saved };
}

/** An error text any engine stores: no NUL, no lone surrogate. */
function storableText(text: string): string {
  return text.replace(/\u0000|\p{Cs}/gu, '\uFFFD');
}

/** The promise, or a rejection as soon as the signal stops the run (a worker may be minutes into a batch). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    if (signal.aborted) stop();
    else signal.addEventListener('abort', stop, { once: true });
    // Handled however it ends, even after a stop settled this promise: the batch's own failure is never left unhandled.
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}
