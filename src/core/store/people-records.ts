import { chunkRows, inPlaceholders, type SqlSession } from './sql-driver.js';

export type IdentityKind = 'email' | 'name' | 'github_login' | 'github_id';
export type IdentitySource = 'mail' | 'trailer' | 'mailmap' | 'github-import' | 'github-api' | 'noreply' | 'manual';
export type MergeRule = 'manual' | 'mailmap' | 'trailer' | 'noreply' | 'github-api' | 'github-import';

/** The rules a person applies, by hand or with a mailmap: they may join again what was taken apart. */
const BY_HAND: ReadonlySet<MergeRule> = new Set(['manual', 'mailmap']);

export interface Identity {
  id: number;
  personId: number;
  kind: IdentityKind;
  value: string;
  /** For a name: the address it was seen with. */
  seenWith: string;
  /** The contributors row it was first recorded on. */
  originId: number;
  source: IdentitySource;
  seenAt: string;
}

export interface Person {
  id: number;
  name: string | null;
  email: string | null;
  githubLogin: string | null;
  addresses: number;
  messages: number;
}

export interface PersonMerge {
  id: number;
  keptId: number;
  mergedId: number;
  rule: string;
  reason: string;
  evidence: string;
  mergedAt: string;
  undoneAt: string | null;
}

/** What one merge moved, so that undoing it puts exactly that back. */
interface Moved {
  identities: number[];
  issues: number[];
  pullRequests: number[];
  issueLinks: Array<[number, number]>;
  pullLinks: Array<[number, number]>;
}

export interface MailEvidence {
  id: number;
  senderId: number | null;
  fromName: string | null;
  fromAddress: string | null;
  isBot: boolean;
  trailers: unknown;
}

export interface GitHubLookup {
  address: string;
  login: string | null;
  githubId: number | null;
}

/**
 * People and their identities (docs/people.md). A person is a contributors
 * row no merge absorbed; its identities say which addresses, names and
 * GitHub logins are it. A merge moves identities and re-points the mail and
 * author references of the person it absorbs, and records what it moved in
 * person_merges so that `unmerge` restores exactly that. Callers run each
 * change in one store transaction.
 */
export class PeopleRecords {
  constructor(private readonly db: SqlSession) {}

  /** The person a contributor id stands for now: itself, or whoever absorbed it. */
  async current(id: number): Promise<number | undefined> {
    let at = id;
    for (let step = 0; step < 1000; step++) {
      const row = await this.db.get<{ merged_into: number | null }>(
        'SELECT merged_into FROM contributors WHERE id = ?',
        [at],
      );
      if (!row) return undefined;
      if (row.merged_into === null) return at;
      at = Number(row.merged_into);
    }
    return at;
  }

  /** The person an argument names: a contributor id, an address or a GitHub login. */
  async find(ref: string): Promise<number | undefined> {
    if (/^\d+$/.test(ref)) return this.current(Number(ref));
    const row = await this.db.get<{ id: number }>(
      "SELECT person_id AS id FROM identities WHERE kind IN ('email', 'github_login') AND seen_with = '' AND value = ?",
      [ref.toLowerCase()],
    );
    return row ? Number(row.id) : undefined;
  }

  async identity(id: number): Promise<Identity | undefined> {
    const row = await this.db.get<Record<string, unknown>>('SELECT * FROM identities WHERE id = ?', [id]);
    return row && toIdentity(row);
  }

  /** The identity of this kind and value (an address, a login), if any person has it. */
  async identityOf(kind: IdentityKind, value: string): Promise<Identity | undefined> {
    const row = await this.db.get<Record<string, unknown>>(
      "SELECT * FROM identities WHERE kind = ? AND seen_with = '' AND value = ?",
      [kind, value],
    );
    return row && toIdentity(row);
  }

