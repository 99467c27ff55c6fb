import { availableParallelism } from 'node:os';
import { LISTMINER_VERSION } from '../listminer-version.js';
import type { ListRecord } from '../store/list-records.js';
import type { LabelProvenance, MessageToStage, StagedRow } from '../store/staging-records.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Store } from '../store/store.js';
import type { Systems } from '../systems/load-systems.js';
import type { StoredVerdict } from './classify-message.js';
import { ClassifyPool } from './classify-pool.js';
import {
  countSaved,
  judgeBatch,
  listOutcome,
  rulesSystemOf,
  saveBatch,
  untilAborted,
  WORKERS_FROM_MESSAGES,
  type ListClassifyResult,
  type ListRules,
  type SaveTally,
} from './classify-staged.js';
import { MATCH_BUDGET_MS } from './match-within-budget.js';
import { loadRuleBook, type RuleBook } from './rule-set.js';

/**
 * The parsing thread's young generation in sync: half classify's. Its main
 * thread stages and drains each batch and is the slower of the two, so the
 * worker's extra collections cost no time, and the 5 MB it saves keep the
 * peak, which comes in fetch with the drain's memory beside the worker's,
 * under 300 MB (docs/performance.md, "sync drains each batch as it is staged").
 * In the classify stage, where the worker is the slower, 4 MB cost 5%.
 */
const ARRIVAL_YOUNG_GENERATION_MB = 4;

/** A batch's verdicts, by the message's place in the batch; the messages left out stay staged. */
export type ArrivalVerdicts = Map<number, StoredVerdict>;

export interface ArrivalOptions {
  /** Threads that parse, the main thread among them: 2 when absent and the machine has a second CPU, else 1. */
  workers?: number;
  matchBudgetMs?: number;
  signal?: AbortSignal;
}

/**
 * sync's classify of the mail fetch hands it (docs/classify.md, "In sync:
 * labelled on arrival"). Each batch fetch reads is parsed and labelled while
 * fetch reads and writes the batches around it, on a worker thread once the
 * run is large enough to pay for one, and fetch stages each message with its
 * label, its row written once. This spares classify reading back and
 * inflating every message fetch has just compressed, and puts the parsing
 * on a second core.
 *
 * It labels a list's mail only while no mail of the list waits unlabelled
 * below it: classify labels a list's rows in id order, and verify counts a
 * row left `staged` below a labelled one as passed over (docs/verify.md,
 * "no-stuck-mail"). A list that holds `staged` mail when the run first
 * reaches it (a fetch without sync before, a classify stopped), or whose
 * batch this run could not label, is left to the classify stage for the
 * rest of the run.
 *
 * Nothing depends on it: a message it did not label (one another process
 * stored first, a copy fetch compares byte by byte with the one held under
 * its Message-ID, a batch whose parsing failed or was cut short by a stop,
 * a batch the database refused with its labels and whose labelling after
 * was stopped) stays staged, and the classify stage that follows in sync
 * labels it as any other.
 */
export class ArrivalClassifier {
  private readonly book: RuleBook;
  private readonly tally: SaveTally;
  private readonly outcomes = new Map<number, ListClassifyResult>();
  private readonly budgetMs: number;
  private readonly threads: number;
  private pool: ClassifyPool | undefined;
  private judged = 0;
  /** Lists whose mail is labelled on arrival in this run, or not, once looked at (see the class comment). */
  private readonly labelling = new Map<number, boolean>();

  constructor(
    private readonly store: Store,
    private readonly systems: Systems,
    private readonly options: ArrivalOptions = {},
  ) {
    this.book = loadRuleBook(systems);
    this.budgetMs = options.matchBudgetMs ?? MATCH_BUDGET_MS;
    // fetch keeps the main thread busy reading and writing: the parsing goes to a worker wherever there is a second CPU.
    // One is enough: fetch holds two batches at most beyond the one it writes.
    this.threads = options.workers ?? Math.min(2, availableParallelism());
    this.tally = {
      classes: {},
      // New rows have no label to change from: nothing is counted here.
      changes: new Map(),
      statistics: store.staging.statistics(),
      provenance: { rulesHash: systems.rulesHash, listminerVersion: LISTMINER_VERSION },
      dryRun: false,
    };
  }

