import { ProjectRecords } from './project-records.js';
import { mapRow } from './row-mapping.js';
import type { SqlSession } from './sql-driver.js';
import { addToGroup } from '../add-to-group.js';

export interface ListRecord {
  id: number;
  system: string;
  name: string;
  listAddress: string | null;
  listId: string | null;
  rulesSystem: string | null;
  baseUrl: string | null;
  repoUrl: string | null;
  repoId: number | null;
  createdAt: string;
  firstMonth: string | null;
  lastMonth: string | null;
  scanComplete: boolean;
  /** A first scan asked for the whole history (--full) and checkpointed nothing yet: the next run reads it whole too. */
  fullScanPending: boolean;
  lastRunAt: string | null;
  failedAttempts: number;
  lastFailure: string | null;
  lastFailureAt: string | null;
  retryAfter: string | null;
  sidelinedAt: string | null;
  /** Who holds the list's fetch lock (stage_locks), when someone does. */
  lockedAt: string | null;
  lockedPid: number | null;
  lockedBootId: string | null;
  lockedHost: string | null;
}

/** What `lists add` may set; undefined leaves a field as it is. */
export interface ListRegistration {
  system: string;
  name: string;
  listAddress?: string | null;
  listId?: string | null;
  rulesSystem?: string | null;
  baseUrl?: string | null;
  repoUrl?: string | null;
  repoId?: number | null;
}

const SETTABLE = ['list_address', 'list_id', 'rules_system', 'base_url', 'repo_url', 'repo_id'] as const;
const SETTABLE_KEYS = ['listAddress', 'listId', 'rulesSystem', 'baseUrl', 'repoUrl', 'repoId'] as const;

export const LIST_SHAPE = { booleans: ['scan_complete', 'full_scan_pending'] } as const;

export function toList(row: Record<string, unknown>): ListRecord {
  return mapRow<ListRecord>(row, LIST_SHAPE);
}

/** A list row with its fetch lock's holder. */
export const SELECT_LIST = `SELECT lists.*, fetch_lock.locked_at, fetch_lock.locked_pid, fetch_lock.locked_boot_id, fetch_lock.locked_host
  FROM lists LEFT JOIN stage_locks fetch_lock ON fetch_lock.list_id = lists.id AND fetch_lock.stage = 'fetch'`;

export interface ListCounts {
  staged: number;
  drained: number;
  deferred: number;
  shunted: number;
}

/** An entry of a local source that fetch could not read, and skipped. */
export interface SkippedSourceEntry {
  path: string;
  reason: string;
  firstSeenAt: string;
  lastSeenAt: string;
}

export class ListRecords {
  constructor(private readonly db: SqlSession) {}

  /**
   * Registers a list, or updates the given fields of the one already
   * registered under (system, name). Two processes adding the same list at
   * once still make one row: the insert is ON CONFLICT DO NOTHING.
   */
  async register(list: ListRegistration): Promise<{ list: ListRecord; action: 'added' | 'updated' | 'unchanged' }> {
    const values = SETTABLE_KEYS.map((key) => list[key] ?? null);
    const inserted = await this.db.get<{ id: number }>(
      `INSERT INTO lists (system, name, ${SETTABLE.join(', ')}, created_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (system, name) DO NOTHING RETURNING id`,
      [list.system, list.name, ...values, new Date().toISOString()],
    );
    if (inserted) return { list: (await this.byId(Number(inserted.id)))!, action: 'added' };
    const existing = (await this.byName(list.system, list.name))!;
    const changed = SETTABLE_KEYS.map((key, i) => [SETTABLE[i], list[key]] as const).filter(
      ([, value], i) => value !== undefined && value !== existing[SETTABLE_KEYS[i]!],
    );
    if (changed.length === 0) return { list: existing, action: 'unchanged' };
    await this.db.run(`UPDATE lists SET ${changed.map(([column]) => `${column} = ?`).join(', ')} WHERE id = ?`, [
      ...changed.map(([, value]) => value ?? null),
      existing.id,
    ]);
    return { list: (await this.byId(existing.id))!, action: 'updated' };
  }

  /**
   * A list's repository corrected: its stored mail moves to the new one, and
   * what project made of it under the old one goes (its links to the old
   * repo's issues and pull requests, the synthetic issues only its mail
   * held), its messages left unprojected so `project` makes them again under
   * the new repository. Counts the messages moved.
   */
  async moveMailToRepo(
    listId: number,
    fromRepoId: number,
    toRepoId: number,
  ): Promise<{ messages: number; syntheticIssues: number }> {
    return this.db.transaction(async (tx) => {
      const syntheticIssues = await new ListRecords(tx).resetProjection(listId, fromRepoId);
      const moved = await tx.run('UPDATE email_messages SET repo_id = ? WHERE list_id = ? AND repo_id = ?', [
        toRepoId,
        listId,
        fromRepoId,
      ]);
      return { messages: moved.changes, syntheticIssues };
    });
  }

