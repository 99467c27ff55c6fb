import type { SqlSession } from './sql-driver.js';

/** Someone a tracker names, by login; the e-mail address only where the tracker gives one. */
export interface TrackerPerson {
  login: string;
  /** Lower-cased. */
  email: string | null;
}

/** An issue as GitHub's API describes it. */
export interface TrackerIssue {
  /** GitHub's id: positive (issues synthesized from mail have negative ones). */
  id: number;
  number: number;
  title: string;
  state: string | null;
  author: TrackerPerson | null;
  url: string | null;
  createdAt: string | null;
  updatedAt: string | null;
  /** The `[KEY-123]` the title starts with. */
  externalKey: string | null;
  commentCount: number;
}

/** A pull request as GitHub's API describes it. */
export interface TrackerPullRequest {
  id: number;
  /** Which of GitHub's ids `id` is: the pull request's own (`/pulls`), or its issue's (`/issues` lists pull requests as issues). */
  idOf: 'pull_request' | 'issue';
  number: number;
  title: string;
  state: string | null;
  author: TrackerPerson | null;
  url: string | null;
  createdAt: string | null;
  /** Null when not merged, or when the listing does not say. */
  mergedAt: string | null;
}

export class TrackerRecords {
  constructor(private readonly db: SqlSession) {}
}