  /**
   * Labels the messages of a batch fetch will stage: those the store does
   * not hold already and not too large to parse. Undefined when there are
   * none, or when the parsing failed or a stop cut it short (the classify
   * stage will see to them); the database failing is raised.
   */
  async judge(list: ListRecord, messages: readonly MessageToStage[]): Promise<ArrivalVerdicts | undefined> {
    let open = this.labelling.get(list.id);
    if (open === undefined) {
      open = !(await this.store.staging.hasUnlabelled(list.id));
      this.labelling.set(list.id, open);
    }
    if (!open) return undefined;
    try {
      const fresh = (await this.store.staging.unstored(list.id, messages)).filter(
        (index) => messages[index]!.shunt === undefined,
      );
      if (fresh.length === 0) return undefined;
      this.startPoolWhenDue(fresh.length);
      const raws = fresh.map((index) => messages[index]!.raw);
      const rules = this.rulesOf(list);
      // The main thread has fetch's work: with a pool, every batch waits for a worker. fetch
      // compresses and stores the same buffers after this, so they are copied there, never moved.
      const work = this.pool
        ? this.pool.classify(rules.rulesName, rules.context, raws, false)
        : judgeBatch(undefined, rules, raws);
      const verdicts = await untilAborted(work, this.options.signal);
      return new Map(fresh.map((index, at) => [index, verdicts[at]!]));
    } catch (error) {
      if (error instanceof StoreFailure) throw error;
      // This batch is staged unlabelled: later ones are left to the classify stage too, which takes them in order.
      this.labelling.set(list.id, false);
      return undefined;
    }
  }

  /** The batch's messages with the labels made of them, for fetch to stage labelled, with the provenance to write. */
  labelled(
    messages: readonly MessageToStage[],
    verdicts: ArrivalVerdicts,
  ): { messages: MessageToStage[]; provenance: LabelProvenance } {
    return {
      messages: messages.map((message, index) => {
        const label = verdicts.get(index);
        return label ? { ...message, label } : message;
      }),
      provenance: this.tally.provenance,
    };
  }

  /** Counts the labels fetch staged with their rows (`labelled`). */
  staged(list: ListRecord, messages: readonly MessageToStage[], rows: readonly StagedRow[]): void {
    const outcome = this.outcomeOf(list);
    for (const { index } of rows) {
      const { label } = messages[index]!;
      if (label) countSaved(outcome, this.tally.classes, label);
    }
  }

  /**
   * Saves the verdicts of rows fetch has just staged without them, through
   * the classify stage's own save: when the database refused the batch
   * written labelled, this finds the message it refused and shunts it.
   */
  async save(
    list: ListRecord,
    messages: readonly MessageToStage[],
    rows: readonly StagedRow[],
    verdicts: ArrivalVerdicts,
  ): Promise<void> {
    const batch = [];
    const judged: StoredVerdict[] = [];
    for (const row of rows) {
      const verdict = verdicts.get(row.index);
      if (!verdict) continue;
      const { raw } = messages[row.index]!;
      batch.push({
        id: row.id,
        listId: list.id,
        messageKey: row.key,
        raw,
        status: 'staged' as const,
        msgClass: null,
        label: null,
      });
      judged.push(verdict);
    }
    if (batch.length > 0) await saveBatch(this.store, batch, judged, this.outcomeOf(list), this.tally);
  }

  /** What was labelled, list by list (the lists fetch staged nothing new for are absent), with the classes counted. */
  results(): { lists: ReadonlyMap<number, ListClassifyResult>; classes: Record<string, number> } {
    return { lists: this.outcomes, classes: this.tally.classes };
  }

  async close(): Promise<void> {
    await this.pool?.close();
    this.pool = undefined;
  }

  /** A worker starts once the run has had as many messages as make one worth starting (as in the classify stage). */
  private startPoolWhenDue(messages: number): void {
    this.judged += messages;
    if (this.pool || this.threads < 2 || this.judged < WORKERS_FROM_MESSAGES) return;
    this.pool = ClassifyPool.start(
      this.threads - 1,
      { systemsFile: this.systems.file, budgetMs: this.budgetMs },
      ARRIVAL_YOUNG_GENERATION_MB,
    );
  }

  private rulesOf(list: ListRecord): ListRules {
    const rulesName = rulesSystemOf(this.systems, list);
    return {
      rulesName,
      rules: this.book.rulesOf(rulesName),
      context: { listId: list.listId, listAddress: list.listAddress },
      budgetMs: this.budgetMs,
      signal: this.options.signal,
    };
  }

  private outcomeOf(list: ListRecord): ListClassifyResult {
    let outcome = this.outcomes.get(list.id);
    if (!outcome) this.outcomes.set(list.id, (outcome = listOutcome(list, rulesSystemOf(this.systems, list))));
    return outcome;
  }
}