  async identities(personId: number): Promise<Identity[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      'SELECT * FROM identities WHERE person_id = ? ORDER BY kind, value, seen_with',
      [personId],
    );
    return rows.map(toIdentity);
  }

  /** Records an identity on a person unless someone has it already; true when it was new. */
  async addIdentity(
    personId: number,
    kind: IdentityKind,
    value: string,
    source: IdentitySource,
    seenWith = '',
  ): Promise<boolean> {
    const result = await this.db.run(
      'INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at) VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING',
      [personId, kind, value, seenWith, personId, source, new Date().toISOString()],
    );
    return result.changes > 0;
  }

  /** Noreply addresses of people who have no GitHub login yet. */
  async noreplyAddressesWithoutLogin(): Promise<Array<{ value: string; personId: number }>> {
    const rows = await this.db.all<{ value: string; person_id: number }>(
      `SELECT i.value, i.person_id FROM identities i
       WHERE i.kind = 'email' AND i.seen_with = '' AND i.value LIKE '%@users.noreply.github.com'
         AND NOT EXISTS (SELECT 1 FROM identities l WHERE l.person_id = i.person_id AND l.kind = 'github_login')
       ORDER BY i.value`,
    );
    return rows.map((r) => ({ value: r.value, personId: Number(r.person_id) }));
  }

  /** A new person for an address nobody has yet (from a mailmap or a split). */
  async createPerson(name: string | null, email: string | null, source: string): Promise<number> {
    const row = await this.db.get<{ id: number }>(
      'INSERT INTO contributors (name, email, source, created_at) VALUES (?, ?, ?, ?) RETURNING id',
      [name, email, source, new Date().toISOString()],
    );
    return Number(row!.id);
  }

  async setName(personId: number, name: string): Promise<void> {
    await this.db.run('UPDATE contributors SET name = ? WHERE id = ?', [name, personId]);
  }

  /** People, most mail first. */
  async list(limit: number): Promise<Person[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      `SELECT c.id, c.name, c.email, c.github_login,
         (SELECT COUNT(*) FROM identities i WHERE i.person_id = c.id AND i.kind = 'email') AS addresses,
         (SELECT COUNT(*) FROM email_messages m WHERE m.sender_id = c.id) AS messages
       FROM contributors c WHERE c.merged_into IS NULL
       ORDER BY messages DESC, c.id LIMIT ?`,
      [limit],
    );
    return rows.map(toPerson);
  }

  async person(id: number): Promise<Person | undefined> {
    const row = await this.db.get<Record<string, unknown>>(
      `SELECT c.id, c.name, c.email, c.github_login,
         (SELECT COUNT(*) FROM identities i WHERE i.person_id = c.id AND i.kind = 'email') AS addresses,
         (SELECT COUNT(*) FROM email_messages m WHERE m.sender_id = c.id) AS messages
       FROM contributors c WHERE c.id = ?`,
      [id],
    );
    return row && toPerson(row);
  }

  /** The merges that touched a person, newest first. */
  async mergesOf(personId: number): Promise<PersonMerge[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      'SELECT * FROM person_merges WHERE kept_id = ? OR merged_id = ? ORDER BY id DESC',
      [personId, personId],
    );
    return rows.map(toMerge);
  }

  async merge(id: number): Promise<PersonMerge | undefined> {
    const row = await this.db.get<Record<string, unknown>>('SELECT * FROM person_merges WHERE id = ?', [id]);
    return row && toMerge(row);
  }

  /** True when this evidence merged (or was undone) before: automatic rules never act on it again. */
  async evidenceSeen(evidence: readonly string[]): Promise<boolean> {
    const row = await this.db.get(
      `SELECT 1 AS seen FROM person_merges WHERE evidence IN (${inPlaceholders(evidence.length)}) LIMIT 1`,
      [...evidence],
    );
    return row !== undefined;
  }

  /**
   * Two people an automatic rule joins (as they stand now), the one to keep
   * first: the one with more mail, so that the merge re-points the fewer
   * messages (each a row rewritten), else the lower id.
   */
  async keptFirst(one: number, other: number): Promise<[number, number]> {
    // A sender read before a merge of this run may have been absorbed since: count its person's mail.
    const a = (await this.current(one)) ?? one;
    const b = (await this.current(other)) ?? other;
    const rows = await this.db.all<{ sender_id: number; n: number }>(
      'SELECT sender_id, COUNT(*) AS n FROM email_messages WHERE sender_id IN (?, ?) GROUP BY sender_id',
      [a, b],
    );
    const mail = new Map(rows.map((r) => [Number(r.sender_id), Number(r.n)]));
    const [first, second] = a < b ? [a, b] : [b, a];
    return (mail.get(second) ?? 0) > (mail.get(first) ?? 0) ? [second, first] : [first, second];
  }

  /**
   * Merges person `mergedId` into `keptId`: its identities move, its mail and
   * authorships are re-pointed, and the row is marked absorbed. Undefined
   * when both are already one person, and when an automatic rule would join
   * two people a merge between them was undone or a split parted, whatever
   * its evidence said (an undone manual merge's key names people, not the
   * addresses a trailer names).
   */
  async mergePeople(
    keptId: number,
    mergedId: number,
    rule: MergeRule,
    reason: string,
    evidence: string,
  ): Promise<number | undefined> {
    const kept = await this.current(keptId);
    const merged = await this.current(mergedId);
    if (kept === undefined || merged === undefined || kept === merged) return undefined;
    if (!BY_HAND.has(rule) && (await this.parted(kept, merged))) return undefined;
    const moved: Moved = {
      identities: (
        await this.db.all<{ id: number }>('SELECT id FROM identities WHERE person_id = ? ORDER BY id', [merged])
      ).map((r) => Number(r.id)),
      issues: (
        await this.db.all<{ id: number }>('SELECT id FROM issues WHERE author_id = ? ORDER BY id', [merged])
      ).map((r) => Number(r.id)),
      pullRequests: (
        await this.db.all<{ id: number }>('SELECT id FROM pull_requests WHERE author_id = ? ORDER BY id', [merged])
      ).map((r) => Number(r.id)),
      issueLinks: (
        await this.db.all<{ a: number; b: number }>(
          'SELECT issue_id AS a, email_message_id AS b FROM issue_email_messages WHERE author_id = ?',
          [merged],
        )
      ).map((r) => [Number(r.a), Number(r.b)]),
      pullLinks: (
        await this.db.all<{ a: number; b: number }>(
          'SELECT pull_request_id AS a, email_message_id AS b FROM pull_request_email_messages WHERE author_id = ?',
          [merged],
        )
      ).map((r) => [Number(r.a), Number(r.b)]),
    };
    await this.db.run('UPDATE identities SET person_id = ? WHERE person_id = ?', [kept, merged]);
    await this.db.run('UPDATE email_messages SET sender_id = ? WHERE sender_id = ?', [kept, merged]);
    await this.db.run('UPDATE issues SET author_id = ? WHERE author_id = ?', [kept, merged]);
    await this.db.run('UPDATE pull_requests SET author_id = ? WHERE author_id = ?', [kept, merged]);
    await this.db.run('UPDATE issue_email_messages SET author_id = ? WHERE author_id = ?', [kept, merged]);
    await this.db.run('UPDATE pull_request_email_messages SET author_id = ? WHERE author_id = ?', [kept, merged]);
    await this.db.run('UPDATE contributors SET merged_into = ? WHERE id = ?', [kept, merged]);
    await this.adoptFields(kept, merged);
    const row = await this.db.get<{ id: number }>(
      'INSERT INTO person_merges (kept_id, merged_id, rule, reason, evidence, moved, merged_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
      [kept, merged, rule, reason, evidence, JSON.stringify(moved), new Date().toISOString()],
    );
    return Number(row!.id);
  }

  /** Whether a merge between the two people was undone, or a split took one from the other. */
  private async parted(one: number, other: number): Promise<boolean> {
    const row = await this.db.get(
      `SELECT 1 AS parted FROM person_merges
       WHERE undone_at IS NOT NULL AND ((kept_id = ? AND merged_id = ?) OR (kept_id = ? AND merged_id = ?)) LIMIT 1`,
      [one, other, other, one],
    );
    return row !== undefined;
  }

  /**
   * Undoes a merge: what it moved goes back to the person it absorbed (what
   * has since moved on with a later merge stays where that merge put it),
   * with the names seen since with the addresses that go back. An address a
   * trailer in their mail brought while the merge stood stays: where it came
   * from is not recorded.
   * False when the merge was undone already.
   */
  async unmergePeople(mergeId: number): Promise<boolean> {
    const row = await this.db.get<{ kept_id: number; merged_id: number; moved: string; undone_at: unknown }>(
      'SELECT kept_id, merged_id, moved, undone_at FROM person_merges WHERE id = ?',
      [mergeId],
    );
    if (!row || row.undone_at !== null) return false;
    const merged = Number(row.merged_id);
    const holder = (await this.current(Number(row.kept_id)))!;
    const moved = JSON.parse(row.moved) as Moved;
    await this.db.run('UPDATE contributors SET merged_into = NULL WHERE id = ?', [merged]);
    for (const chunk of chunkRows(moved.identities, 1, this.db.capabilities)) {
      await this.db.run(
        `UPDATE identities SET person_id = ? WHERE person_id = ? AND id IN (${inPlaceholders(chunk.length)})`,
        [merged, holder, ...chunk],
      );
    }
    // Names seen since the merge with an address that goes back go back with it.
    await this.db.run(
      `UPDATE identities SET person_id = ? WHERE person_id = ? AND kind = 'name' AND seen_with IN
         (SELECT value FROM identities WHERE person_id = ? AND kind = 'email')`,
      [merged, holder, merged],
    );
    await this.repointMail(merged, holder);
    for (const chunk of chunkRows(moved.issues, 1, this.db.capabilities)) {
      await this.db.run(
        `UPDATE issues SET author_id = ? WHERE author_id = ? AND id IN (${inPlaceholders(chunk.length)})`,
        [merged, holder, ...chunk],
      );
    }
    for (const chunk of chunkRows(moved.pullRequests, 1, this.db.capabilities)) {
      await this.db.run(
        `UPDATE pull_requests SET author_id = ? WHERE author_id = ? AND id IN (${inPlaceholders(chunk.length)})`,
        [merged, holder, ...chunk],
      );
    }
    for (const [a, b] of moved.issueLinks) {
      await this.db.run(
        'UPDATE issue_email_messages SET author_id = ? WHERE author_id = ? AND issue_id = ? AND email_message_id = ?',
        [merged, holder, a, b],
      );
    }
    for (const [a, b] of moved.pullLinks) {
      await this.db.run(
        'UPDATE pull_request_email_messages SET author_id = ? WHERE author_id = ? AND pull_request_id = ? AND email_message_id = ?',
        [merged, holder, a, b],
      );
    }
    await this.db.run('UPDATE person_merges SET undone_at = ? WHERE id = ?', [new Date().toISOString(), mergeId]);
    return true;
  }

  /**
   * Moves one identity (with the names seen with it) from its person to
   * `toId`, and the mail of the addresses moved with it.
   */
  async moveIdentity(identity: Identity, toId: number): Promise<void> {
    await this.db.run('UPDATE identities SET person_id = ? WHERE id = ?', [toId, identity.id]);
    if (identity.kind === 'email') {
      await this.db.run("UPDATE identities SET person_id = ? WHERE person_id = ? AND kind = 'name' AND seen_with = ?", [
        toId,
        identity.personId,
        identity.value,
      ]);
    }
    await this.db.run('UPDATE contributors SET merged_into = NULL WHERE id = ?', [toId]);
    await this.repointMail(toId, identity.personId);
  }

  /** Records a split, so automatic rules never join what a person took apart. */
  async recordSplit(fromId: number, toId: number, identity: Identity): Promise<number> {
    const now = new Date().toISOString();
    const moved: Moved = { identities: [identity.id], issues: [], pullRequests: [], issueLinks: [], pullLinks: [] };
    const row = await this.db.get<{ id: number }>(
      "INSERT INTO person_merges (kept_id, merged_id, rule, reason, evidence, moved, merged_at, undone_at) VALUES (?, ?, 'split', ?, ?, ?, ?, ?) RETURNING id",
      [
        fromId,
        toId,
        `${identity.kind} ${identity.value} split off by hand`,
        `split:${identity.value}`,
        JSON.stringify(moved),
        now,
        now,
      ],
    );
    return Number(row!.id);
  }

  /** The merge, not undone, that moved all of `personId`'s identities of origin `originId` onto it, if any. */
  async openMergeOf(originId: number): Promise<number | undefined> {
    const row = await this.db.get<{ id: number }>(
      'SELECT id FROM person_merges WHERE merged_id = ? AND undone_at IS NULL ORDER BY id DESC LIMIT 1',
      [originId],
    );
    return row ? Number(row.id) : undefined;
  }

  async mergeMoved(mergeId: number): Promise<number[]> {
    const row = await this.db.get<{ moved: string }>('SELECT moved FROM person_merges WHERE id = ?', [mergeId]);
    return row ? (JSON.parse(row.moved) as Moved).identities : [];
  }

  /** Mail whose address now belongs to `toId` but whose sender is still `fromId` follows its address. */
  private async repointMail(toId: number, fromId: number): Promise<void> {
    await this.db.run(
      `UPDATE email_messages SET sender_id = ? WHERE sender_id = ? AND from_address IN
         (SELECT value FROM identities WHERE person_id = ? AND kind = 'email' AND seen_with = '')`,
      [toId, fromId, toId],
    );
  }

  /** The kept person takes the absorbed one's name and login where it has none. */
  private async adoptFields(kept: number, merged: number): Promise<void> {
    await this.db.run(
      'UPDATE contributors SET name = (SELECT m.name FROM contributors m WHERE m.id = ?) WHERE id = ? AND name IS NULL',
      [merged, kept],
    );
  }

  /**
   * Identities of contributors rows written around `identities` (an import
   * that attached a login to a row): recorded now. Returns how many.
   */
  async recordRowIdentities(): Promise<number> {
    const now = new Date().toISOString();
    const emails = await this.db.run(
      `INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at)
       SELECT c.id, 'email', c.email, '', c.id, CASE WHEN c.source = 'email' THEN 'mail' ELSE 'github-import' END, ?
       FROM contributors c
       WHERE c.email IS NOT NULL AND c.merged_into IS NULL
         AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.kind = 'email' AND i.seen_with = '' AND i.value = c.email)
       ON CONFLICT DO NOTHING`,
      [now],
    );
    const logins = await this.db.run(
      `INSERT INTO identities (person_id, kind, value, seen_with, origin_id, source, seen_at)
       SELECT c.id, 'github_login', lower(c.github_login), '', c.id, 'github-import', ?
       FROM contributors c
       WHERE c.github_login IS NOT NULL AND c.merged_into IS NULL
         AND NOT EXISTS (SELECT 1 FROM identities i WHERE i.kind = 'github_login' AND i.seen_with = '' AND i.value = lower(c.github_login))
       ON CONFLICT DO NOTHING`,
      [now],
    );
    return emails.changes + logins.changes;
  }

  /**
   * Rows that carry a login another person holds as an identity (an import
   * made a row of a login a merge had already placed, or gave a row the login
   * its tracker says goes with its address): each with that person.
   */
  async rowsOfHeldLogins(): Promise<Array<{ rowId: number; holderId: number; login: string }>> {
    const rows = await this.db.all<{ row_id: number; holder_id: number; login: string }>(
      `SELECT c.id AS row_id, i.person_id AS holder_id, i.value AS login
       FROM contributors c JOIN identities i ON i.kind = 'github_login' AND i.seen_with = '' AND i.value = lower(c.github_login)
       WHERE c.github_login IS NOT NULL AND c.merged_into IS NULL AND i.person_id <> c.id
       ORDER BY c.id`,
    );
    return rows.map((r) => ({ rowId: Number(r.row_id), holderId: Number(r.holder_id), login: r.login }));
  }

  /** References to absorbed rows (an import that found a row by its own login) point at the person. */
  async repointAbsorbed(): Promise<void> {
    for (const [table, column] of [
      ['email_messages', 'sender_id'],
      ['issues', 'author_id'],
      ['pull_requests', 'author_id'],
      ['issue_email_messages', 'author_id'],
      ['pull_request_email_messages', 'author_id'],
    ] as const) {
      for (let round = 0; round < 20; round++) {
        const result = await this.db.run(
          `UPDATE ${table} SET ${column} = (SELECT c.merged_into FROM contributors c WHERE c.id = ${table}.${column})
           WHERE ${column} IN (SELECT id FROM contributors WHERE merged_into IS NOT NULL)`,
        );
        if (result.changes === 0) break;
      }
    }
  }

  /** Mail after `afterId`, in id order, for the evidence it carries. */
  async mailAfter(afterId: number, limit: number): Promise<MailEvidence[]> {
    const rows = await this.db.all<Record<string, unknown>>(
      'SELECT id, sender_id, from_name, from_address, is_bot, trailers FROM email_messages WHERE id > ? ORDER BY id LIMIT ?',
      [afterId, limit],
    );
    return rows.map((r) => ({
      id: Number(r.id),
      senderId: r.sender_id === null ? null : Number(r.sender_id),
      fromName: (r.from_name as string | null) ?? null,
      fromAddress: (r.from_address as string | null) ?? null,
      isBot: Boolean(r.is_bot),
      trailers: typeof r.trailers === 'string' ? safeJson(r.trailers) : r.trailers,
    }));
  }

  /**
   * Takes the people lock for the rest of the transaction: an upsert of the
   * mail progress row, which PostgreSQL holds locked until the transaction
   * ends, so a second process's change to people waits for this one and then
   * sees what it committed (SQLite has one writer at a time anyway).
   * changePeople takes it first in every transaction that changes people.
   */
  async lock(): Promise<void> {
    await this.db.run(
      "INSERT INTO people_progress (name, last_id) VALUES ('mail', 0) ON CONFLICT (name) DO UPDATE SET last_id = people_progress.last_id",
    );
  }

  async progress(name: string): Promise<number> {
    const row = await this.db.get<{ last_id: number }>('SELECT last_id FROM people_progress WHERE name = ?', [name]);
    return row ? Number(row.last_id) : 0;
  }

  async setProgress(name: string, lastId: number): Promise<void> {
    await this.db.run(
      'INSERT INTO people_progress (name, last_id) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET last_id = excluded.last_id',
      [name, lastId],
    );
  }

  /** Addresses of people with no GitHub login yet, with their message counts, at least `minMessages`. */
  async addressesWithoutLogin(
    minMessages: number,
  ): Promise<Array<{ address: string; personId: number; messages: number }>> {
    const rows = await this.db.all<{ address: string; person_id: number; messages: number }>(
      `SELECT i.value AS address, i.person_id, COUNT(m.id) AS messages
       FROM identities i JOIN email_messages m ON m.from_address = i.value AND m.sender_id = i.person_id
       WHERE i.kind = 'email' AND i.seen_with = ''
         AND NOT EXISTS (SELECT 1 FROM identities l WHERE l.person_id = i.person_id AND l.kind = 'github_login')
       GROUP BY i.value, i.person_id
       HAVING COUNT(m.id) >= ?
       ORDER BY messages DESC, address`,
      [minMessages],
    );
    return rows.map((r) => ({ address: r.address, personId: Number(r.person_id), messages: Number(r.messages) }));
  }

  /** The stored answer for an address: a lookup, or undefined when none is stored or a negative one is due again. */
  async lookup(address: string, now: string): Promise<GitHubLookup | undefined> {
    const row = await this.db.get<{
      address: string;
      login: string | null;
      github_id: number | null;
      retry_after: unknown;
    }>(
      'SELECT address, login, github_id, retry_after FROM github_lookups WHERE address = ? AND (login IS NOT NULL OR retry_after > ?)',
      [address, now],
    );
    return (
      row && { address: row.address, login: row.login, githubId: row.github_id === null ? null : Number(row.github_id) }
    );
  }

  async saveLookup(lookup: GitHubLookup, retryAfter: string | null): Promise<void> {
    await this.db.run(
      `INSERT INTO github_lookups (address, login, github_id, looked_up_at, retry_after) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT (address) DO UPDATE SET login = excluded.login, github_id = excluded.github_id, looked_up_at = excluded.looked_up_at, retry_after = excluded.retry_after`,
      [lookup.address, lookup.login, lookup.githubId, new Date().toISOString(), retryAfter],
    );
  }

  /** The names of the registered lists: a list's own name is never a person's. */
  async listNames(): Promise<string[]> {
    const rows = await this.db.all<{ name: string }>('SELECT name FROM lists');
    return rows.map((r) => r.name);
  }

  /** People who sent the mail in scope, and the distinct human addresses they sent it from. */
  async senderCounts(
    listIds?: readonly number[],
  ): Promise<{ people: number; addresses: number; identities: number; merges: number }> {
    const scope = listIds ? (listIds.length ? `AND list_id IN (${inPlaceholders(listIds.length)})` : 'AND 1 = 0') : '';
    const row = await this.db.get<{ people: number; addresses: number }>(
      `SELECT COUNT(DISTINCT sender_id) AS people, COUNT(DISTINCT from_address) AS addresses
       FROM email_messages WHERE is_bot = FALSE AND sender_id IS NOT NULL ${scope}`,
      [...(listIds ?? [])],
    );
    const identities = await this.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM identities');
    const merges = await this.db.get<{ n: number }>(
      "SELECT COUNT(*) AS n FROM person_merges WHERE undone_at IS NULL AND rule <> 'split'",
    );
    return {
      people: Number(row?.people ?? 0),
      addresses: Number(row?.addresses ?? 0),
      identities: Number(identities?.n ?? 0),
      merges: Number(merges?.n ?? 0),
    };
  }
}

function toIdentity(row: Record<string, unknown>): Identity {
  return {
    id: Number(row.id),
    personId: Number(row.person_id),
    kind: row.kind as IdentityKind,
    value: row.value as string,
    seenWith: row.seen_with as string,
    originId: Number(row.origin_id),
    source: row.source as IdentitySource,
    seenAt: String(row.seen_at),
  };
}

function toPerson(row: Record<string, unknown>): Person {
  return {
    id: Number(row.id),
    name: (row.name as string | null) ?? null,
    email: (row.email as string | null) ?? null,
    githubLogin: (row.github_login as string | null) ?? null,
    addresses: Number(row.addresses),
    messages: Number(row.messages),
  };
}

function toMerge(row: Record<string, unknown>): PersonMerge {
  return {
    id: Number(row.id),
    keptId: Number(row.kept_id),
    mergedId: Number(row.merged_id),
    rule: row.rule as string,
    reason: row.reason as string,
    evidence: row.evidence as string,
    mergedAt: String(row.merged_at),
    undoneAt: row.undone_at === null ? null : (row.undone_at as string),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
