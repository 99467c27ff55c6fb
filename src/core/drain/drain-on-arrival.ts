import type { MirrorHandling } from '../config/load-config.js';
import type { DrainCandidate } from '../store/drain-records.js';
import type { ListRecord } from '../store/list-records.js';
import type { ArrivedLabel, LabelProvenance, MessageToStage, StagedRow } from '../store/staging-records.js';
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
  /** The drain of the batch staged last, while fetch stages the next (PostgreSQL); settled when there is none. */
  draining: Promise<void>;
  /** Whether that drain is still running. */
  behind: boolean;
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
 *
 * Where the store runs two transactions at once (PostgreSQL), a batch is
 * drained on a connection of its own while fetch stages the next one, so
 * the server's work on the one overlaps listminer's on the other; batches
 * are still drained one at a time, in the order they were staged.
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
    if (open)
      this.lists.set(list.id, {
        list,
        repoId: list.repoId,
        context: this.run.contextOf(list),
        open: true,
        draining: Promise.resolve(),
        behind: false,
      });
  }

  /** Whether the list's next batch is to be drained as it is staged; its envelopes are then not written. */
  takes(listId: number): boolean {
    return this.lists.get(listId)?.open ?? false;
  }

  /**
   * Drains the rows fetch has just staged (`messages` as staged, `rows` the
   * rows written) when every one of them came labelled; otherwise the list's
   * mail waits for the drain stage from here on. A failure that is not the
   * database's leaves the batch to the drain stage, which reports it. Where
   * the store runs transactions at once, returns once the drain of the batch
   * before has ended (raising its database failure) and this one has begun.
   */
  async drain(
    listId: number,
    messages: readonly MessageToStage[],
    rows: readonly StagedRow[],
    provenance: LabelProvenance | undefined,
  ): Promise<void> {
    const arriving = this.lists.get(listId);
    if (!arriving) return;
    // What drain needs of each row, taken now: the batch's raw bytes are not held while its turn comes.
    const arrived = rows.map((row) => arrivedOf(row, messages[row.index]!));
    await arriving.draining;
    const draining = this.drainArrived(arriving, arrived, provenance);
    if (!this.store.db.capabilities.concurrentTransactions) return draining;
    // Behind until it ends, which is before the next batch's drain, awaiting it, goes on.
    arriving.behind = true;
    arriving.draining = draining.finally(() => (arriving.behind = false));
    // Held, not left unhandled: the next batch, or the end of the list's fetch, awaits it and raises its failure.
    void arriving.draining.catch(() => {});
  }

  /**
   * Whether a batch of the list is still being drained while fetch goes on
   * (PostgreSQL). Fetch then reads one batch ahead, not two: the batch being
   * drained is the one more held in memory.
   */
  behind(listId: number): boolean {
    return this.lists.get(listId)?.behind ?? false;
  }

  private async drainArrived(
    arriving: ArrivingList,
    arrived: readonly Arrived[],
    provenance: LabelProvenance | undefined,
  ): Promise<void> {
    if (!arriving.open) return;
    if (arrived.length === 0) {
      // Mail the list holds already: nothing to drain, but the lock is held on as fetch goes on.
      await this.store.locks.touch(arriving.list.id, 'drain', this.run.owner);
      return;
    }
    if (!provenance || arrived.some((row) => !row.label)) {
      arriving.open = false;
      return;
    }
    const batch = arrived.flatMap((row) => candidateOf(row, provenance));
    if (batch.length === 0) return;
    const outcome = this.outcomeOf(arriving.list);
    try {
      await this.run.drainBatch(arriving.list, arriving.repoId, arriving.context, batch, outcome, 'arrival');
    } catch (error) {
      if (error instanceof StoreFailure) throw error;
      arriving.open = false;
    }
  }

  /** After the list's fetch, however it ended: waits for the drain of its last batch, then gives its drain lock back. */
  async end(listId: number): Promise<void> {
    const arriving = this.lists.get(listId);
    if (!arriving) return;
    this.lists.delete(listId);
    try {
      await arriving.draining;
    } finally {
      await this.store.locks.release(listId, 'drain', this.run.owner);
    }
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

/** A staged row and what drain needs of the message staged in it: not its bytes, only their length. */
interface Arrived {
  row: StagedRow;
  messageId: string | null;
  contentHash: string;
  label: ArrivedLabel | undefined;
  size: number;
}

function arrivedOf(row: StagedRow, { messageId, contentHash, label, raw }: MessageToStage): Arrived {
  return { row, messageId, contentHash, label, size: raw.length };
}

/** A staged row as drain reads it from the store, its envelope parsed from the label's JSON; none for a row shunted on arrival. */
function candidateOf(
  { row, messageId, contentHash, label, size }: Arrived,
  provenance: LabelProvenance,
): DrainCandidate[] {
  if (!label || !('envelopeJson' in label)) return [];
  const { msgClass, source, captures } = label.classification;
  return [
    {
      id: row.id,
      messageKey: row.key,
      messageId,
      contentHash,
      status: 'classified',
      msgClass,
      classSource: source,
      captures,
      rulesHash: provenance.rulesHash,
      listminerVersion: provenance.listminerVersion,
      envelope: JSON.parse(label.envelopeJson) as unknown,
      size,
      storedRaw: null,
    },
  ];
}
