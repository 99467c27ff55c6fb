import type { AnalyzedTable, SqlSession } from './sql-driver.js';

/** A run refreshes statistics first once it has written this many rows. */
const FIRST_REFRESH_ROWS = 5_000;

/**
 * Keeps the planner's statistics of tables a run grows or whose rows it
 * moves from one status to another. PostgreSQL plans from statistics that
 * autovacuum refreshes a minute or more after a table changed; a stage that
 * doubles a table meanwhile gets plans made for the small table (an index
 * lookup of 500 keys read the whole list instead: drain on 100,000 messages
 * spent half its time so), and one that labels every row gets plans made
 * for the old labels. Refreshing each time the rows a run wrote double
 * keeps them within a factor of two of the truth for a few refreshes per
 * run. SQLite plans without statistics: nothing to do.
 *
 * A wide table's refresh names the columns listminer's statements look rows
 * up by: ANALYZE sorts a sample of each column it is given, and the subjects,
 * headers and JSON of `email_messages` took more than half of its time
 * (docs/performance.md, "ANALYZE of the columns looked up by"). Autovacuum
 * analyzes every column once the run has left the table alone.
 */
export class TableStatistics {
  private written = 0;
  private refreshAt = FIRST_REFRESH_ROWS;
  /** What had been written at the last refresh. */
  private refreshedAt = 0;

  constructor(
    private readonly db: SqlSession,
    private readonly tables: readonly AnalyzedTable[],
  ) {}

  /** Counts rows written or moved; refreshes the statistics when the count has doubled since the last time. */
  async grew(rows: number): Promise<void> {
    this.written += rows;
    if (this.written < this.refreshAt) return;
    this.refreshAt = this.written * 2;
    await this.refresh();
  }

  /**
   * Once the run has ended: refreshes the statistics of what it wrote since
   * the last refresh, however little, so that what reads the tables next
   * (export, verify, render, minutes before autovacuum would) is planned for
   * them. A patch series table never counted was planned as empty, and an
   * export of its series read past five minutes where it takes seconds.
   */
  async settle(): Promise<void> {
    if (this.written > this.refreshedAt) await this.refresh();
  }

  private async refresh(): Promise<void> {
    this.refreshedAt = this.written;
    const sql = this.db.capabilities.analyzeSql(this.tables);
    if (sql) await this.db.run(sql);
  }
}
