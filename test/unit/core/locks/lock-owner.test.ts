import { describe, expect, it } from 'vitest';
import { currentLockOwner, lockIsAbandoned, STALE_LOCK_MS } from '../../../../src/core/locks/lock-owner.js';

describe('lockIsAbandoned', () => {
  const me = currentLockOwner();
  const now = Date.parse('2026-01-01T12:00:00Z');
  const held = (at: number, pid: number, host = me.host, bootId = me.bootId) => ({
    lockedAt: new Date(at).toISOString(),
    lockedPid: pid,
    lockedHost: host,
    lockedBootId: bootId,
  });

  it('lets nobody take a fresh lock of a live process', () => {
    expect(lockIsAbandoned(held(now - 1000, process.ppid), me, now)).toBe(false);
    expect(lockIsAbandoned(held(now - 1000, me.pid), me, now)).toBe(false);
  });

  it('takes a lock older than two hours', () => {
    expect(lockIsAbandoned(held(now - STALE_LOCK_MS - 1, process.ppid), me, now)).toBe(true);
  });

  it('takes the lock of a dead process on this boot, but not one on another host', () => {
    expect(lockIsAbandoned(held(now - 1000, 2 ** 22 + 12345), me, now)).toBe(true);
    expect(lockIsAbandoned(held(now - 1000, 2 ** 22 + 12345, 'elsewhere'), me, now)).toBe(false);
  });
});
