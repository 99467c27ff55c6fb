import type { SqlSession } from './sql-driver.js';

/**
 * One circuit breaker per archive host, kept in the store so every fetch
 * process (on any machine) sees that a host is struggling and leaves it be.
 * When a breaker opens, and for how long, the caller decides (fetch-policy.ts).
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

  /**
   * Counts a transient failure; `openUntil` tells from the failures in a row
   * whether the breaker opens, and until when. True when it is open now.
   */
  async recordFailure(host: string, now: Date, openUntil: (failures: number) => Date | undefined): Promise<boolean> {
    const at = now.toISOString();
    const row = await this.db.get<{ consecutive_failures: number }>(
      `INSERT INTO circuit_breakers (host, consecutive_failures, updated_at) VALUES (?, 1, ?)
       ON CONFLICT (host) DO UPDATE SET consecutive_failures = circuit_breakers.consecutive_failures + 1, updated_at = excluded.updated_at
       RETURNING consecutive_failures`,
      [host, at],
    );
    const until = openUntil(Number(row?.consecutive_failures));
    if (!until) return false;
    // Opening starts a fresh count: once it closes, as many failures again are needed to open it.
    await this.db.run('UPDATE circuit_breakers SET open_until = ?, consecutive_failures = 0 WHERE host = ?', [
      until.toISOString(),
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
