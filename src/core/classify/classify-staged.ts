import { InputError } from '../errors.js';
import type { ProgressListener } from '../progress.js';
import type { ClassifyOutcome, ClassifySelection } from '../store/classify-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { StagedStatus } from '../store/staging-records.js';
import type { Store } from '../store/store.js';
import { requireSystem, type Systems } from '../systems/load-systems.js';
import { classifyMessage } from './classify-message.js';
import { loadRuleBook, type RuleBook } from './rule-set.js';

export interface ClassifyOptions {
  /** Only this list (its name or address). */
  list?: string;
  /** Label every stored message again (all but shunted ones), e.g. after the rules changed. */
  reclassify?: boolean;
  /** Try shunted messages again. */
  retryShunted?: boolean;
  batchSize?: number;
}

export interface ListClassifyResult {
  list: string;
  system: string;
  rules: string;
  classified: number;
  shunted: number;
  /** Under --reclassify: messages whose class is now different. */
  changed: number;
}

export interface ClassifyResult {
  classified: number;
  shunted: number;
  changed: number;
  /** Messages per class among those labelled in this run. */
  classes: Record<string, number>;
  lists: ListClassifyResult[];
}

const RECLASSIFY_STATUSES: readonly StagedStatus[] = ['staged', 'classified', 'drained', 'deferred'];

/**
 * The classify stage: every staged message without a class gets its
 * envelope and class. Reads and writes go in batches, one transaction per
 * batch, so a stopped run resumes where the store says and a second run
 * finds nothing new.
 */
export async function classifyStaged(store: Store, systems: Systems, options: ClassifyOptions, progress: ProgressListener): Promise<ClassifyResult> {
  const book = loadRuleBook(systems);
  const lists = await chooseLists(store, options.list);
  const statuses: StagedStatus[] = options.reclassify ? [...RECLASSIFY_STATUSES] : ['staged'];
  if (options.retryShunted) statuses.push('shunted');
  const result: ClassifyResult = { classified: 0, shunted: 0, changed: 0, classes: {}, lists: [] };
  for (const list of lists) {
    const outcome = await classifyList(store, systems, book, list, statuses, options.batchSize ?? 64, result.classes, progress);
    result.lists.push(outcome);
    result.classified += outcome.classified;
    result.shunted += outcome.shunted;
    result.changed += outcome.changed;
  }
  return result;
}

async function chooseLists(store: Store, name: string | undefined): Promise<ListRecord[]> {
  if (name === undefined) return store.lists.all();
  const found = await store.lists.find(name);
  if (found.length === 0) throw new InputError(`No list named "${name}" is registered.`, 'See `listminer lists ls` for the registered lists.');
  return found;
}

/** The rules a list's mail goes through: its own choice, else its system's. */
export function rulesSystemOf(systems: Systems, list: Pick<ListRecord, 'system' | 'rulesSystem'>): string {
  return list.rulesSystem ?? requireSystem(systems, list.system).rulesFrom;
}

async function classifyList(
  store: Store,
  systems: Systems,
  book: RuleBook,
  list: ListRecord,
  statuses: readonly StagedStatus[],
  batchSize: number,
  classes: Record<string, number>,
  progress: ProgressListener,
): Promise<ListClassifyResult> {
  const rulesName = rulesSystemOf(systems, list);
  const rules = book.rulesOf(rulesName);
  const context = { listId: list.listId, listAddress: list.listAddress };
  const selection: ClassifySelection = { listId: list.id, statuses };
  const task = `list-${list.id}`;
  const outcome: ListClassifyResult = { list: list.name, system: list.system, rules: rulesName, classified: 0, shunted: 0, changed: 0 };
  const total = await store.classify.count(selection);
  if (total === 0) return outcome;
  progress({ type: 'start', task, title: `${list.system} ${list.name}`, total });
  let afterId = 0;
  let done = 0;
  for (;;) {
    const batch = await store.classify.nextBatch(selection, afterId, batchSize);
    if (batch.length === 0) break;
    afterId = batch[batch.length - 1]!.id;
    const outcomes: ClassifyOutcome[] = [];
    for (const message of batch) {
      const verdict = await classifyMessage(message.raw, rules, context);
      if ('error' in verdict) {
        // A message already drained keeps its labels: a parse that fails now never blocks what was stored.
        if (message.status === 'staged' || message.status === 'shunted') outcomes.push({ id: message.id, status: message.status, error: verdict.error });
        continue;
      }
      outcomes.push({ id: message.id, status: message.status, ...verdict });
    }
    await store.classify.save(outcomes);
    const before = new Map(batch.map((m) => [m.id, m.msgClass]));
    for (const saved of outcomes) {
      if ('error' in saved) {
        outcome.shunted++;
        continue;
      }
      outcome.classified++;
      const cls = saved.classification.msgClass;
      classes[cls] = (classes[cls] ?? 0) + 1;
      const previous = before.get(saved.id);
      if (previous && previous !== cls) outcome.changed++;
    }
    done += batch.length;
    progress({ type: 'update', task, done, total, detail: `${outcome.classified} classified, ${outcome.shunted} shunted` });
  }
  progress({ type: 'end', task, status: 'done', detail: `${outcome.classified} classified, ${outcome.shunted} shunted${outcome.changed ? `, ${outcome.changed} changed class` : ''}` });
  return outcome;
}
