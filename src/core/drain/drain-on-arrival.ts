import type { MirrorHandling } from '../config/load-config.js';
import type { DrainCandidate } from '../store/drain-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { LabelProvenance, MessageToStage, StagedRow } from '../store/staging-records.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Store } from '../store/store.js';
import type { Systems } from '../systems/load-systems.js';
import { DrainRun, type ListContext, type ListDrainResult } from './drain-lists.js';

export interface ArrivalDrainOptions {
  mirrorHandling?: MirrorHandling;
  systems: Systems;
}

/** A list sync drains as fetch stages it. */
interface ArrivingList {
  list: ListRecord;
  repoId: number;
  context: ListContext;
  /** False once a batch could not be drained on arrival: the rest of the list's mail waits for the drain stage. */
  open: boolean;
}

/**
 * sync's drain of the mail fetch stages labelled (docs/drain.md, "In sync:
 * drained on arrival"). Each batch is drained right after the transaction
 * that stages it, from the labels and envelopes still in memory, so the
 * envelopes are never written, read back and deleted.
 *
 * Only where that leaves the store the drain stage would: the list has a
 * repo, no mail of it waits to be classified or drained before the new
 * mail, and this process holds its drain lock from the start of its fetch to
 * the end. From the first batch with a row staged unlabelled, the list's
 * mail waits for the drain stage, in staging order as always. A row staged
 * labelled but not drained here (a stop, a failure) has no envelope: the
 * drain stage reads it again from its raw bytes.
 */
export class ArrivalDrainer {
  private readonly run: DrainRun;
  private readonly lists = new Map<number, ArrivingList>();
  private readonly outcomes = new Map<number, ListDrainResult>();

  constructor(
    private readonly store: Store,
    options: ArrivalDrainOptions,
  ) {
    // Its progress is the fetch's: the drain stage reports the lists' figures (results()).
    this.run = new DrainRun(store, options, () => {});
  }

  /** Before the list is fetched: takes its drain lock when its mail can be drained on arrival. */
  async begin(list: ListRecord): Promise<void> {
    if (list.repoId === null) return;
    const { owner } = this.run;
    await this.store.locks.recoverDead('drain', owner);
    if (!(await this.store.locks.claim(list.id, 'drain', owner))) return;
    let open = false;
    try {
      // As the drain stage would first: mail drained under another mirror handling goes back to `classified`,
      // and then waits, with anything else waiting, for the drain stage.
      await this.run.applyMirrorHandling(list);
      open = !(await this.store.drain.hasWaiting(list.id));
    } finally {
      if (!open) await this.store.locks.release(list.id, 'drain', owner);
    }
    if (open) this.lists.set(list.id, { list, repoId: list.repoId, context: this.run.contextOf(list), open: true });
  }

  /** Whether the list's next batch is to be drained as it is staged; its envelopes are then not written. */
  takes(listId: number): boolean {
    return this.lists.get(listId)?.open ?? false;
  }

  /**
   * Drains the rows fetch has just staged (`messages` as staged, `rows` the
   * rows written) when every one of them came labelled; otherwise the list's
   * mail waits for the drain stage from here on. A failure that is not the
   * database's leaves the batch to the drain stage, which reports it.
   */
  async drain(
    listId: number,
    messages: readonly MessageToStage[],
    rows: readonly StagedRow[],
    provenance: LabelProvenance | undefined,
  ): Promise<void> {
    const arriving = this.lists.get(listId);
    if (!arriving?.open) return;
    if (rows.length === 0) {
      // Mail the list holds already: nothing to drain, but the lock is held on as fetch goes on.
      await this.store.locks.touch(listId, 'drain', this.run.owner);
      return;
    }
    if (!provenance || rows.some((row) => !messages[row.index]!.label)) {
      arriving.open = false;
      return;
    }
    const batch = rows.flatMap((row) => candidateOf(row, messages[row.index]!, provenance));
    if (batch.length === 0) return;
    const outcome = this.outcomeOf(arriving.list);
    try {
      await this.run.drainBatch(arriving.list, arriving.repoId, arriving.context, batch, outcome, 'arrival');
    } catch (error) {
      if (error instanceof StoreFailure) throw error;
      arriving.open = false;
    }
  }

  /** After the list's fetch, however it ended: gives its drain lock back. */
  async end(listId: number): Promise<void> {
    if (!this.lists.delete(listId)) return;
    await this.store.locks.release(listId, 'drain', this.run.owner);
  }

  /** What was drained, list by list (lists with nothing drained on arrival are absent). */
  results(): ReadonlyMap<number, ListDrainResult> {
    return this.outcomes;
  }

  private outcomeOf(list: ListRecord): ListDrainResult {
    let outcome = this.outcomes.get(list.id);
    if (!outcome) this.outcomes.set(list.id, (outcome = this.run.start(list)));
    return outcome;
  }
}

/** A staged row as drain reads it from the store, its envelope parsed from the label's JSON; none for a row shunted on arrival. */
function candidateOf(row: StagedRow, message: MessageToStage, provenance: LabelProvenance): DrainCandidate[] {
  const { label } = message;
  if (!label || !('envelopeJson' in label)) return [];
  const { msgClass, source, captures } = label.classification;
  return [
    {
      id: row.id,
      messageKey: row.key,
      messageId: message.messageId,
      contentHash: message.contentHash,
      status: 'classified',
      msgClass,
      classSource: source,
      captures,
      rulesHash: provenance.rulesHash,
      listminerVersion: provenance.listminerVersion,
      envelope: JSON.parse(label.envelopeJson) as unknown,
      size: message.raw.length,
      storedRaw: null,
    },
  ];
}
