import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import { runCliJson } from '../helpers/cli.js';
import { queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

/** A question and five replies whose In-Reply-To is a phrase, as MH, exmh and Emacs wrote them (test/fixtures/threads). */
const MBOX = fileURLToPath(new URL('../fixtures/threads/phrase-in-reply-to.mbox', import.meta.url));
const QUESTION = '20090303.abc@example.org';

describeOnDialectDatabases('sync of replies with an old In-Reply-To phrase on $dialect', (databases) => {
  it('threads each reply under the message its phrase names, never under the sender address in the phrase', async () => {
    const db = await databases.create();
    const { code, json, stderr } = await runCliJson<SyncResult>([
      'sync',
      MBOX,
      '--rules',
      'public_inbox',
      '--repo',
      'https://github.com/example/widgets',
      '--db',
      db.url,
    ]);
    expect(code, stderr).toBe(0);
    expect(json.drain).toMatchObject({ drained: 6, shunted: 0 });
    const rows = await queryAt<{ message_key: string; in_reply_to: string | null; thread_root_key: string }>(
      db.url,
      'SELECT message_key, in_reply_to, thread_root_key FROM email_messages ORDER BY sent_at',
    );
    expect(rows.map((r) => [r.message_key, r.in_reply_to, r.thread_root_key])).toEqual([
      [QUESTION, null, QUESTION],
      ['200903031200.exmh@example.net', QUESTION, QUESTION],
      ['200903031300.emacs@example.com', QUESTION, QUESTION],
      ['200903031400.mh@example.com', QUESTION, QUESTION],
      ['87r5.rmail@example.org', '200903031200.exmh@example.net', QUESTION],
      ['200903031600.noid@example.org', null, '200903031600.noid@example.org'],
    ]);
  });
});
