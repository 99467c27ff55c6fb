import type { SqlSession } from './sql-driver.js';

export interface RepoRecord {
  id: number;
  url: string;
  host: string;
  owner: string | null;
  name: string;
  createdAt: string;
}

interface RepoRow {
  id: number;
  url: string;
  host: string;
  owner: string | null;
  name: string;
  created_at: string;
}

const COLUMNS = 'id, url, host, owner, name, created_at';

function toRepo(row: RepoRow): RepoRecord {
  return { id: row.id, url: row.url, host: row.host, owner: row.owner, name: row.name, createdAt: row.created_at };
}

export interface NewRepo {
  url: string;
  host: string;
  owner: string | null;
  name: string;
}

export class RepoRecords {
  constructor(private readonly db: SqlSession) {}

  /** Inserts the repo unless its URL is known; either way returns the row and whether it is new. */
  async ensure(repo: NewRepo): Promise<{ repo: RepoRecord; created: boolean }> {
    const inserted = await this.db.get<RepoRow>(
      `INSERT INTO repos (url, host, owner, name, created_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
      [repo.url, repo.host, repo.owner, repo.name, new Date().toISOString()],
    );
    if (inserted) return { repo: toRepo(inserted), created: true };
    const existing = await this.db.get<RepoRow>(`SELECT ${COLUMNS} FROM repos WHERE url = ?`, [repo.url]);
    return { repo: toRepo(existing!), created: false };
  }

  async byUrl(url: string): Promise<RepoRecord | undefined> {
    const row = await this.db.get<RepoRow>(`SELECT ${COLUMNS} FROM repos WHERE url = ?`, [url]);
    return row && toRepo(row);
  }

  async all(): Promise<RepoRecord[]> {
    const rows = await this.db.all<RepoRow>(`SELECT ${COLUMNS} FROM repos ORDER BY url`);
    return rows.map(toRepo);
  }

  /** Gives every list registered with this repo URL (and no repo yet) its repo. */
  async attachToLists(repo: RepoRecord): Promise<number> {
    const result = await this.db.run('UPDATE lists SET repo_id = ? WHERE repo_url = ? AND repo_id IS NULL', [
      repo.id,
      repo.url,
    ]);
    return result.changes;
  }

  /** Ties drained mail that mentions this repo's URL to it; returns how many messages. */
  async resolveSignaled(repo: RepoRecord): Promise<number> {
    const result = await this.db.run(
      'UPDATE email_messages SET signaled_repo_id = ? WHERE signaled_repo_url = ? AND signaled_repo_id IS NULL',
      [repo.id, repo.url],
    );
    return result.changes;
  }
}
