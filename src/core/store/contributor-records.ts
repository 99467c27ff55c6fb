import { chunkRows, inPlaceholders, valuesPlaceholders, type SqlSession } from './sql-driver.js';

export interface MailSender {
  /** Lower-cased. */
  email: string;
  name: string | null;
}

/**
 * People, matched by e-mail address. Creating one is idempotent across
 * processes: the insert yields to whoever wrote the address first, then the
 * id is read back, so two lists draining at once never make two people of
 * one address.
 */
export class ContributorRecords {
  constructor(private readonly db: SqlSession) {}

  /**
   * The person of each address, creating e-mail-only contributors for the
   * unknown ones. An address is found through `identities` first: a merge
   * (docs/people.md) moved it onto the person it belongs to, and its mail
   * keeps going there.
   */
  async ensureByEmail(senders: readonly MailSender[]): Promise<Map<string, number>> {
    const ids = await this.idsByEmail(senders.map((s) => s.email));
    const missing = new Map<string, MailSender>();
    for (const sender of senders)
      if (!ids.has(sender.email) && !missing.has(sender.email)) missing.set(sender.email, sender);
    if (missing.size === 0) return ids;
    const now = new Date().toISOString();
    const rows = [...missing.values()].map((s) => [s.name, s.email, 'email', now]);
    for (const chunk of chunkRows(rows, 4, this.db.capabilities)) {
      await this.db.run(
        `INSERT INTO contributors (name, email, source, created_at) VALUES ${valuesPlaceholders(chunk.length, 4)} ON CONFLICT DO NOTHING`,
        chunk.flat(),
      );
    }
    const rowIds = await this.rowIdsByEmail([...missing.keys()]);
    const identities: unknown[][] = [];
    for (const sender of missing.values()) {
      const id = rowIds.get(sender.email);
      if (id === undefined) continue;
      identities.push([id, 'email', sender.email, '', id, 'mail', now]);
      if (sender.name) identities.push([id, 'name', sender.name, sender.email, id, 'mail', now]);
    }
    for (const chunk of chunkRows(identities, 7, this.db.capabilities)) {
      await this.db.run(
        `INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at) VALUES ${valuesPlaceholders(chunk.length, 7)} ON CONFLICT DO NOTHING`,
        chunk.flat() as never[],
      );
    }
    for (const [email, id] of await this.idsByEmail([...missing.keys()])) ids.set(email, id);
    return ids;
  }

  /** The person each known address belongs to. */
  async idsByEmail(emails: readonly string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const chunk of chunkRows([...new Set(emails)], 1, this.db.capabilities)) {
      const rows = await this.db.all<{ id: number; email: string }>(
        `SELECT person_id AS id, value AS email FROM identities WHERE kind = 'email' AND seen_with = '' AND value IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      for (const row of rows) ids.set(row.email, Number(row.id));
    }
    return ids;
  }

  /** The contributors row that carries each address (the person it was first recorded on). */
  private async rowIdsByEmail(emails: readonly string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>();
    for (const chunk of chunkRows([...new Set(emails)], 1, this.db.capabilities)) {
      const rows = await this.db.all<{ id: number; email: string }>(
        `SELECT id, email FROM contributors WHERE email IN (${inPlaceholders(chunk.length)})`,
        chunk,
      );
      for (const row of rows) ids.set(row.email, Number(row.id));
    }
    return ids;
  }

  /**
   * The contributor of a GitHub login (matched without regard to case),
   * made with `source = 'github'` when unknown. Concurrent callers make one:
   * the login is unique (migration 009).
   */
  async ensureByLogin(login: string): Promise<number> {
    const existing = await this.idByLogin(login);
    if (existing !== undefined) return existing;
    const now = new Date().toISOString();
    await this.db.run(
      'INSERT INTO contributors (github_login, source, created_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      [login, 'github', now],
    );
    const row = await this.db.get<{ id: number }>(
      'SELECT id FROM contributors WHERE lower(github_login) = lower(?) ORDER BY id LIMIT 1',
      [login],
    );
    await this.db.run(
      "INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at) VALUES (?, 'github_login', ?, '', ?, 'github-import', ?) ON CONFLICT DO NOTHING",
      [row!.id, login.toLowerCase(), row!.id, now],
    );
    return (await this.idByLogin(login))!;
  }

  /** The person of a GitHub login: through identities (a merge may have moved it), else the row that carries it. */
  async idByLogin(login: string): Promise<number | undefined> {
    const identity = await this.db.get<{ id: number }>(
      "SELECT person_id AS id FROM identities WHERE kind = 'github_login' AND seen_with = '' AND value = ?",
      [login.toLowerCase()],
    );
    if (identity) return Number(identity.id);
    const row = await this.db.get<{ id: number }>(
      'SELECT id FROM contributors WHERE lower(github_login) = lower(?) ORDER BY id LIMIT 1',
      [login],
    );
    return row && Number(row.id);
  }

  /** The one contributor with exactly this name; undefined when none or several have it. */
  async idByUniqueName(name: string): Promise<number | undefined> {
    const rows = await this.db.all<{ id: number }>(
      'SELECT id FROM contributors WHERE name = ? AND merged_into IS NULL LIMIT 2',
      [name],
    );
    return rows.length === 1 ? Number(rows[0]!.id) : undefined;
  }
}
