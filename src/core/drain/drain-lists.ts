import { hash } from 'node:crypto';
import { storableText } from '../classify/decode-text.js';
import { isMirrorClass, isPlausibleSentAt, MIRROR_CLASSES, type Envelope } from '../classify/envelope.js';
import type { MirrorHandling } from '../config/load-config.js';
import type { ProgressListener } from '../progress.js';
import type { DrainCandidate, NewEmailMessage } from '../store/drain-records.js';
import type { ListRecord } from '../store/list-records.js';
import { StoreFailure } from '../store/store-failure.js';
import type { Store } from '../store/store.js';
import type { TableStatistics } from '../store/table-statistics.js';
import type { Systems } from '../systems/load-systems.js';
import { normalizeAddress } from '../classify/header-values.js';
import { isBotSender } from './is-bot-sender.js';
import { ListAddresses } from './list-addresses.js';
import { findSignaledRepoUrl } from './find-signaled-repo-url.js';
import { currentLockOwner } from '../locks/lock-owner.js';
import { BATCH_BYTES, BATCH_MESSAGES } from '../pipeline/batch-bytes.js';
import { eachClaimedList, type ListStage } from '../pipeline/each-claimed-list.js';
import { overlapBatches } from '../pipeline/overlap-batches.js';
import { repairThreadRoots } from './repair-thread-roots.js';
import { threadAncestors } from './thread-ancestors.js';

export interface DrainOptions {
  /** Only these lists (ids); all lists with classified mail when absent. */
  listIds?: number[];
  /** Lists drained at once; never one list twice. */
  workers?: number;
  mirrorHandling?: MirrorHandling;
  systems: Systems;
  batchSize?: number;
  /** Aborting stops the run after the batch being written; locks are released, the rest waits for the next run. */
  signal?: AbortSignal;
  /** sync's: what was drained as fetch staged it (drain-on-arrival.ts), counted in with what this run drains. */
  arrived?: ReadonlyMap<number, ListDrainResult>;
}

export type ListDrainStatus = 'drained' | 'deferred' | 'busy' | 'failed' | 'interrupted';

export interface ListDrainResult {
  listId: number;
  system: string;
  name: string;
  /** drained: mail moved; deferred: the list has no repo; busy: another process holds the list; failed: see error. */
  status: ListDrainStatus;
  /** Messages written to email_messages by this run. */
  drained: number;
  /** Messages of the list waiting for its repo after this run. */
  deferred: number;
  /** Messages this run could not store, kept staged with the reason. */
  shunted: number;
  /** Messages drained earlier whose thread root this run corrected. */
  threadsRepaired: number;
  error?: string;
}

export interface DrainResult {
  lists: ListDrainResult[];
  drained: number;
  deferred: number;
  shunted: number;
  threadsRepaired: number;
  /** A signal stopped the run before it ran out of lists. */
  interrupted: boolean;
}

/** Moves classified mail into the research tables, list by list, one writer per list. */
export async function drainLists(
  store: Store,
  options: DrainOptions,
  progress: ProgressListener,
): Promise<DrainResult> {
  const run = new DrainRun(store, options, progress);
  // Lists with mail to drain, and lists whose stored mirror mail was drained under another mirror handling.
  const handling = options.mirrorHandling ?? 'metadata_only';
  const listIds = [
    ...new Set([
      ...(await store.drain.listsWithWork(options.listIds)),
      ...(await store.drain.listsWithOtherHandling(handling, options.listIds)),
    ]),
  ].sort((a, b) => a - b);
  const results = await eachClaimedList(
    store,
    listIds,
    run,
    { owner: run.owner, workers: options.workers, signal: options.signal },
    progress,
  );
  if (results.some((r) => r.drained > 0)) await store.drain.reclaimSpace();
  return drainResultOf(results, options.arrived, Boolean(options.signal?.aborted));
}

/** The run's figures from its lists' results, with what was drained of them on arrival (sync) counted in. */
export function drainResultOf(
  results: readonly ListDrainResult[],
  arrived: ReadonlyMap<number, ListDrainResult> | undefined,
  interrupted: boolean,
): DrainResult {
  const lists = withArrived(results, arrived);
  return {
    lists,
    drained: sum(lists, 'drained'),
    deferred: sum(lists, 'deferred'),
    shunted: sum(lists, 'shunted'),
    threadsRepaired: sum(lists, 'threadsRepaired'),
    interrupted,
  };
}

