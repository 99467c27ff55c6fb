import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';

/**
 * Who holds a per-list lock: a process on a machine since a boot. The boot
 * id tells a pid of this boot from the same number before a reboot, so a
 * dead holder is recognised without waiting. The locks themselves are the
 * store's (LockRecords, table stage_locks), one per list and stage.
 */
export interface LockOwner {
  pid: number;
  bootId: string;
  host: string;
}

/** A lock as the store holds it. */
export interface LockHolder {
  lockedAt: string | null;
  lockedPid: number | null;
  lockedBootId: string | null;
  lockedHost: string | null;
}

/** A lock not refreshed for this long belongs to a process that is gone. */
export const STALE_LOCK_MS = 2 * 60 * 60 * 1000;

let bootId: string | undefined;

function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // No /proc (macOS, Windows): dead-pid recovery is off and stale locks wait for the 2 h limit.
    return `unknown-${process.pid}-${Date.now()}`;
  }
}

export function currentLockOwner(): LockOwner {
  bootId ??= readBootId();
  return { pid: process.pid, bootId, host: hostname() };
}

/** False only when the pid is certainly gone: EPERM means it lives under another user. */
export function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ESRCH';
  }
}

/** True when the lock's holder is gone: stale by age, or a dead process on this host and boot. */
export function lockIsAbandoned(
  holder: LockHolder,
  owner: LockOwner,
  now = Date.now(),
  isAlive: (pid: number) => boolean = isProcessAlive,
): boolean {
  if (holder.lockedAt === null) return true;
  if (now - new Date(holder.lockedAt).getTime() > STALE_LOCK_MS) return true;
  const sameBoot = holder.lockedHost === owner.host && holder.lockedBootId === owner.bootId;
  if (sameBoot && holder.lockedPid !== null && holder.lockedPid !== owner.pid) return !isAlive(holder.lockedPid);
  return false;
}
