import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LockHolder, LockOwner } from '../store/drain-records.js';

/** A drain lock older than this is taken over: its holder died without letting go. */
export const STALE_LOCK_MS = 2 * 60 * 60 * 1000;

let bootId: string | undefined;

/** This machine's boot: a pid is only meaningful within one boot of one host. */
export function currentBootId(): string {
  if (bootId === undefined) {
    try {
      bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    } catch {
      bootId = `no-boot-id-${hostname()}`;
    }
  }
  return bootId;
}

export function currentLockOwner(): LockOwner {
  return { pid: process.pid, bootId: currentBootId(), host: hostname() };
}

/** True when the lock's holder is gone: stale by age, or a dead process on this host and boot. */
export function lockIsAbandoned(holder: LockHolder, owner: LockOwner, now = Date.now()): boolean {
  if (holder.lockedAt === null) return true;
  if (now - new Date(holder.lockedAt).getTime() > STALE_LOCK_MS) return true;
  if (holder.lockedHost === owner.host && holder.lockedBootId === owner.bootId && holder.lockedPid !== null && holder.lockedPid !== owner.pid) {
    return !processIsAlive(holder.lockedPid);
  }
  return false;
}

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