  /**
   * Takes back what project derived from the list's mail under `repoId`: its
   * links to the repo's issues and pull requests, the synthetic issues no
   * other mail holds, its patch series and each message's outcome, so that
   * project derives them again (a new repo, another rules system). Returns
   * the synthetic issues dropped.
   */
  async resetProjection(listId: number, repoId: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const mine = 'SELECT id FROM email_messages WHERE list_id = ?';
      const synthetic = await tx.all<{ issue_id: number }>(
        `SELECT DISTINCT l.issue_id FROM issue_email_messages l JOIN issues i ON i.id = l.issue_id
         WHERE i.repo_id = ? AND i.is_synthetic = ? AND l.email_message_id IN (${mine})`,
        [repoId, true, listId],
      );
      await tx.run(
        `DELETE FROM issue_email_messages WHERE issue_id IN (SELECT id FROM issues WHERE repo_id = ?) AND email_message_id IN (${mine})`,
        [repoId, listId],
      );
      await tx.run(
        `DELETE FROM pull_request_email_messages WHERE pull_request_id IN (SELECT id FROM pull_requests WHERE repo_id = ?) AND email_message_id IN (${mine})`,
        [repoId, listId],
      );
      let syntheticIssues = 0;
      for (const { issue_id } of synthetic) {
        // A synthetic issue another list's mail still holds stays with that mail.
        const gone = await tx.run(
          'DELETE FROM issues WHERE id = ? AND is_synthetic = ? AND NOT EXISTS (SELECT 1 FROM issue_email_messages WHERE issue_id = ?)',
          [Number(issue_id), true, Number(issue_id)],
        );
        syntheticIssues += gone.changes;
      }
      await tx.run('UPDATE email_messages SET projected_kind = NULL, patch_series_id = NULL WHERE list_id = ?', [
        listId,
      ]);
      await new ProjectRecords(tx).deleteEmptyPatchSeries(listId);
      return syntheticIssues;
    });
  }

  async byName(system: string, name: string): Promise<ListRecord | undefined> {
    const row = await this.db.get(`${SELECT_LIST} WHERE lists.system = ? AND lists.name = ?`, [system, name]);
    return row && toList(row);
  }

  /** Lists whose name or address is one of `names`, in any system. */
  async find(names: readonly string[]): Promise<ListRecord[]> {
    if (names.length === 0) return [];
    const marks = names.map(() => '?').join(', ');
    const rows = await this.db.all(
      `${SELECT_LIST} WHERE lists.name IN (${marks}) OR lists.list_address IN (${marks}) ORDER BY lists.id`,
      [...names, ...names],
    );
    return rows.map(toList);
  }

  async byId(id: number): Promise<ListRecord | undefined> {
    const row = await this.db.get(`${SELECT_LIST} WHERE lists.id = ?`, [id]);
    return row && toList(row);
  }

  async all(filter: { system?: string } = {}): Promise<ListRecord[]> {
    const rows = filter.system
      ? await this.db.all(`${SELECT_LIST} WHERE lists.system = ? ORDER BY lists.system, lists.name`, [filter.system])
      : await this.db.all(`${SELECT_LIST} ORDER BY lists.system, lists.name`);
    return rows.map(toList);
  }

  /** How many of each list's messages are at each step of the pipeline. */
  async counts(): Promise<Map<number, ListCounts>> {
    const rows = await this.db.all<{ list_id: number; status: string; n: number }>(
      'SELECT list_id, status, COUNT(*) AS n FROM staged_messages GROUP BY list_id, status',
    );
    const counts = new Map<number, ListCounts>();
    for (const row of rows) {
      const entry = counts.get(row.list_id) ?? { staged: 0, drained: 0, deferred: 0, shunted: 0 };
      entry.staged += Number(row.n);
      if (row.status === 'drained' || row.status === 'deferred' || row.status === 'shunted')
        entry[row.status] += Number(row.n);
      counts.set(row.list_id, entry);
    }
    return counts;
  }

  /** Each list's skipped source entries, by path. */
  async skippedEntries(): Promise<Map<number, SkippedSourceEntry[]>> {
    const rows = await this.db.all('SELECT * FROM skipped_source_entries ORDER BY list_id, path');
    const entries = new Map<number, SkippedSourceEntry[]>();
    for (const row of rows) {
      const { listId, ...entry } = mapRow<SkippedSourceEntry & { listId: number }>(row);
      addToGroup(entries, Number(listId), entry);
    }
    return entries;
  }

  /**
   * Removes the list and, through the foreign keys, everything stored for it.
   * People's mail progress comes back to the last message left: SQLite gives
   * new mail the ids after the largest stored, which may be the removed
   * list's, and people resolve reads only mail past its mark. Call it in a
   * transaction.
   */
  async remove(id: number): Promise<boolean> {
    const removed = (await this.db.run('DELETE FROM lists WHERE id = ?', [id])).changes > 0;
    if (removed)
      await this.db.run(
        `UPDATE people_progress SET last_id = (SELECT COALESCE(MAX(id), 0) FROM email_messages)
         WHERE name = 'mail' AND last_id > (SELECT COALESCE(MAX(id), 0) FROM email_messages)`,
      );
    return removed;
  }
}