/** Each list's result with what was drained of it on arrival added; a list drained only then has that result alone. */
function withArrived(
  results: readonly ListDrainResult[],
  arrived: ReadonlyMap<number, ListDrainResult> | undefined,
): ListDrainResult[] {
  if (!arrived) return [...results];
  const merged = results.map((result) => {
    const before = arrived.get(result.listId);
    return before
      ? {
          ...result,
          drained: result.drained + before.drained,
          shunted: result.shunted + before.shunted,
          threadsRepaired: result.threadsRepaired + before.threadsRepaired,
        }
      : result;
  });
  for (const [listId, before] of arrived) if (!results.some((r) => r.listId === listId)) merged.push({ ...before });
  return merged.sort((a, b) => a.listId - b.listId);
}

function sum(results: ListDrainResult[], field: 'drained' | 'deferred' | 'shunted' | 'threadsRepaired'): number {
  return results.reduce((total, r) => total + r[field], 0);
}

/** What one drain run shares across its lists: the lock owner and the sender and repo caches. */
export class DrainRun implements ListStage<ListDrainResult> {
  readonly stage = 'drain';
  readonly owner = currentLockOwner();
  private readonly senders = new Map<string, number>();
  private readonly repoIds = new Map<string, number | null>();
  private readonly statistics: TableStatistics;

  constructor(
    private readonly store: Store,
    private readonly options: DrainOptions,
    private readonly progress: ProgressListener,
  ) {
    this.statistics = store.drain.statistics();
  }

  start(list: ListRecord): ListDrainResult {
    return {
      listId: list.id,
      system: list.system,
      name: list.name,
      status: 'drained',
      drained: 0,
      deferred: 0,
      shunted: 0,
      threadsRepaired: 0,
    };
  }

  /** Drains a claimed list: its mail waits (deferred) while it has no repo. */
  async work(list: ListRecord, result: ListDrainResult, task: string): Promise<string> {
    if (list.repoId === null) {
      await this.store.drain.deferClassified(list.id);
      result.status = 'deferred';
    } else {
      await this.drainList(list, list.repoId, result, task);
      if (this.options.signal?.aborted) result.status = 'interrupted';
    }
    result.deferred = await this.store.drain.countWithStatus(list.id, 'deferred');
    return result.status === 'deferred'
      ? `${result.deferred} deferred: the list has no repo`
      : `${result.shunted} shunted, ${result.threadsRepaired} thread roots repaired`;
  }

  /** What every message of the list is prepared with. */
  contextOf(list: ListRecord): ListContext {
    const template =
      this.options.systems.systems.get(list.rulesSystem ?? list.system)?.repoUrlTemplate ??
      this.options.systems.systems.get(list.system)?.repoUrlTemplate;
    // A list registered by address is named by it; a local list's name is a path.
    return { template, own: new ListAddresses([list.listAddress, list.name.includes('/') ? null : list.name]) };
  }

  /**
   * Brings the list's stored mail to the run's mirror handling: mail drained
   * under another goes back to `classified`, to be drained again.
   */
  async applyMirrorHandling(list: ListRecord): Promise<void> {
    await this.store.transaction((tx) =>
      tx.drain.applyMirrorHandling(list.id, this.options.mirrorHandling ?? 'metadata_only', MIRROR_CLASSES),
    );
  }

  private async drainList(list: ListRecord, repoId: number, result: ListDrainResult, task: string): Promise<void> {
    await this.applyMirrorHandling(list);
    const context = this.contextOf(list);
    // Mail deferred while the list had no repo first, then the rest; each in staging order.
    for (const status of ['deferred', 'classified'] as const) {
      await this.drainStatus(list, repoId, context, status, result, task);
    }
  }

  private async drainStatus(
    list: ListRecord,
    repoId: number,
    context: ListContext,
    status: 'classified' | 'deferred',
    result: ListDrainResult,
    task: string,
  ): Promise<void> {
    // The next batch is read while this one is written (on PostgreSQL, over another connection):
    // its rows come after this batch's, and nothing written for this batch changes them.
    await overlapBatches({
      read: async (previous: DrainCandidate[] | undefined) => {
        const batch = await this.store.drain.nextBatch(
          list.id,
          status,
          previous?.at(-1)!.id ?? 0,
          this.options.batchSize ?? BATCH_MESSAGES,
          BATCH_BYTES,
        );
        return batch.length > 0 ? batch : undefined;
      },
      write: (batch) => this.drainBatch(list, repoId, context, batch, result, task),
      signal: this.options.signal,
    });
  }

