import type { LockOwner } from '../locks/lock-owner.js';
import { LockRecords, staleBefore } from './lock-records.js';
import { inPlaceholders, type SqlSession } from './sql-driver.js';
import { SELECT_LIST, toList, type ListRecord } from './list-records.js';
import { mapRow } from './row-mapping.js';

export interface ClaimOptions {
  owner: LockOwner;
  now: Date;
  /** Only these lists (from --list); undefined: every list. Named lists are claimed even when sidelined. */
  listIds?: readonly number[];
  system?: string;
  /** Lists not to claim: done this run, or behind an open breaker. */
  excludeIds?: readonly number[];
  /** --now: ignore cadence and retry_after. */
  ignoreSchedule: boolean;
  cadenceDays: number;
  /** Systems of local archives: their lists are due on every run (reading an unchanged one reads nothing); only a retry wait keeps them back. */
  alwaysDueSystems?: readonly string[];
}

export interface DeletionToRecord {
  messageKey: string;
  sourceRef: string;
  deletedAt?: string;
}

/** A month the fetch could not read run after run and went past (docs/fetch.md); it is tried again on every run. */
export interface FetchGap {
  listId: number;
  system: string;
  list: string;
  month: string;
  /** Failing runs of the month in a row. */
  failures: number;
  lastError: string;
  lastFailedAt: string;
  /** When the month became a gap. */
  gapSince: string;
}

/**
 * The fetch stage's bookkeeping on `lists`: when a list is due again, how it
 * failed, which list to take next. Who holds a list is its fetch lock
 * (LockRecords). What a failure means (the retry, setting aside, a gap) the
 * caller decides (fetch-policy.ts); these records keep what it decided.
 */
export class FetchStateRecords {
  constructor(private readonly db: SqlSession) {}

  /**
   * Takes the most urgent list that is due and whose fetch lock is free (or
   * stale), or undefined when none is. Candidates are tried in order; the
   * lock decides, so two processes never take the same list.
   */
  async claimNext(options: ClaimOptions): Promise<ListRecord | undefined> {
    const now = options.now.toISOString();
    const dueBefore = new Date(options.now.getTime() - options.cadenceDays * 86_400_000).toISOString();
    const where = ['(fetch_lock.locked_at IS NULL OR fetch_lock.locked_at < ?)'];
    const params: (string | number)[] = [staleBefore(options.now)];
    if (options.listIds) {
      if (options.listIds.length === 0) return undefined;
      where.push(`lists.id IN (${inPlaceholders(options.listIds.length)})`);
      params.push(...options.listIds);
    } else {
      where.push('lists.sidelined_at IS NULL');
    }
    if (options.system) {
      where.push('lists.system = ?');
      params.push(options.system);
    }
    if (options.excludeIds?.length) {
      where.push(`lists.id NOT IN (${inPlaceholders(options.excludeIds.length)})`);
      params.push(...options.excludeIds);
    }
    if (!options.ignoreSchedule) {
      const always = options.alwaysDueSystems ?? [];
      where.push(
        '(lists.retry_after IS NULL OR lists.retry_after <= ?)',
        `(lists.scan_complete = FALSE OR lists.last_run_at IS NULL OR lists.last_run_at <= ?${always.length ? ` OR lists.system IN (${inPlaceholders(always.length)})` : ''})`,
      );
      params.push(now, dueBefore, ...always);
    }
    // Interrupted scans first (they hold a gap in the data), then lists never
    // fetched, then the ones longest without a refresh. A list left
    // incomplete only by its gap months is due every run, but among the last:
    // its months up to the present were read, and its gaps may stay broken for long.
    const candidates = await this.db.all<{ id: number }>(
      `${SELECT_LIST} WHERE ${where.join(' AND ')}
         ORDER BY CASE WHEN lists.scan_complete = FALSE AND lists.last_run_at IS NOT NULL
             AND (lists.failed_attempts > 0 OR NOT EXISTS (SELECT 1 FROM month_failures g WHERE g.list_id = lists.id AND g.gap_since IS NOT NULL)) THEN 0
           WHEN lists.last_run_at IS NULL THEN 1 ELSE 2 END,
           lists.last_run_at, lists.id`,
      params,
    );
    const locks = new LockRecords(this.db);
    for (const candidate of candidates) {
      const id = Number(candidate.id);
      if (await locks.claim(id, 'fetch', options.owner, options.now)) {
        const row = await this.db.get(`${SELECT_LIST} WHERE lists.id = ?`, [id]);
        return row && toList(row);
      }
    }
    return undefined;
  }

