import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import type { Envelope, MsgClass } from '../../src/core/classify/envelope.js';
import { parseEnvelope } from '../../src/core/classify/parse-envelope.js';
import type { Store } from '../../src/core/store/store.js';

/**
 * Stages raw mail the way fetch does and marks it classified with the real
 * envelope, under a class the test chooses, so drain tests control Axis A.
 */
export interface ClassifiedAs {
  msgClass?: MsgClass | null;
  captures?: Record<string, string>;
  classSource?: string;
  envelope?: Partial<Envelope>;
}

export interface StagedRef {
  stagedId: number;
  messageKey: string;
}

export async function stageClassified(
  store: Store,
  listId: number,
  raw: Buffer,
  options: ClassifiedAs = {},
): Promise<StagedRef> {
  const identity = identifyMessage(raw);
  await store.staging.stageBatch(listId, null, [{ raw, ...identity }]);
  // Same content, same row: a duplicate delivery lands on the row already there.
  const row = await store.db.get<{ id: number; message_key: string }>(
    'SELECT id, message_key FROM staged_messages WHERE list_id = ? AND content_hash = ?',
    [listId, identity.contentHash],
  );
  const envelope = { ...(await parseEnvelope(raw)), ...options.envelope };
  const labelled = await store.db.run(
    `UPDATE staged_messages SET status = 'classified', msg_class = ?, class_source = ?, captures = ?, updated_at = ?
     WHERE id = ? AND status = 'staged'`,
    [
      options.msgClass === undefined ? 'discuss' : options.msgClass,
      options.classSource ?? 'test',
      JSON.stringify(options.captures ?? {}),
      new Date().toISOString(),
      row!.id,
    ],
  );
  if (labelled.changes > 0) {
    await store.db.run(`INSERT INTO staged_envelopes (staged_message_id, envelope) VALUES (?, ?)`, [
      row!.id,
      JSON.stringify(envelope),
    ]);
  }
  return { stagedId: Number(row!.id), messageKey: row!.message_key };
}

/** The messages of an mbox file (mboxrd quoting undone). */
export function readMbox(path: string): Buffer[] {
  return splitMboxBuffer(readFileSync(path));
}

/** A tiny RFC 822 message for tests that need exact headers. */
export function mail(headers: Record<string, string>, body = 'text\n'): Buffer {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return Buffer.from(`${lines.join('\n')}\n\n${body}`);
}

/**
 * Stages `messages` on a new mbox list and checks the store keeps them in
 * under `bound` of their size, giving every one back byte for byte.
 */
export async function expectStoredCompressed(store: Store, messages: Buffer[], bound: number): Promise<void> {
  const listId = (await store.lists.register({ system: 'mbox', name: '/tmp/list.mbox' })).list.id;
  await store.staging.stageBatch(
    listId,
    null,
    messages.map((raw) => ({ raw, ...identifyMessage(raw) })),
  );
  const total = await store.db.get<{ stored: number; size: number }>(
    'SELECT SUM(LENGTH(r.raw)) AS stored, SUM(s.size) AS size FROM staged_messages s JOIN staged_message_raws r ON r.staged_message_id = s.id',
  );
  expect(Number(total!.stored)).toBeLessThan(bound * Number(total!.size));
  const digest = (raw: Buffer) => createHash('sha256').update(raw).digest('hex');
  const back = (await store.classify.nextBatch({ listId, statuses: ['staged'] }, 0, 100_000)).map((m) => digest(m.raw));
  expect(new Set(back)).toEqual(new Set(messages.map(digest)));
}
