import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { LockOwner } from '../store/fetch-state-records.js';

/** This process as a lock holder. The boot id tells a pid of this boot from the same number before a reboot. */
export function currentLockOwner(): LockOwner {
  return { pid: process.pid, bootId: readBootId(), host: hostname() };
}

function readBootId(): string {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    // No /proc (macOS, Windows): dead-pid recovery is off and stale locks wait for the 2 h limit.
    return `unknown-${process.pid}-${Date.now()}`;
  }
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
