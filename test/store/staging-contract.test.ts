import { beforeEach, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { isSameMail } from '../../src/core/archive/same-mail.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

function mail(id: string | null, body: string, transport = ''): Buffer {
  const idLine = id ? `Message-ID: <${id}>\n` : '';
  return Buffer.from(
    `${transport}From: A <a@example.org>\nSubject: s\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n${idLine}\n${body}\n`,
  );
}
const stage = (raw: Buffer) => ({ raw, ...identifyMessage(raw) });

describeOnDialects('staging contract on $dialect', (getStore) => {
  let listId: number;
  beforeEach(async () => {
    const store = getStore();
    listId = (await store.lists.register({ system: 'mbox', name: '/x.mbox' })).list.id;
  });
  const keys = async () =>
    (
      await getStore().db.all<{ message_key: string }>('SELECT message_key FROM staged_messages ORDER BY message_key')
    ).map((r) => r.message_key);

  it('stores a batch once however often it is staged', async () => {
    const store = getStore();
    const batch = [stage(mail('a@x', 'one')), stage(mail('b@x', 'two')), stage(mail(null, 'no id'))];
    expect(await store.staging.stageBatch(listId, '2024-01', batch)).toMatchObject({ staged: 3, duplicates: 0 });
    expect(await store.staging.stageBatch(listId, '2024-01', batch)).toMatchObject({ staged: 0, duplicates: 3 });
    expect(await keys()).toHaveLength(3);
  });

  it('treats the same mail with other transport headers as one message', async () => {
    const store = getStore();
    const first = stage(mail('a@x', 'one', 'Received: from relay1\nDelivered-To: x@y\n'));
    const second = stage(mail('a@x', 'one', 'Received: from relay2\nArchived-At: <http://a>\n'));
    expect(await store.staging.stageBatch(listId, null, [first, second])).toMatchObject({ staged: 1, duplicates: 1 });
  });

  it('keeps two different mails that reuse one Message-ID, in any order', async () => {
    const store = getStore();
    const a = stage(mail('dup@x', 'first text'));
    const b = stage(mail('dup@x', 'second text'));
    await store.staging.stageBatch(listId, null, [a, b]);
    const once = await keys();
    expect(once).toHaveLength(2);
    expect(once).toContain('dup@x');
    await store.staging.stageBatch(listId, null, [b, a]);
    expect(await keys()).toEqual(once);
  });

  it('looks a batch up by its keys, and by a variant key only where the key holds other mail', async () => {
    const store = getStore();
    await store.staging.stageBatch(listId, null, [stage(mail('held@x', 'first text'))]);
    const batch = [
      stage(mail('held@x', 'second text')),
      ...Array.from({ length: 9 }, (_, i) => stage(mail(`new${i}@x`, `text ${i}`))),
    ];
    const looked: unknown[] = [];
    const { db } = store;
    const all = db.all.bind(db);
    db.all = ((sql: string, params?: unknown[]) => {
      if (sql.includes('FROM staged_messages WHERE list_id = ? AND message_key IN')) looked.push(...params!.slice(1));
      return all(sql, params as never);
    }) as typeof db.all;
    try {
      // The first is a second mail under a held Message-ID: it goes under its variant key.
      expect(await store.staging.unstored(listId, batch)).toEqual(batch.map((_, index) => index));
    } finally {
      db.all = all;
    }
    expect(batch.every((m) => m.variantKey !== null)).toBe(true);
    expect(looked.sort()).toEqual([...batch.map((m) => m.key), batch[0]!.variantKey].sort());
  });

  it('takes the same mail re-exported with another MIME boundary and quoting as the message it already holds', async () => {
    const store = getStore();
    const exported = (boundary: string, quote: string, text = 'reply text') =>
      stage(
        Buffer.from(
          `From: A <a@example.org>\nSubject: s\nDate: Mon, 1 Jan 2024 10:00:00 +0000\nMessage-ID: <re@x>\n` +
            `Content-Type: multipart/mixed; boundary="${boundary}"\n\n--${boundary}\nContent-Type: text/plain\n\n${text}\n${quote}From here on\n--${boundary}--\n`,
        ),
      );
    const first = exported('===============111==', '>');
    const again = exported('===============222==', '');
    const other = exported('===============333==', '', 'a different reply under the same id');
    expect(first.contentHash).not.toBe(again.contentHash);
    expect(await store.staging.stage(listId, null, [first], { sameMail: isSameMail })).toMatchObject({
      staged: 1,
      duplicates: 0,
    });
    expect(await store.staging.stage(listId, null, [again], { sameMail: isSameMail })).toMatchObject({
      staged: 0,
      duplicates: 1,
    });
    // In one batch too, and a really different mail under that id is still kept.
    expect(
      await store.staging.stage(listId, null, [exported('===============444==', '>'), other], { sameMail: isSameMail }),
    ).toMatchObject({ staged: 1, duplicates: 1 });
    expect(await keys()).toEqual(['re@x', `re@x#${other.contentHash.slice(0, 16)}`]);
  });

  it('takes a re-export as the mail it is when another mail held the Message-ID first, in any order and batching', async () => {
    const store = getStore();
    // `first` and `rewrapped` are one mail (a line wrapped otherwise); `other` is a different mail reusing its id.
    const first = stage(mail('pr@x', 'The following changes since commit\ne10117d36ef7:'));
    const rewrapped = stage(mail('pr@x', 'The following changes since commit e10117d36ef7:'));
    const other = stage(mail('pr@x', 'A different mail that reuses the id.'));
    expect(isSameMail(first.raw, rewrapped.raw)).toBe(true);
    const rowsOf = async (batches: (typeof first)[][]) => {
      await store.db.run('DELETE FROM staged_messages');
      for (const batch of batches) await store.staging.stage(listId, null, batch, { sameMail: isSameMail });
      return keys();
    };
    const expected = await rowsOf([[first, rewrapped, other]]);
    expect(expected).toHaveLength(2);
    for (const batches of [
      [[other, first, rewrapped]],
      [[other], [first], [rewrapped]],
      [[other, first], [rewrapped]],
      [[rewrapped, other, first]],
      [[other], [rewrapped, first]],
    ])
      expect(await rowsOf(batches)).toHaveLength(2);
  });

  it('gives a message without Message-ID a stable key from its content', async () => {
    const store = getStore();
    await store.staging.stageBatch(listId, null, [stage(mail(null, 'anonymous'))]);
    const [key] = await keys();
    expect(key).toMatch(/^synthetic-[0-9a-f]{40}@listminer\.invalid$/);
    await store.staging.stageBatch(listId, null, [stage(mail(null, 'anonymous'))]);
    expect(await keys()).toEqual([key]);
  });

  it('stores a cross-posted mail once per list', async () => {
    const store = getStore();
    const other = (await store.lists.register({ system: 'mbox', name: '/y.mbox' })).list.id;
    const m = stage(mail('x@x', 'cross'));
    await store.staging.stageBatch(listId, null, [m]);
    expect(await store.staging.stageBatch(other, null, [m])).toMatchObject({ staged: 1, duplicates: 0 });
  });

  it('stages a message whose Message-ID carries NUL and control bytes', async () => {
    const store = getStore();
    const raw = Buffer.from('From: a@example.org\nMessage-ID: <bad\u0000id\u0001@x>\nSubject: s\n\nbody\n', 'latin1');
    expect(await store.staging.stageBatch(listId, null, [stage(raw)])).toMatchObject({ staged: 1, duplicates: 0 });
    expect(await keys()).toEqual(['badid@x']);
  });

  it('checkpoints the month in the same transaction as the batch', async () => {
    const store = getStore();
    await store.staging.stageBatch(listId, '2024-02', [stage(mail('a@x', 'one'))], {
      month: '2024-02',
      seen: 1,
      staged: 1,
    });
    const list = await store.lists.byId(listId);
    expect(list!.lastMonth).toBe('2024-02');
    expect(await store.db.all('SELECT month, messages_seen, messages_staged FROM fetched_months')).toEqual([
      { month: '2024-02', messages_seen: 1, messages_staged: 1 },
    ]);
  });

  it('names the rows it wrote by their place in the batch, and forecasts which messages a batch would write', async () => {
    const store = getStore();
    const a = stage(mail('a@x', 'one'));
    const b = stage(mail('b@x', 'two'));
    const reused = stage(mail('a@x', 'another mail under the id of a'));
    await store.staging.stageBatch(listId, null, [a]);
    // b is new, a is held, the copy of b later in the batch is a repeat, and a mail reusing a's id takes a variant key.
    const batch = [a, b, b, reused];
    expect(await store.staging.unstored(listId, batch)).toEqual([1, 3]);
    const result = await store.staging.stageBatch(listId, null, batch);
    expect(result).toMatchObject({ staged: 2, duplicates: 2 });
    const ids = new Map(
      (await store.db.all<{ id: number; message_key: string }>('SELECT id, message_key FROM staged_messages')).map(
        (row) => [row.message_key, Number(row.id)],
      ),
    );
    expect(result.rows.sort((x, y) => x.index - y.index)).toEqual([
      { id: ids.get('b@x'), key: 'b@x', index: 1 },
      { id: ids.get(reused.variantKey!), key: reused.variantKey, index: 3 },
    ]);
    expect(await store.staging.unstored(listId, batch)).toEqual([]);
  });
});