  /** Drains a batch of the list's mail in staging order: what cannot be drained is shunted with the reason. */
  async drainBatch(
    list: ListRecord,
    repoId: number,
    context: ListContext,
    batch: DrainCandidate[],
    result: ListDrainResult,
    task: string,
  ): Promise<void> {
    const messages: NewEmailMessage[] = [];
    for (const candidate of batch) {
      // A stored message drained again (a change of mirror handling, or set back by hand): its envelope went at its first drain.
      // Or mail sync labelled to drain on arrival, stopped before it was drained: its envelope was never written.
      if (candidate.envelope === null && candidate.storedRaw) candidate.envelope = await readRaw(candidate.storedRaw);
      const prepared = this.prepare(candidate, repoId, context);
      if (typeof prepared === 'string') {
        await this.store.drain.shunt(candidate.id, prepared);
        result.shunted++;
      } else messages.push(prepared);
    }
    await this.resolveSenders(messages);
    await this.resolveSignaledRepos(messages);
    await this.write(list.id, messages, result);
    await this.store.locks.touch(list.id, 'drain', this.owner);
    this.progress({
      type: 'update',
      task,
      done: result.drained,
      detail: result.shunted ? `${result.shunted} shunted` : undefined,
    });
  }

  /** One transaction for the batch; when it fails, row by row, and the rows that still fail are shunted with the reason. */
  private async write(listId: number, messages: NewEmailMessage[], result: ListDrainResult): Promise<void> {
    try {
      await this.writeInOne(listId, messages, result);
      return;
    } catch (error) {
      // The database failing is no message's fault: nothing is shunted for it.
      if (error instanceof StoreFailure) throw error;
      // Otherwise fall through: find the row that broke the batch.
    }
    for (const message of messages) {
      try {
        await this.writeInOne(listId, [message], result);
      } catch (error) {
        if (error instanceof StoreFailure) throw error;
        // Shunt only what the message itself caused: with the database gone, the list fails and keeps its mail.
        if (!(await this.store.reachable())) throw error;
        await this.store.drain.shunt(message.stagedId, `drain: ${(error as Error).message}`);
        result.shunted++;
      }
    }
  }

  private async writeInOne(listId: number, messages: NewEmailMessage[], result: ListDrainResult): Promise<void> {
    const { written, repaired } = await this.store.transaction(async (tx) => {
      const claimed = await tx.drain.claim(messages);
      const taken = messages.filter((m) => claimed.has(m.stagedId));
      const placed = await tx.drain.placeMessages(listId, taken);
      const roots = await repairThreadRoots(tx.drain, listId, placed);
      await tx.drain.writeMessages(listId, taken, placed, roots.fresh);
      await tx.drain.setThreadRoots(roots.repairs);
      return { written: placed.length, repaired: roots.repairs.length };
    });
    result.drained += written;
    result.threadsRepaired += repaired;
    await this.statistics.grew(written);
  }

