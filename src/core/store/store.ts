import { BreakerRecords } from './breaker-records.js';
import { FetchStateRecords } from './fetch-state-records.js';
import { ContributorRecords } from './contributor-records.js';
import { DrainRecords } from './drain-records.js';
import { ExportRecords } from './export-records.js';
import { ClassifyRecords } from './classify-records.js';
import { ListRecords } from './list-records.js';
import { PeopleRecords } from './people-records.js';
import { LockRecords } from './lock-records.js';
import { ProjectRecords } from './project-records.js';
import { RenderRecords } from './render-records.js';
import { RepoRecords } from './repo-records.js';
import { ReportRecords } from './report-records.js';
import { driverSession, type IntegrityReport, type SqlDriver, type SqlSession } from './sql-driver.js';
import { StagingRecords } from './staging-records.js';
import { TrackerRecords } from './tracker-records.js';

/**
 * The store the pipeline talks to. One implementation over SQL that both
 * engines accept; what differs between them lives in the drivers. Each
 * stage's queries sit in their own records class.
 *
 * There is one way to make several writes atomic: `store.transaction(async
 * (tx) => …)`, where `tx` is a whole Store bound to that transaction (every
 * records class of it writes inside it). A transaction asked for inside one
 * joins it.
 */
export class Store {
  readonly lists: ListRecords;
  readonly repos: RepoRecords;
  readonly staging: StagingRecords;
  readonly fetchState: FetchStateRecords;
  readonly locks: LockRecords;
  readonly breakers: BreakerRecords;
  readonly drain: DrainRecords;
  readonly contributors: ContributorRecords;
  readonly people: PeopleRecords;
  readonly classify: ClassifyRecords;
  readonly tracker: TrackerRecords;
  readonly project: ProjectRecords;
  readonly reports: ReportRecords;
  readonly exports: ExportRecords;
  readonly render: RenderRecords;

  /** `db` runs statements of this store: on the driver, or inside this store's transaction. */
  constructor(
    private readonly driver: SqlDriver,
    readonly db: SqlSession = driverSession(driver),
  ) {
    this.lists = new ListRecords(db);
    this.repos = new RepoRecords(db);
    this.staging = new StagingRecords(db);
    this.fetchState = new FetchStateRecords(db);
    this.locks = new LockRecords(db);
    this.breakers = new BreakerRecords(db);
    this.drain = new DrainRecords(db);
    this.contributors = new ContributorRecords(db);
    this.people = new PeopleRecords(db);
    this.classify = new ClassifyRecords(db);
    this.tracker = new TrackerRecords(db);
    this.project = new ProjectRecords(db);
    this.reports = new ReportRecords(db);
    this.exports = new ExportRecords(db);
    this.render = new RenderRecords(db);
  }

  /** Runs fn with a Store bound to one transaction: all of it commits, or none of it. */
  transaction<T>(fn: (tx: Store) => Promise<T>): Promise<T> {
    if (this.db.inTransaction) return fn(this);
    return this.db.transaction((session) => fn(new Store(this.driver, session)));
  }

  /**
   * Runs fn with a Store bound to one read-only snapshot: every read of it
   * sees the store at one moment while other processes go on writing, and
   * none of them waits for it (docs/store.md, *One moment*).
   */
  readSnapshot<T>(fn: (snapshot: Store) => Promise<T>): Promise<T> {
    return this.db.readSnapshot((session) => fn(new Store(this.driver, session)));
  }

  /** True while the database answers; a write that failed while it does was refused for the row's own sake. */
  async reachable(): Promise<boolean> {
    try {
      await this.db.get('SELECT 1 AS alive');
      return true;
    } catch {
      return false;
    }
  }

  /** The engine's own integrity check (docs/verify.md, `engine-integrity`). */
  checkIntegrity(): Promise<IntegrityReport> {
    return this.driver.checkIntegrity();
  }

  get dialect(): SqlDriver['dialect'] {
    return this.driver.dialect;
  }

  get displayName(): string {
    return this.driver.displayName;
  }

  /** The file the database is (SQLite), so that it is never taken for a mail archive; undefined on PostgreSQL. */
  get file(): string | undefined {
    return this.driver.file;
  }

  close(): Promise<void> {
    return this.driver.close();
  }
}
