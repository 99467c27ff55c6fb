import { expect, it } from 'vitest';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { addTestList, drain, statusCounts } from '../helpers/drain-fixtures.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

function dated(id: string, date: string): Buffer {
  return mail({ From: 'a@example.org', Subject: 'a subject', Date: date, 'Message-ID': `<${id}>` });
}

describeOnDialects('drain of dates outside 1970 through next year on $dialect', (getStore) => {
  async function sentAt(messageKey: string) {
    return getStore().db.get<{ sent_at: unknown; sent_at_offset: unknown }>(
      'SELECT sent_at, sent_at_offset FROM email_messages WHERE message_key = ?',
      [messageKey],
    );
  }

  it('drains messages of year 99999 and 1969 with no sent_at, and keeps a plausible one', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
    await stageClassified(store, listId, dated('far@x', 'Mon, 01 Jan 99999 00:00:00 +0000'));
    await stageClassified(store, listId, dated('early@x', 'Tue, 31 Dec 1969 12:00:00 -0500'));
    await stageClassified(store, listId, dated('plain@x', 'Mon, 1 Jan 2024 10:00:00 +0100'));

    expect(await drain(store)).toMatchObject({ drained: 3, shunted: 0 });
    expect(await statusCounts(store, listId)).toEqual({ drained: 3 });
    expect(await sentAt('far@x')).toEqual({ sent_at: null, sent_at_offset: null });
    expect(await sentAt('early@x')).toEqual({ sent_at: null, sent_at_offset: null });
    const plain = await sentAt('plain@x');
    expect(new Date(plain!.sent_at as string).toISOString()).toBe('2024-01-01T09:00:00.000Z');
  });

  it('drains an envelope stored with year 99999 by an earlier listminer with no sent_at', async () => {
    const store = getStore();
    const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
    await stageClassified(store, listId, dated('old-far@x', 'Mon, 01 Jan 99999 00:00:00 +0000'), {
      envelope: { date: '+099999-01-01T00:00:00.000Z' },
    });
    await stageClassified(store, listId, dated('old-early@x', 'Tue, 31 Dec 1969 12:00:00 -0500'), {
      envelope: { date: '1969-12-31T17:00:00.000Z' },
    });

    expect(await drain(store)).toMatchObject({ drained: 2, shunted: 0 });
    expect((await sentAt('old-far@x'))!.sent_at).toBeNull();
    expect((await sentAt('old-early@x'))!.sent_at).toBeNull();
  });
});
