import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { VerifyResult } from '../../src/core/verify/verify-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const KAFKA = 'https://github.com/apache/kafka';
const message = (n: number, body: string) =>
  `From poster${n}@example.org Mon May  3 13:15:3${n} 2004\nFrom: Poster ${n} <poster${n}@example.org>\nDate: Mon, 03 May 2004 13:15:3${n} +0000\nSubject: topic ${n}\nMessage-ID: <${n}@example.org>\n\n${body}\n\n`;

describeOnDialectDatabases('verify finds messages merged into one on $dialect', (databases) => {
  let dir: string;

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-merged-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const verifyMbox = async (content: string) => {
    const db = await databases.create();
    const path = join(dir, `${db.url.replace(/\W/g, '')}.mbox`);
    writeFileSync(path, content);
    for (const stage of [
      ['lists', 'add', '--system', 'mbox', path, '--repo', KAFKA],
      ['fetch', '--full'],
      ['classify'],
      ['drain'],
    ]) {
      const run = await runCli([...stage, '--db', db.url]);
      expect(run.code, `${stage[0]}: ${run.stderr}`).toBe(0);
    }
    const verify = await runCliJson<VerifyResult>(['verify', '--strict', '--db', db.url]);
    return {
      code: verify.code,
      finding: verify.json.invariants.find((invariant) => invariant.name === 'no-merged-messages')!,
    };
  };

  it('reports a stored message whose body holds whole messages, and fails --strict', async () => {
    // mboxrd: the escaped From_ line reads back as a From_ line inside the first body, the mail after it as its text.
    const swallowed =
      '>From poster9 at example.org  Mon May  3 13:15:39 2004\nFrom: poster9 at example.org (Poster 9)\nDate: Mon, 03 May 2004 13:15:39 +0000\nSubject: lost\nMessage-ID: <9@example.org>\n\nlost body';
    const { code, finding } = await verifyMbox(message(1, `Hello,\n\n${swallowed}`) + message(2, 'second'));
    expect(finding).toMatchObject({ ok: false, violations: 1 });
    expect(finding.details[0]).toMatch(/holds 1 more message$/);
    expect(code).not.toBe(0);
  });

  it('finds nothing in mail whose body lines merely start with "From "', async () => {
    const { finding } = await verifyMbox(
      message(1, 'From now on please use the tracker.\n\nFrom what I understand, it works.') + message(2, 'second'),
    );
    expect(finding).toMatchObject({ ok: true, violations: 0 });
  });
});