  /** The row to write, or why the message cannot be drained. */
  private prepare(candidate: DrainCandidate, repoId: number, { template, own }: ListContext): NewEmailMessage | string {
    const envelope = readEnvelope(candidate.envelope);
    if (!envelope) return 'drain: the staged message has no readable envelope; classify it again';
    const handling = isMirrorClass(candidate.msgClass) ? (this.options.mirrorHandling ?? 'metadata_only') : 'full';
    const captures =
      handling === 'skip'
        ? null
        : candidate.captures && typeof candidate.captures === 'object'
          ? cleanCaptures(candidate.captures)
          : null;
    const bodyText = clean(envelope.body) ?? '';
    // Envelopes stored before addresses had one normal form are brought to it here.
    const fromAddress =
      typeof envelope.fromAddress === 'string' && envelope.fromAddress.trim()
        ? normalizeAddress(clean(envelope.fromAddress.trim())!)
        : null;
    const fromName = clean(envelope.fromName);
    const signaledRepoUrl = handling === 'skip' ? null : findSignaledRepoUrl(captures, bodyText, template);
    const series = envelope.series;
    const sentAt = validDate(envelope.date);
    return {
      stagedId: candidate.id,
      messageKey: candidate.messageKey,
      messageId: candidate.messageId,
      repoId,
      senderId: null,
      fromName,
      fromAddress,
      isBot: isBotSender(fromName, fromAddress),
      fromList:
        fromAddress !== null &&
        own.includes(fromAddress, typeof envelope.listAddress === 'string' ? envelope.listAddress : null),
      subject: clean(envelope.subject),
      sentAt,
      // An envelope stored before implausible dates were dropped may still carry one; its offset goes with it.
      sentAtOffset: sentAt !== null && Number.isInteger(envelope.dateOffsetMinutes) ? envelope.dateOffsetMinutes : null,
      inReplyTo: clean(envelope.inReplyTo),
      references: Array.isArray(envelope.references)
        ? envelope.references.filter((r) => typeof r === 'string').map((r) => clean(r)!)
        : [],
      // A NULL class is refused by the table; that is how such a row gets shunted.
      msgClass: candidate.msgClass as string,
      classSource: candidate.classSource,
      rulesHash: candidate.rulesHash,
      listminerVersion: candidate.listminerVersion,
      captures,
      hasPatch: Boolean(envelope.hasPatch),
      patchVersion: series?.version ?? null,
      patchIndex: series?.index ?? null,
      patchTotal: series?.total ?? null,
      isRfc: Boolean(series?.rfc),
      isResend: Boolean(series?.resend),
      trailers: Array.isArray(envelope.trailers)
        ? envelope.trailers.map((t) =>
            t && typeof t === 'object' ? { ...t, name: clean(t.name), address: clean(t.address) } : t,
          )
        : [],
      size: Number.isFinite(envelope.size) ? envelope.size : candidate.size,
      body: handling === 'full' ? { text: bodyText, hash: hash('sha256', bodyText) } : null,
      signaledRepoUrl,
      signaledRepoId: null,
      ancestors: threadAncestors(envelope, candidate.messageKey),
    };
  }

  private async resolveSenders(messages: NewEmailMessage[]): Promise<void> {
    const unknown = messages
      .filter((m) => !m.isBot && !m.fromList && m.fromAddress && !this.senders.has(m.fromAddress))
      .map((m) => ({ email: m.fromAddress!, name: m.fromName }));
    if (unknown.length > 0)
      for (const [email, id] of await this.store.contributors.ensureByEmail(unknown)) this.senders.set(email, id);
    for (const m of messages)
      if (!m.isBot && !m.fromList && m.fromAddress) m.senderId = this.senders.get(m.fromAddress) ?? null;
  }

  private async resolveSignaledRepos(messages: NewEmailMessage[]): Promise<void> {
    for (const m of messages) {
      if (!m.signaledRepoUrl) continue;
      if (!this.repoIds.has(m.signaledRepoUrl))
        this.repoIds.set(m.signaledRepoUrl, (await this.store.repos.byUrl(m.signaledRepoUrl))?.id ?? null);
      m.signaledRepoId = this.repoIds.get(m.signaledRepoUrl) ?? null;
    }
  }
}

/** What every message of a list is prepared with. */
export interface ListContext {
  /** The system's repo_url_template, for a bare `repo` capture. */
  template: string | undefined;
  /** The list's own addresses, which never become contributors. */
  own: ListAddresses;
}

/** The envelope of a stored message read again from its raw bytes, as classify stores it (JSON); null when unreadable. */
async function readRaw(raw: Buffer): Promise<unknown> {
  // Loaded here: most drains never read a message again, and the MIME reader costs every start a tenth of a second.
  const { parseEnvelope } = await import('../classify/parse-envelope.js');
  try {
    return JSON.parse(JSON.stringify(await parseEnvelope(raw))) as unknown;
  } catch {
    return null;
  }
}

function readEnvelope(value: unknown): Envelope | undefined {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const envelope = value as Envelope;
  return typeof envelope.body === 'string' || envelope.body === undefined
    ? { ...envelope, body: envelope.body ?? '' }
    : undefined;
}

/** Envelopes and captures stored before text was made storable where it enters the envelope are made so here (docs/store.md). */
function clean(text: string | null | undefined): string | null {
  return typeof text === 'string' ? storableText(text) : null;
}

function cleanCaptures(captures: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(Object.entries(captures).map(([name, value]) => [name, clean(String(value))!]));
}

function validDate(date: string | null | undefined): string | null {
  if (typeof date !== 'string') return null;
  const time = new Date(date).getTime();
  return isPlausibleSentAt(time) ? new Date(time).toISOString() : null;
}
