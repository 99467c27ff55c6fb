import { decodeRaw } from '../../src/core/store/raw-codec.js';
import { beforeEach, expect, it } from 'vitest';
import { identifyMessage } from '../../src/core/archive/message-key.js';
import { classifyStaged } from '../../src/core/classify/classify-staged.js';
import { silentProgress } from '../../src/core/progress.js';
import { parseJson } from '../../src/core/store/row-mapping.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';
import { editedSystems, VOTE_RULE, votesAsDiscuss } from '../helpers/edited-systems.js';

const mail = (id: string, subject: string, from = 'Jane <jane@example.org>', body = 'text') =>
  Buffer.from(
    `From: ${from}\nSubject: ${subject}\nDate: Mon, 1 Jan 2024 10:00:00 +0100\nMessage-ID: <${id}>\n\n${body}\n`,
  );
const stage = (raw: Buffer) => ({ raw, ...identifyMessage(raw) });

describeOnDialects('classify stage on $dialect', (getStore) => {
  let listId: number;
  const systems = loadSystems();
  const rows = () =>
    getStore()
      .db.all<{
        message_key: string;
        status: string;
        msg_class: string | null;
        class_source: string | null;
        captures: string | null;
        envelope: string | null;
        error: string | null;
        raw: Buffer;
        raw_codec: string | null;
      }>(
        `SELECT message_key, status, msg_class, class_source, captures, error, raw, raw_codec,
           (SELECT envelope FROM staged_envelopes WHERE staged_envelopes.staged_message_id = staged_messages.id) AS envelope
         FROM staged_messages JOIN staged_message_raws ON staged_message_raws.staged_message_id = staged_messages.id ORDER BY message_key`,
      )
      .then((rows) => rows.map((row) => ({ ...row, raw: decodeRaw(row.raw, row.raw_codec) })));
  const byKey = async (key: string) => (await rows()).find((r) => r.message_key === key)!;

  beforeEach(async () => {
    const store = getStore();
    listId = (
      await store.lists.register({
        system: 'apache_ponymail',
        name: 'dev@kafka.apache.org',
        listAddress: 'dev@kafka.apache.org',
        listId: 'dev.kafka.apache.org',
      })
    ).list.id;
    await store.staging.stageBatch(listId, '2024-01', [
      stage(mail('jira@x', '[jira] [Work logged] (KAFKA-20167) Flaky test', 'ASF GitHub Bot (Jira) <jira@apache.org>')),
      stage(mail('vote@x', 'Re: [VOTE] KIP-221: Enhance KStream')),
      stage(mail('talk@x', 'How should we name this?')),
      stage(Buffer.from('\u0000\u0001 not mail at all')),
    ]);
  });

  it('labels every staged message once, stores envelope and captures, and shunts what cannot be parsed', async () => {
    const store = getStore();
    const result = await classifyStaged(store, systems, {}, silentProgress);
    expect(result).toMatchObject({
      classified: 3,
      shunted: 1,
      changed: 0,
      classes: { issue_event: 1, vote: 1, discuss: 1 },
    });
    const jira = await byKey('jira@x');
    expect(jira).toMatchObject({
      status: 'classified',
      msg_class: 'issue_event',
      class_source: 'jira-work-logged:subject',
    });
    expect(parseJson(jira.captures)).toEqual({ action: 'work_logged', external_key: 'KAFKA-20167' });
    const envelope = parseJson(jira.envelope) as Record<string, unknown>;
    expect(envelope).toMatchObject({
      messageId: 'jira@x',
      subject: '[jira] [Work logged] (KAFKA-20167) Flaky test',
      fromAddress: 'jira@apache.org',
      body: 'text\n',
      dateOffsetMinutes: 60,
    });
    expect((await byKey('talk@x')).class_source).toBe('dev-list:list_address');
    const garbage = (await rows()).find((r) => r.status === 'shunted')!;
    expect(garbage.error).toMatch(/no header fields/);
    expect(Buffer.from(garbage.raw).toString('latin1')).toContain('not mail at all');

    const again = await classifyStaged(store, systems, {}, silentProgress);
    expect(again).toMatchObject({ classified: 0, shunted: 0 });
  });

  it('re-labels stored mail after the rules change, drained mail included, and counts what changed', async () => {
    const store = getStore();
    await classifyStaged(store, systems, {}, silentProgress);
    await store.db.run(`UPDATE staged_messages SET status = 'drained' WHERE message_key = 'vote@x'`);
    await store.db.run(
      `INSERT INTO email_messages (list_id, message_key, message_id, msg_class, class_source, drained_at) VALUES (?, 'vote@x', 'vote@x', 'vote', 'vote:subject', ?)`,
      [listId, new Date().toISOString()],
    );
    const changed = votesAsDiscuss();

    const result = await classifyStaged(store, changed, { reclassify: true }, silentProgress);
    expect(result).toMatchObject({ classified: 3, shunted: 0, changed: 1 });
    // Drained mail whose class changed goes back to drain, which re-derives its row (and its outcome) from the new labels.
    expect(await byKey('vote@x')).toMatchObject({ status: 'classified', msg_class: 'discuss' });
    const drained = await store.db.get<{ msg_class: string; class_source: string }>(
      `SELECT msg_class, class_source FROM email_messages WHERE message_key = 'vote@x'`,
    );
    expect(drained).toEqual({ msg_class: 'vote', class_source: 'vote:subject' });
    expect((await rows()).filter((r) => r.status === 'shunted')).toHaveLength(1);

    const same = await classifyStaged(store, changed, { reclassify: true }, silentProgress);
    expect(same.changed).toBe(0);
  });

  it('writes a changed label once when two runs relabel the same rows at once', async () => {
    const store = getStore();
    await classifyStaged(store, systems, {}, silentProgress);
    const changed = votesAsDiscuss();
    const runs = await Promise.all([
      classifyStaged(store, changed, { reclassify: true }, silentProgress),
      classifyStaged(store, changed, { reclassify: true }, silentProgress),
    ]);
    expect(runs[0].changed + runs[1].changed).toBe(1);
    const history = await store.db.all<{ message_key: string; old_class: string; new_class: string }>(
      'SELECT message_key, old_class, new_class FROM label_history',
    );
    expect(history).toEqual([{ message_key: 'vote@x', old_class: 'vote', new_class: 'discuss' }]);
  });

  it('counts the drained mail it could not label again, which keeps its label, and reports it', async () => {
    const store = getStore();
    await classifyStaged(store, systems, {}, silentProgress);
    await store.db.run(`UPDATE staged_messages SET status = 'drained' WHERE status = 'classified'`);
    await store.staging.stageBatch(listId, '2024-01', [stage(mail('slow@x', `${'a'.repeat(60)}!`))]);
    await classifyStaged(store, systems, {}, silentProgress);
    await store.db.run(`UPDATE staged_messages SET status = 'drained' WHERE status = 'classified'`);
    // Rules one of which backtracks without end on the subject of slow@x.
    const backtracking = editedSystems(
      VOTE_RULE,
      `      - name: slow\n        class: vote\n        subject: '^(a+)+$'\n${VOTE_RULE}`,
    );
    const lines: string[] = [];
    const result = await classifyStaged(store, backtracking, { reclassify: true, matchBudgetMs: 200 }, (event) => {
      if (event.type === 'end' && event.detail) lines.push(event.detail);
    });
    expect(result).toMatchObject({ classified: 3, shunted: 0, kept: 1, skipped: 0 });
    expect(lines.join('\n')).toContain('1 kept their labels');
    expect((await byKey('slow@x')).status).toBe('drained');
  });

  it('stores the envelope of a message whose body holds NUL bytes', async () => {
    const store = getStore();
    await store.staging.stageBatch(listId, null, [stage(mail('nul@x', 'binary junk', undefined, 'a\u0000b'))]);
    await classifyStaged(store, systems, {}, silentProgress);
    const row = await byKey('nul@x');
    expect(row.status).toBe('classified');
    expect(
      (JSON.parse(typeof row.envelope === 'string' ? row.envelope : JSON.stringify(row.envelope)) as { body: string })
        .body,
    ).toBe('ab\n');
  });

  it('counts only what it wrote when another run labelled the rows first', async () => {
    const store = getStore();
    const [first, second] = await Promise.all([
      classifyStaged(store, systems, {}, silentProgress),
      classifyStaged(store, systems, {}, silentProgress),
    ]);
    expect(first.classified + second.classified).toBe(3);
    expect(first.shunted + second.shunted).toBe(1);
  });

  it('tries shunted messages again on request', async () => {
    const store = getStore();
    await classifyStaged(store, systems, {}, silentProgress);
    await store.db.run(
      `UPDATE staged_messages SET status = 'shunted', error = 'a parser bug' WHERE message_key = 'talk@x'`,
    );
    const result = await classifyStaged(store, systems, { retryShunted: true }, silentProgress);
    expect(result).toMatchObject({ classified: 1, shunted: 1 });
    expect(await byKey('talk@x')).toMatchObject({ status: 'classified', msg_class: 'discuss', error: null });
  });

  it('uses the rules the list names, and only the list asked for', async () => {
    const store = getStore();
    const other = (
      await store.lists.register({ system: 'mbox', name: '/tmp/kernel.mbox', rulesSystem: 'public_inbox' })
    ).list.id;
    await store.staging.stageBatch(other, null, [stage(mail('p@x', 'Re: [PATCH v2 1/3] mm: fix'))]);
    const result = await classifyStaged(store, systems, { lists: ['/tmp/kernel.mbox'] }, silentProgress);
    expect(result.lists).toEqual([
      {
        list: '/tmp/kernel.mbox',
        system: 'mbox',
        rules: 'public_inbox',
        classified: 1,
        shunted: 0,
        changed: 0,
        kept: 0,
        skipped: 0,
      },
    ]);
    expect(await byKey('p@x')).toMatchObject({ msg_class: 'review', class_source: 'patch-reply:subject' });
    expect((await byKey('jira@x')).status).toBe('staged');
    await expect(classifyStaged(store, systems, { lists: ['nope@example.org'] }, silentProgress)).rejects.toThrow(
      /No list "nope@example.org" is registered/,
    );
  });
});