  /** A first scan of the whole history begins: until a scan reaches its end, runs read the whole history (ListRecord.fullScanPending). */
  async markFullScanPending(listId: number): Promise<void> {
    await this.db.run('UPDATE lists SET full_scan_pending = TRUE WHERE id = ?', [listId]);
  }

  async setFirstMonth(listId: number, month: string | null): Promise<void> {
    await this.db.run('UPDATE lists SET first_month = ? WHERE id = ?', [month, listId]);
  }

  /** When the month the list is checkpointed at was checkpointed last. */
  async checkpointedAt(listId: number, month: string): Promise<string | undefined> {
    const row = await this.db.get<{ fetched_at: string }>(
      'SELECT fetched_at FROM fetched_months WHERE list_id = ? AND month = ?',
      [listId, month],
    );
    return row?.fetched_at;
  }

  /** The oldest month fetched for the list. */
  async earliestFetched(listId: number): Promise<string | undefined> {
    const row = await this.db.get<{ month: string | null }>(
      'SELECT MIN(month) AS month FROM fetched_months WHERE list_id = ?',
      [listId],
    );
    return row?.month ?? undefined;
  }

  /** The source fingerprint each fetched month was checkpointed with (null where none was recorded). */
  async monthFingerprints(listId: number): Promise<Map<string, string | null>> {
    const rows = await this.db.all<{ month: string; source_fingerprint: string | null }>(
      'SELECT month, source_fingerprint FROM fetched_months WHERE list_id = ?',
      [listId],
    );
    return new Map(rows.map((row) => [row.month, row.source_fingerprint]));
  }

  /**
   * Records the entries a local source skipped in this fetch. After a
   * complete fetch they are the list's whole set: entries not met again
   * were fixed or removed, and are forgotten.
   */
  async recordSkippedEntries(
    listId: number,
    entries: ReadonlyMap<string, string>,
    at: Date,
    complete: boolean,
  ): Promise<void> {
    const seenAt = at.toISOString();
    await this.db.transaction(async (tx) => {
      for (const [path, reason] of entries) {
        await tx.run(
          `INSERT INTO skipped_source_entries (list_id, path, reason, first_seen_at, last_seen_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (list_id, path) DO UPDATE SET reason = excluded.reason, last_seen_at = excluded.last_seen_at`,
          [listId, path, reason.slice(0, 2000), seenAt, seenAt],
        );
      }
      if (complete)
        await tx.run('DELETE FROM skipped_source_entries WHERE list_id = ? AND last_seen_at < ?', [listId, seenAt]);
    });
  }

  /** The scan reached the present: failures are forgotten. `complete` is false when any month hit a transient error. */
  async recordScan(listId: number, complete: boolean, at: Date = new Date()): Promise<void> {
    await this.db.run(
      `UPDATE lists SET last_run_at = ?, scan_complete = ?, failed_attempts = 0, last_failure = NULL, last_failure_at = NULL,
         retry_after = NULL, sidelined_at = NULL, full_scan_pending = FALSE WHERE id = ?`,
      [at.toISOString(), complete, listId],
    );
  }

  /**
   * Counts a failing run of the list and records the retry `schedule` gives
   * for that many in a row (and whether the list is set aside).
   */
  async recordFailure(
    listId: number,
    reason: string,
    at: Date,
    schedule: (attempts: number) => { retryAfter: Date; sidelined: boolean },
  ): Promise<{ attempts: number; retryAfter: string; sidelined: boolean }> {
    return this.db.transaction(async (tx) => {
      const row = await tx.get<{ failed_attempts: number }>(
        'UPDATE lists SET failed_attempts = failed_attempts + 1 WHERE id = ? RETURNING failed_attempts',
        [listId],
      );
      const attempts = Number(row?.failed_attempts ?? 1);
      const { sidelined, ...next } = schedule(attempts);
      const retryAfter = next.retryAfter.toISOString();
      await tx.run(
        `UPDATE lists SET last_run_at = ?, scan_complete = FALSE, last_failure = ?, last_failure_at = ?, retry_after = ?,
           sidelined_at = CASE WHEN ? THEN COALESCE(sidelined_at, ?) ELSE sidelined_at END WHERE id = ?`,
        [at.toISOString(), reason.slice(0, 2000), at.toISOString(), retryAfter, sidelined, at.toISOString(), listId],
      );
      return { attempts, retryAfter, sidelined };
    });
  }

