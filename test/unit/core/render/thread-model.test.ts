import { describe, expect, it } from 'vitest';
import { buildThreads, toMbox } from '../../../../src/core/render/thread-model.js';
import type { RenderHead } from '../../../../src/core/store/render-records.js';

const head = (id: number, root: number, inReplyTo: string | null, sentAt: string | null): RenderHead => ({
  id,
  messageKey: `m${id}@x`,
  messageId: `m${id}@x`,
  threadRootId: root,
  inReplyTo,
  fromName: null,
  senderId: null,
  fromAddress: `p${id}@x`,
  isBot: false,
  subject: `s${id}`,
  sentAt,
  msgClass: 'discuss',
  hasPatch: false,
  patchSeriesId: null,
  patchVersion: null,
});

describe('buildThreads', () => {
  it('hangs replies under the message they answer, and orders threads by their first message', () => {
    const threads = buildThreads('l', [
      head(5, 5, null, '2024-02-01T00:00:00.000Z'),
      head(1, 1, null, '2024-01-01T00:00:00.000Z'),
      head(2, 1, 'm1@x', '2024-01-02T00:00:00.000Z'),
      head(3, 1, 'm2@x', '2024-01-03T00:00:00.000Z'),
      head(4, 1, 'gone@x', '2024-03-01T00:00:00.000Z'),
    ]);
    expect(threads.map((t) => t.root.id)).toEqual([1, 5]);
    expect(threads[0]!.tree.map(({ item, depth }) => [item.id, depth])).toEqual([
      [1, 0],
      [2, 1],
      [3, 2],
      [4, 1],
    ]);
    expect(threads[0]!.month).toBe('2024-01');
    expect(threads[0]!.lastAt).toBe('2024-03-01T00:00:00.000Z');
  });

  it('puts messages whose In-Reply-To make a loop under the root, none lost', () => {
    const threads = buildThreads('l', [head(1, 1, null, null), head(2, 1, 'm3@x', null), head(3, 1, 'm2@x', null)]);
    const tree = threads[0]!.tree;
    expect(tree.map(({ item }) => item.id).sort()).toEqual([1, 2, 3]);
    expect(tree[0]).toMatchObject({ item: { id: 1 }, depth: 0 });
    expect(tree.filter(({ depth }) => depth === 1)).toHaveLength(1); // the loop is cut once, under the root
    expect(threads[0]!.month).toBe('undated');
  });
});

describe('toMbox', () => {
  it('quotes From lines of the body (mboxrd) and keeps the bytes', () => {
    const raw = Buffer.from('Subject: \xe9\n\nFrom here\n>From there\n', 'latin1');
    const mbox = toMbox([{ raw, from: 'a@x', sentAt: '2024-02-06T15:09:00.000Z' }]).toString('latin1');
    expect(mbox).toBe('From a@x Tue Feb  6 15:09:00 2024\nSubject: \xe9\n\n>From here\n>>From there\n\n');
  });
});
