import { readFileSync } from 'node:fs';
import { identifyMessage, normalizeMessageId } from '../../src/core/archive/message-key.js';
import { firstField, readHeaderBlock } from '../../src/core/archive/raw-headers.js';
import type { Envelope, MsgClass } from '../../src/core/classify/envelope.js';
import type { Store } from '../../src/core/store/store.js';

/**
 * Stands in for fetch + classify in drain tests: stages raw mail the way
 * fetch does and marks it classified with an envelope read from its headers.
 * The header reading is deliberately plain (no MIME decoding); the real
 * classifier can take its place behind the same signature.
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

export async function stageClassified(store: Store, listId: number, raw: Buffer, options: ClassifiedAs = {}): Promise<StagedRef> {
  const identity = identifyMessage(raw);
  await store.staging.stageBatch(listId, null, [{ raw, ...identity }]);
  // Same content, same row: a duplicate delivery lands on the row already there.
  const row = await store.db.get<{ id: number; message_key: string }>('SELECT id, message_key FROM staged_messages WHERE list_id = ? AND content_hash = ?', [
    listId,
    identity.contentHash,
  ]);
  const envelope = { ...readEnvelope(raw), ...options.envelope };
  await store.db.run(
    `UPDATE staged_messages SET status = 'classified', msg_class = ?, class_source = ?, captures = ?, envelope = ?, updated_at = ?
     WHERE id = ? AND status = 'staged'`,
    [
      options.msgClass === undefined ? 'discuss' : options.msgClass,
      options.classSource ?? 'test',
      JSON.stringify(options.captures ?? {}),
      JSON.stringify(envelope),
      new Date().toISOString(),
      row!.id,
    ],
  );
  return { stagedId: Number(row!.id), messageKey: row!.message_key };
}

/** A plain envelope from the raw headers: ids, From, Subject, Date, the body as text. */
export function readEnvelope(raw: Buffer): Envelope {
  const block = readHeaderBlock(raw);
  const field = (name: string) => firstField(block, name);
  const from = parseFrom(field('from'));
  const dateText = field('date');
  const time = dateText ? new Date(dateText.replace(/\s*\([^)]*\)\s*$/, '')).getTime() : NaN;
  const offset = dateText ? /([+-])(\d{2})(\d{2})\s*(\(.*\))?$/.exec(dateText) : null;
  const body = raw.subarray(block.bodyOffset).toString('utf8');
  return {
    messageId: normalizeMessageId(field('message-id')),
    inReplyTo: field('in-reply-to') ? (ids(field('in-reply-to')!).at(-1) ?? null) : null,
    references: ids((block.fields.get('references') ?? []).join(' ')),
    subject: field('subject') ?? '',
    fromName: from.name,
    fromAddress: from.address,
    date: Number.isNaN(time) ? null : new Date(time).toISOString(),
    dateOffsetMinutes: offset ? (offset[1] === '-' ? -1 : 1) * (Number(offset[2]) * 60 + Number(offset[3])) : null,
    listId: field('list-id')?.match(/<([^>]+)>/)?.[1] ?? null,
    listAddress: null,
    body,
    hasPatch: /^diff --git /m.test(body),
    trailers: [],
    series: null,
    size: raw.length,
  };
}

function ids(value: string): string[] {
  return [...value.matchAll(/<([^<>]+)>/g)].map((m) => m[1]!.replace(/\s+/g, ''));
}

function parseFrom(value: string | undefined): { name: string | null; address: string | null } {
  if (!value) return { name: null, address: null };
  const angle = /^(.*)<([^<>]+)>\s*$/.exec(value);
  if (angle) {
    const name = angle[1]!.trim().replace(/^"(.*)"$/, '$1').trim();
    return { name: name || null, address: angle[2]!.trim().toLowerCase() };
  }
  const paren = /^(\S+@\S+)\s*\((.*)\)\s*$/.exec(value);
  if (paren) return { name: paren[2]!.trim() || null, address: paren[1]!.toLowerCase() };
  return { name: null, address: value.trim().toLowerCase() };
}

/** The messages of an mbox file (mboxrd quoting undone). */
export function readMbox(path: string): Buffer[] {
  const text = readFileSync(path, 'latin1');
  return text
    .split(/^From .*\r?\n/m)
    .filter((chunk) => chunk.trim().length > 0)
    .map((chunk) => Buffer.from(chunk.replace(/^>(>*From )/gm, '$1'), 'latin1'));
}

/** A tiny RFC 822 message for tests that need exact headers. */
export function mail(headers: Record<string, string>, body = 'text\n'): Buffer {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return Buffer.from(`${lines.join('\n')}\n\n${body}`);
}
