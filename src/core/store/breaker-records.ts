import type { SqlSession } from './sql-driver.js';

/** Consecutive transient failures that open a host's breaker. */
export const BREAKER_THRESHOLD = 10;
/** How long an open breaker keeps the host's lists from being claimed. */
export const BREAKER_OPEN_MS = 60 * 60 * 1000;

/**
 * One circuit breaker per archive host, kept in the store so every fetch
 * process (on any machine) sees that a host is struggling and leaves it be.
 */
export class BreakerRecords {
  constructor(private readonly db: SqlSession) {}

  /** Hosts whose breaker is open at `now`. */
  async openHosts(now: Date = new Date()): Promise<string[]> {
    return (await this.openBreakers(now)).map((breaker) => breaker.host);
  }

  /** Breakers open at `now`, with when each closes. */
  async openBreakers(now: Date = new Date()): Promise<Array<{ host: string; openUntil: string }>> {
    const rows = await this.db.all<{ host: string; open_until: string }>(
      'SELECT host, open_until FROM circuit_breakers WHERE open_until IS NOT NULL AND open_until > ? ORDER BY host',
      [now.toISOString()],
    );
    return rows.map((row) => ({ host: row.host, openUntil: row.open_until }));
  }

  /** Counts a transient failure; opens the breaker at the threshold. True when it is open now. */
  async recordFailure(host: string, now: Date = new Date()): Promise<boolean> {
    const at = now.toISOString();
    const row = await this.db.get<{ consecutive_failures: number }>(
      `INSERT INTO circuit_breakers (host, consecutive_failures, updated_at) VALUES (?, 1, ?)
       ON CONFLICT (host) DO UPDATE SET consecutive_failures = circuit_breakers.consecutive_failures + 1, updated_at = excluded.updated_at
       RETURNING consecutive_failures`,
      [host, at],
    );
    if (Number(row?.consecutive_failures) < BREAKER_THRESHOLD) return false;
    // Opening starts a fresh count: after the hour, ten more failures are needed to open it again.
    await this.db.run('UPDATE circuit_breakers SET open_until = ?, consecutive_failures = 0 WHERE host = ?', [
      new Date(now.getTime() + BREAKER_OPEN_MS).toISOString(),
      host,
    ]);
    return true;
  }

  async recordSuccess(host: string, now: Date = new Date()): Promise<void> {
    await this.db.run(
      `INSERT INTO circuit_breakers (host, consecutive_failures, updated_at) VALUES (?, 0, ?)
       ON CONFLICT (host) DO UPDATE SET consecutive_failures = 0, open_until = NULL, updated_at = excluded.updated_at`,
      [host, now.toISOString()],
    );
  }
}
