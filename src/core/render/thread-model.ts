import type { RenderHead } from '../store/render-records.js';
import { callNumber, shard } from './call-number.js';
import { compareText } from './site-writer.js';
import { addToGroup } from '../add-to-group.js';

/** A message head with its call number. */
export interface Item extends RenderHead {
  call: string;
}

/** One thread of a list: its messages in reply-tree order, and figures for the tables. */
export interface Thread {
  call: string;
  root: Item;
  /** Messages depth-first through the reply tree, each with its depth. */
  tree: Array<{ item: Item; depth: number }>;
  /** Parent of each message by call number (the root has none). */
  parents: Map<string, string>;
  startedAt: string | null;
  lastAt: string | null;
  /** UTC month the thread started, or 'undated'. */
  month: string;
  participants: number;
  messageCount: number;
}

/** What a page needs of another thread to link to it: its address and its root's subject. */
export interface ThreadLink {
  call: string;
  root: Pick<Item, 'subject'>;
}

export const UNDATED = 'undated';

/** Site paths of a message and a thread. */
export const paths = {
  message: (call: string) => `m/${shard(call)}/${call}.html`,
  raw: (call: string) => `m/${shard(call)}/${call}.eml`,
  thread: (call: string) => `t/${shard(call)}/${call}.html`,
  mbox: (call: string) => `t/${shard(call)}/${call}.mbox`,
  series: (call: string) => `s/${shard(call)}/${call}.html`,
  person: (call: string) => `p/${shard(call)}/${call}.html`,
};

/** Earlier first; undated last; the call number breaks ties the same way everywhere. */
export function earlierFirst(aAt: string | null, aCall: string, bAt: string | null, bCall: string): number {
  if (aAt !== bAt) {
    if (aAt === null) return 1;
    if (bAt === null) return -1;
    return compareText(aAt, bAt);
  }
  return compareText(aCall, bCall);
}

/** Messages in the order they were sent. */
const byTime = (a: Item, b: Item) => earlierFirst(a.sentAt, a.call, b.sentAt, b.call);

/** Threads by their first message, in the order of byTime, without copying a head for each comparison. */
const byStart = (a: Thread, b: Thread) => earlierFirst(a.startedAt, a.call, b.startedAt, b.call);

/**
 * A list's threads from its messages: one thread per thread_root_id (drain's
 * decision, docs/drain.md), in order of their first message. Inside a thread
 * a message hangs under the message its In-Reply-To names when that one is in
 * the thread, else under the root.
 */
export function buildThreads(key: string, heads: readonly RenderHead[]): Thread[] {
  const groups = new Map<number, Item[]>();
  for (const head of heads) {
    const item: Item = { ...head, call: callNumber(key, head.messageKey) };
    const root = head.threadRootId ?? head.id;
    addToGroup(groups, root, item);
  }
  const threads: Thread[] = [];
  for (const [rootId, items] of groups) {
    items.sort(byTime);
    const root = items.find((i) => i.id === rootId) ?? items[0]!;
    threads.push(shapeThread(root, items));
  }
  return threads.sort(byStart);
}

/** The id that groups a thread's messages: thread_root_id, or the id of its one message that has none. */
export function threadRootId(thread: Thread): number {
  return thread.root.threadRootId ?? thread.root.id;
}

function shapeThread(root: Item, items: Item[]): Thread {
  const byMessageId = new Map<string, Item>();
  for (const item of items)
    if (item.messageId && !byMessageId.has(item.messageId)) byMessageId.set(item.messageId, item);
  const parents = new Map<string, string>();
  for (const item of items) {
    if (item === root) continue;
    const named = item.inReplyTo ? byMessageId.get(item.inReplyTo) : undefined;
    parents.set(item.call, named && named !== item ? named.call : root.call);
  }
  // A loop of In-Reply-To never reaches the root: its messages hang under the root instead.
  for (const item of items) {
    const seen = new Set<string>();
    let at: string | undefined = item.call;
    while (at !== undefined && at !== root.call && !seen.has(at)) {
      seen.add(at);
      at = parents.get(at);
    }
    if (at !== root.call) parents.set(item.call, root.call);
  }
  const children = new Map<string, Item[]>();
  for (const item of items) {
    const parent = parents.get(item.call);
    if (parent === undefined) continue;
    addToGroup(children, parent, item);
  }
  const tree: Thread['tree'] = [];
  const visit = (item: Item, depth: number) => {
    tree.push({ item, depth });
    for (const child of children.get(item.call) ?? []) visit(child, depth + 1);
  };
  visit(root, 0);
  const dated = items.filter((i) => i.sentAt !== null).map((i) => i.sentAt!);
  const startedAt = dated.length ? dated.reduce((a, b) => (b < a ? b : a)) : null;
  const lastAt = dated.length ? dated.reduce((a, b) => (b > a ? b : a)) : null;
  return {
    call: root.call,
    root,
    tree,
    parents,
    startedAt,
    lastAt,
    month: startedAt ? startedAt.slice(0, 7) : UNDATED,
    participants: new Set(items.map((i) => (i.fromAddress ?? i.fromName ?? '').toLowerCase())).size,
    messageCount: items.length,
  };
}

/** mboxrd: each message after a `From ` line, its own `From ` lines quoted with one more `>`. */
export function toMbox(messages: ReadonlyArray<{ raw: Buffer; from: string | null; sentAt: string | null }>): Buffer {
  const parts: Buffer[] = [];
  for (const message of messages) {
    const text = message.raw.toString('latin1').replace(/\r\n/g, '\n');
    const quoted = `${trimNewlines(text.replace(/^(>*From )/gm, '>$1'))}\n`;
    parts.push(
      Buffer.from(
        `From ${(message.from ?? 'MAILER-DAEMON').replace(/\s+/g, '') || 'MAILER-DAEMON'} ${asctime(message.sentAt)}\n${quoted}\n`,
        'latin1',
      ),
    );
  }
  return Buffer.concat(parts);
}

/** The text without its trailing newlines (a regular expression anchored at the end tries every position of a long text). */
function trimNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 10) end--;
  return end === text.length ? text : text.slice(0, end);
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

function asctime(iso: string | null): string {
  const d = new Date(iso ?? 0);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}
