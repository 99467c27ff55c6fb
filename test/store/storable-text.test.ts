import { expect, it } from 'vitest';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { addTestList, drain, statusCounts } from '../helpers/drain-fixtures.js';
import { mail, stageClassified } from '../helpers/stage-classified.js';

describeOnDialects(
  'drain of envelopes staged with lone surrogates on $dialect',
  (getStore) => {
    it('stores U+FFFD in their place, so an envelope classified before the text rule still drains', async () => {
      const store = getStore();
      const listId = await addTestList(store, 'dev@kafka.apache.org', 'https://github.com/apache/kafka');
      const raw = mail({
        From: 'a@example.org',
        Subject: 'x',
        Date: 'Mon, 1 Jan 2024 10:00:00 +0000',
        'Message-ID': '<old-envelope@x>',
      });
      // What classify wrote before: JSON.stringify keeps a lone surrogate as the escape \ud83d.
      await stageClassified(store, listId, raw, {
        envelope: {
          subject: 'half \ud83d',
          fromName: 'name \udc00',
          fromAddress: 'a\ud800@example.org',
          body: 'body \ud83d',
          references: ['ref\udfff@x'],
          trailers: [{ kind: 'Acked-by', name: 'ack \ud83d', address: 'b@example.org' }],
        },
        captures: { topic: 'cut \ud83d' },
      });
      await drain(store);
      expect(await statusCounts(store, listId)).toEqual({ drained: 1 });
      const row = await store.db.get<{
        subject: string;
        from_name: string;
        from_address: string;
        captures: unknown;
        trailers: string;
        body_text: string;
      }>(
        `SELECT e.subject, e.from_name, e.from_address, e.captures, e.trailers, b.body_text FROM email_messages e
         JOIN email_message_bodies eb ON eb.email_message_id = e.id JOIN message_bodies b ON b.id = eb.body_id`,
      );
      expect(row).toMatchObject({
        subject: 'half \uFFFD',
        from_name: 'name \uFFFD',
        from_address: 'a\uFFFD@example.org',
        body_text: 'body \uFFFD',
      });
      const captures = typeof row!.captures === 'string' ? JSON.parse(row!.captures) : row!.captures;
      expect(captures).toEqual({ topic: 'cut \uFFFD' });
      expect(JSON.parse(row!.trailers)).toEqual([{ kind: 'Acked-by', name: 'ack \uFFFD', address: 'b@example.org' }]);
    });
  },
  {
    only: ['sqlite'],
    onlyWhy:
      'PostgreSQL never stored such envelopes: its JSON refuses a lone surrogate, so that mail stayed staged and classify now makes it storable',
  },
);
