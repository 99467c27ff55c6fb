import { createHash } from 'node:crypto';
import { openStore } from '../../src/core/store/open-store.js';
import { decodeRaw } from '../../src/core/store/raw-codec.js';

/**
 * What a finished pipeline leaves in a store, keyed by list name and message
 * key so two databases filled by different runs compare row for row (ids
 * differ between runs; what they hold must not).
 */
export interface StoreDigest {
  /** list|key → status and content hash of every staged message. */
  staged: Record<string, string>;
  /** list|key → class, of staged messages that have one. */
  classes: Record<string, string>;
  /** list|key → thread root key, of every drained message. */
  threadRoots: Record<string, string>;
  /** list|key → sha256 of the stored body text. */
  bodies: Record<string, string>;
  /** email <name> of every contributor, sorted. */
  contributors: string[];
  /** Locks still held: "stage list (pid N)". */
  locks: string[];
  /** list|key → projected_kind, of every drained message. */
  projected: Record<string, string>;
  /** Issues by repo and key (synthetic ones carry no stable id across runs): state and comment count. */
  issues: string[];
}

export async function digestStore(url: string): Promise<StoreDigest> {
  const store = await openStore(url);
  try {
    const db = store.db;
    const staged = await db.all<{
      name: string;
      message_key: string;
      status: string;
      content_hash: string;
      msg_class: string | null;
    }>(
      'SELECT l.name, s.message_key, s.status, s.content_hash, s.msg_class FROM staged_messages s JOIN lists l ON l.id = s.list_id',
    );
    const drained = await db.all<{
      name: string;
      message_key: string;
      thread_root_key: string | null;
      body_hash: string | null;
    }>(
      `SELECT l.name, e.message_key, e.thread_root_key, b.content_hash AS body_hash
         FROM email_messages e JOIN lists l ON l.id = e.list_id
         LEFT JOIN email_message_bodies eb ON eb.email_message_id = e.id
         LEFT JOIN message_bodies b ON b.id = eb.body_id`,
    );
    const contributors = await db.all<{ email: string | null; name: string | null }>(
      'SELECT email, name FROM contributors',
    );
    const locks = await db.all<{ stage: string; name: string; locked_pid: number | null }>(
      'SELECT s.stage, l.name, s.locked_pid FROM stage_locks s JOIN lists l ON l.id = s.list_id WHERE s.locked_at IS NOT NULL OR s.locked_pid IS NOT NULL ORDER BY s.stage, l.name',
    );
    const projected = await db.all<{ name: string; message_key: string; projected_kind: string | null }>(
      'SELECT l.name, e.message_key, e.projected_kind FROM email_messages e JOIN lists l ON l.id = e.list_id',
    );
    const issues = await db.all<{
      url: string;
      external_key: string | null;
      number: number | null;
      state: string | null;
      comment_count: number;
    }>(
      'SELECT r.url, i.external_key, i.number, i.state, i.comment_count FROM issues i JOIN repos r ON r.id = i.repo_id',
    );
    const sorted = <T>(entries: Array<[string, T]>) =>
      Object.fromEntries(entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0)));
    return {
      staged: sorted(staged.map((r) => [`${r.name}|${r.message_key}`, `${r.status} ${r.content_hash}`])),
      classes: sorted(
        staged.filter((r) => r.msg_class !== null).map((r) => [`${r.name}|${r.message_key}`, r.msg_class!]),
      ),
      threadRoots: sorted(drained.map((r) => [`${r.name}|${r.message_key}`, String(r.thread_root_key)])),
      bodies: sorted(drained.map((r) => [`${r.name}|${r.message_key}`, String(r.body_hash)])),
      contributors: contributors.map((r) => `${r.email} <${r.name ?? ''}>`).sort(),
      locks: locks.map((r) => `${r.stage} ${r.name} (pid ${r.locked_pid})`),
      projected: sorted(projected.map((r) => [`${r.name}|${r.message_key}`, String(r.projected_kind)])),
      issues: issues
        .map((r) => `${r.url} ${r.external_key ?? `#${r.number}`}: ${r.state} with ${Number(r.comment_count)} comments`)
        .sort(),
    };
  } finally {
    await store.close();
  }
}

/** Staged rows per status, over every list. */
export async function countByStatus(url: string): Promise<Record<string, number>> {
  const store = await openStore(url);
  try {
    const rows = await store.db.all<{ status: string; n: number }>(
      'SELECT status, COUNT(*) AS n FROM staged_messages GROUP BY status',
    );
    return Object.fromEntries(rows.map((r) => [r.status, Number(r.n)]));
  } finally {
    await store.close();
  }
}

/** Key → sha256 of the raw bytes of every staged message: what two fetches of one archive must agree on to the byte. */
export async function stagedDigests(url: string): Promise<Map<string, string>> {
  const store = await openStore(url);
  try {
    const rows = await store.db.all<{ message_key: string; raw: Buffer | Uint8Array; raw_codec: string | null }>(
      'SELECT message_key, raw, raw_codec FROM staged_messages JOIN staged_message_raws ON staged_message_id = id ORDER BY message_key',
    );
    return new Map(
      rows.map((row) => [
        row.message_key,
        createHash('sha256').update(decodeRaw(row.raw, row.raw_codec)).digest('hex'),
      ]),
    );
  } finally {
    await store.close();
  }
}
