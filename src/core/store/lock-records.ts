import {
  isProcessAlive,
  lockIsAbandoned,
  STALE_LOCK_MS,
  type LockHolder,
  type LockOwner,
} from '../locks/lock-owner.js';
import { mapRow } from './row-mapping.js';
import type { SqlSession } from './sql-driver.js';

/** The stages that write a list with one writer at a time; each has its own lock, so fetching a list never waits for draining it. */
export type LockedStage = 'fetch' | 'drain' | 'project';

export interface HeldLock extends LockHolder {
  listId: number;
  stage: LockedStage;
}

const FREE = 'locked_at = NULL, locked_pid = NULL, locked_boot_id = NULL, locked_host = NULL';
const HELD_BY = 'locked_pid = ? AND locked_boot_id = ? AND locked_host = ?';

/**
 * The per-list, per-stage writer locks (table stage_locks). A lock is taken
 * by one conditional UPDATE, so on both engines two processes can never hold
 * the same one; a holder refreshes it as it works. A lock is free again when
 * it is released, when it has not been refreshed for STALE_LOCK_MS, or when
 * its holder is a process of this machine and boot that is gone.
 */
export class LockRecords {
  constructor(private readonly db: SqlSession) {}

  /**
   * Takes the list's lock for the stage unless a live holder has it; true
   * when taken. A list removed since it was chosen (`lists rm` beside the
   * run) has no lock to take: false.
   */
  async claim(listId: number, stage: LockedStage, owner: LockOwner, now: Date = new Date()): Promise<boolean> {
    await this.db.run(
      'INSERT INTO stage_locks (list_id, stage) SELECT id, ? FROM lists WHERE id = ? ON CONFLICT (list_id, stage) DO NOTHING',
      [stage, listId],
    );
    const taken = await this.db.get(
      `UPDATE stage_locks SET locked_at = ?, locked_pid = ?, locked_boot_id = ?, locked_host = ?
       WHERE list_id = ? AND stage = ? AND (locked_at IS NULL OR locked_at < ?) RETURNING list_id`,
      [now.toISOString(), owner.pid, owner.bootId, owner.host, listId, stage, staleBefore(now)],
    );
    return taken !== undefined;
  }

  /**
   * Frees the stage's locks whose holder is gone (lockIsAbandoned: stale, or
   * a dead process of this machine and boot). A claim takes a stale lock by
   * itself; a dead holder's fresh lock needs this sweep first. Returns how
   * many were freed.
   */
  async recoverDead(
    stage: LockedStage,
    owner: LockOwner,
    isAlive: (pid: number) => boolean = isProcessAlive,
    now: Date = new Date(),
  ): Promise<number> {
    let freed = 0;
    for (const lock of await this.held(stage)) {
      if (!lockIsAbandoned(lock, owner, now.getTime(), isAlive)) continue;
      const result = await this.db.run(
        `UPDATE stage_locks SET ${FREE} WHERE list_id = ? AND stage = ? AND ${HELD_BY}`,
        [lock.listId, stage, lock.lockedPid, lock.lockedBootId, lock.lockedHost],
      );
      freed += result.changes;
    }
    return freed;
  }

  /** Keeps a held lock fresh, so a long run is never taken for an abandoned one. */
  async touch(listId: number, stage: LockedStage, owner: LockOwner): Promise<void> {
    await this.db.run(`UPDATE stage_locks SET locked_at = ? WHERE list_id = ? AND stage = ? AND ${HELD_BY}`, [
      new Date().toISOString(),
      listId,
      stage,
      owner.pid,
      owner.bootId,
      owner.host,
    ]);
  }

  async release(listId: number, stage: LockedStage, owner: LockOwner): Promise<void> {
    await this.db.run(`UPDATE stage_locks SET ${FREE} WHERE list_id = ? AND stage = ? AND ${HELD_BY}`, [
      listId,
      stage,
      owner.pid,
      owner.bootId,
      owner.host,
    ]);
  }

  /** Every lock held now, optionally of one stage, for saying who holds what. */
  async held(stage?: LockedStage): Promise<HeldLock[]> {
    const rows = await this.db.all(
      `SELECT list_id, stage, locked_at, locked_pid, locked_boot_id, locked_host FROM stage_locks
       WHERE locked_at IS NOT NULL${stage ? ' AND stage = ?' : ''} ORDER BY list_id, stage`,
      stage ? [stage] : [],
    );
    return rows.map((row) => {
      const lock = mapRow<HeldLock>(row);
      return {
        ...lock,
        listId: Number(lock.listId),
        lockedPid: lock.lockedPid === null ? null : Number(lock.lockedPid),
      };
    });
  }
}

/** Locks last refreshed before this time are abandoned. */
export function staleBefore(now: Date): string {
  return new Date(now.getTime() - STALE_LOCK_MS).toISOString();
}