  /** Records withdrawn messages once each (a re-fetched month records nothing new). */
  async recordDeletions(listId: number, deletions: readonly DeletionToRecord[]): Promise<number> {
    let recorded = 0;
    const now = new Date().toISOString();
    for (const deletion of deletions) {
      const result = await this.db.run(
        `INSERT INTO archive_deletions (list_id, message_key, source_ref, deleted_at, recorded_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (list_id, source_ref) DO NOTHING`,
        [listId, deletion.messageKey, deletion.sourceRef, deletion.deletedAt ?? null, now],
      );
      recorded += result.changes;
    }
    return recorded;
  }
  /**
   * Counts a failing run of one month of the list; `isGap` tells from the
   * failing runs in a row whether it becomes a gap (it stays one until it is
   * read whole).
   */
  async recordMonthFailure(
    listId: number,
    month: string,
    reason: string,
    at: Date,
    isGap: (failures: number) => boolean,
  ): Promise<{ failures: number; gap: boolean }> {
    const when = at.toISOString();
    return this.db.transaction(async (tx) => {
      const row = await tx.get<{ failures: number; gap_since: unknown }>(
        `INSERT INTO month_failures (list_id, month, failures, last_error, first_failed_at, last_failed_at) VALUES (?, ?, 1, ?, ?, ?)
         ON CONFLICT (list_id, month) DO UPDATE SET failures = month_failures.failures + 1, last_error = excluded.last_error,
           last_failed_at = excluded.last_failed_at
         RETURNING failures, gap_since`,
        [listId, month, reason.slice(0, 2000), when, when],
      );
      const failures = Number(row?.failures ?? 1);
      const gap = row?.gap_since != null || isGap(failures);
      if (gap && row?.gap_since == null)
        await tx.run('UPDATE month_failures SET gap_since = last_failed_at WHERE list_id = ? AND month = ?', [
          listId,
          month,
        ]);
      return { failures, gap };
    });
  }

  /** The month was read whole: its failures are forgotten, and a gap there is closed. In the transaction of its checkpoint. */
  async clearMonthFailure(listId: number, month: string): Promise<void> {
    await this.db.run('DELETE FROM month_failures WHERE list_id = ? AND month = ?', [listId, month]);
  }

  /** The list's gap months, oldest first. */
  async gapMonths(listId: number): Promise<string[]> {
    return (await this.failedMonths(listId)).gaps;
  }

  /** The list's months whose last read failed, oldest first: the gaps, and the others (`failing`), retried by each run. */
  async failedMonths(listId: number): Promise<{ gaps: string[]; failing: string[] }> {
    const rows = await this.db.all<{ month: string; gap_since: unknown }>(
      'SELECT month, gap_since FROM month_failures WHERE list_id = ? ORDER BY month',
      [listId],
    );
    return {
      gaps: rows.filter((row) => row.gap_since != null).map((row) => row.month),
      failing: rows.filter((row) => row.gap_since == null).map((row) => row.month),
    };
  }

  /** Every gap of the lists given (all lists when undefined), by list and month. */
  async gaps(listIds?: readonly number[]): Promise<FetchGap[]> {
    if (listIds?.length === 0) return [];
    const rows = await this.db.all(
      `SELECT m.list_id, lists.system, lists.name AS list, m.month, m.failures, m.last_error, m.last_failed_at, m.gap_since
       FROM month_failures m JOIN lists ON lists.id = m.list_id
       WHERE m.gap_since IS NOT NULL ${listIds ? `AND m.list_id IN (${inPlaceholders(listIds.length)})` : ''}
       ORDER BY m.list_id, m.month`,
      listIds ? [...listIds] : [],
    );
    return rows.map((row) => {
      const gap = mapRow<FetchGap>(row);
      return {
        ...gap,
        listId: Number(gap.listId),
        failures: Number(gap.failures),
        lastFailedAt: String(gap.lastFailedAt),
        gapSince: String(gap.gapSince),
      };
    });
  }
}
