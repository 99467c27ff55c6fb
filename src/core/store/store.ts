import { BreakerRecords } from './breaker-records.js';
import { FetchStateRecords } from './fetch-state-records.js';
import { ContributorRecords } from './contributor-records.js';
import { DrainRecords } from './drain-records.js';
import { ClassifyRecords } from './classify-records.js';
import { ListRecords } from './list-records.js';
import { RepoRecords } from './repo-records.js';
import type { SqlDriver } from './sql-driver.js';
import { StagingRecords } from './staging-records.js';

/**
 * The store the pipeline talks to. One implementation over SQL that both
 * engines accept; what differs between them lives in the drivers. Each
 * stage's queries sit in their own records class.
 */
export class Store {
  readonly lists: ListRecords;
  readonly repos: RepoRecords;
  readonly staging: StagingRecords;
  readonly fetchState: FetchStateRecords;
  readonly breakers: BreakerRecords;
  readonly drain: DrainRecords;
  readonly contributors: ContributorRecords;
  readonly classify: ClassifyRecords;

  constructor(readonly db: SqlDriver) {
    this.lists = new ListRecords(db);
    this.repos = new RepoRecords(db);
    this.staging = new StagingRecords(db);
    this.fetchState = new FetchStateRecords(db);
    this.breakers = new BreakerRecords(db);
    this.drain = new DrainRecords(db);
    this.contributors = new ContributorRecords(db);
    this.classify = new ClassifyRecords(db);
  }

  get dialect(): SqlDriver['dialect'] {
    return this.db.dialect;
  }

  get displayName(): string {
    return this.db.displayName;
  }

  close(): Promise<void> {
    return this.db.close();
  }
}
