import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import type { SyncResult } from '../../src/core/sync/sync-lists.js';
import { runCliJson } from '../helpers/cli.js';
import { type TestDatabase, withStoreAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

/** Mail as HyperKitty, Mailman 2.0 and pipermail write it, and one sender in a simple and a multipart message. */
const SENDERS = fileURLToPath(new URL('../fixtures/senders', import.meta.url));
const LONG_ID = 'DB6PR0802MB2600E1F3A2B7C9D8E1F0A1B2C3D4E5F6@DB6PR0802MB2600.eurprd08.prod.outlook.com';

interface Row {
  message_key: string;
  from_name: string | null;
  from_address: string | null;
  sender_email: string | null;
  in_reply_to: string | null;
  thread_root_key: string;
}

describeOnDialectDatabases('senders and reply links of archive software on $dialect', (databases) => {
  let db: TestDatabase;
  let rows: Map<string, Row>;
  let contributors: string[];

  beforeAll(async () => {
    db = await databases.create();
    const add = await runCliJson([
      'lists',
      'add',
      SENDERS,
      '--system',
      'mbox',
      '--address',
      'dev@lists.example.org',
      '--repo',
      'https://github.com/example/dev',
      '--db',
      db.url,
    ]);
    expect(add.code, add.stderr).toBe(0);
    const sync = await runCliJson<SyncResult>(['sync', SENDERS, '--db', db.url]);
    expect(sync.code, sync.stderr).toBe(0);
    expect(sync.json.drain).toMatchObject({ drained: 13, shunted: 0 });
    await withStoreAt(db.url, async (store) => {
      const found = await store.db.all<Row>(
        `SELECT e.message_key, e.from_name, e.from_address, c.email AS sender_email, e.in_reply_to, e.thread_root_key
         FROM email_messages e LEFT JOIN contributors c ON c.id = e.sender_id ORDER BY e.message_key`,
      );
      rows = new Map(found.map((row) => [row.message_key, row]));
      contributors = (await store.db.all<{ email: string }>('SELECT email FROM contributors ORDER BY email')).map(
        (row) => row.email,
      );
    });
  });

  it('threads replies whose HyperKitty In-Reply-To is encoded words under their parent', () => {
    for (const key of [
      '155170000001.4242.11111111111111111111@lists.example.org',
      '155170000002.4242.22222222222222222222@lists.example.org',
    ]) {
      expect(rows.get(key), key).toMatchObject({ in_reply_to: LONG_ID, thread_root_key: LONG_ID });
    }
  });

  it('makes contributors of Mailman 2.0 `Name addr@host` and pipermail `user at host` senders', () => {
    expect(rows.get('20020108100000.A1234@example.org')).toMatchObject({
      from_name: 'Jane Doe',
      from_address: 'jane@example.org',
      sender_email: 'jane@example.org',
    });
    expect(rows.get('20020108113000.B5678@mail.example.com')).toMatchObject({
      from_address: 'tom.obrien@mail.example.com',
      sender_email: 'tom.obrien@mail.example.com',
    });
    expect(rows.get('CABm2gDqrxWNONtLEjWU@mail.gmail.example')).toMatchObject({
      from_name: 'Jorge Timón',
      sender_email: 'jtimon@jtimon.example',
    });
    expect(rows.get('20230510080000.pm@acinq.example')).toMatchObject({
      from_address: 'pm+lists@acinq.example',
      sender_email: 'pm+lists@acinq.example',
    });
  });

  it('never makes the list or its -bounces and -owner addresses a contributor, and keeps the name and address as written', () => {
    expect(contributors.filter((email) => email.endsWith('@lists.example.org'))).toEqual([]);
    expect(rows.get('200703011015.00001.reinhard@web.example')).toMatchObject({
      from_name: 'Reinhard Katzmann',
      from_address: 'dev@lists.example.org',
      sender_email: null,
    });
    expect(rows.get('832857ae0702281700p420da75r2d983f7b638928d7@mail.gmail.example')).toMatchObject({
      from_name: null,
      from_address: 'dev@lists.example.org',
      sender_email: null,
    });
    expect(rows.get('mailman.3.1172750400.1234.dev@lists.example.org')).toMatchObject({
      from_address: 'dev-bounces@lists.example.org',
      sender_email: null,
    });
    expect(rows.get('mailman.4.1172752200.1234.dev@lists.example.org')).toMatchObject({
      from_address: 'dev-owner@lists.example.org',
      sender_email: null,
    });
  });

  it('makes one contributor of one punycode sender in a simple and a multipart message', () => {
    expect(contributors.filter((email) => email.startsWith('juergen@'))).toEqual(['juergen@xn--bcher-kva.example']);
    expect(rows.get('155177640000.1.juergen@xn--bcher-kva.example')!.sender_email).toBe(
      'juergen@xn--bcher-kva.example',
    );
    expect(rows.get('155170000002.4242.22222222222222222222@lists.example.org')!.sender_email).toBe(
      'juergen@xn--bcher-kva.example',
    );
  });
});
