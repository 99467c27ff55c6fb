import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, expect, it } from 'vitest';
import { openStore } from '../../src/core/store/open-store.js';
import type { VerifyResult } from '../../src/core/verify/verify-store.js';
import { runCli, runCliJson } from '../helpers/cli.js';
import type { TestDatabase } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';

const example = (name: string) => fileURLToPath(new URL(`../../examples/${name}`, import.meta.url));
const APACHE = example('quarry-dev.mbox');
const KERNEL = example('kernel-net.mbox');
const configFile = (text: string) => {
  const file = join(mkdtempSync(join(tmpdir(), 'listminer-expects-')), 'listminer.yaml');
  writeFileSync(file, text);
  return file;
};

describeOnDialectDatabases(
  'verify --strict requires what the systems of the lists expect, on $dialect',
  (databases) => {
    let apache: TestDatabase;
    let kernel: TestDatabase;
    const branch = (result: VerifyResult, name: string) => result.branches.find((b) => b.name === name)!;
    async function run(db: TestDatabase, statement: string): Promise<void> {
      const store = await openStore(db.url);
      try {
        await store.db.run(statement);
      } finally {
        await store.close();
      }
    }

    beforeAll(async () => {
      apache = await databases.create();
      kernel = await databases.create();
      const a = await runCli([
        'sync',
        APACHE,
        '--rules',
        'apache_ponymail',
        '--repo',
        'https://github.com/apache/quarry',
        '--db',
        apache.url,
      ]);
      expect(a.code, a.stderr).toBe(0);
      const k = await runCli([
        'sync',
        KERNEL,
        '--rules',
        'public_inbox',
        '--repo',
        'https://github.com/torvalds/linux',
        '--db',
        kernel.url,
      ]);
      expect(k.code, k.stderr).toBe(0);
    });

    it('passes a store of the Apache sample alone: issue mail is required, patches and review are not', async () => {
      const { code, json, stderr } = await runCliJson<VerifyResult>(['verify', '--strict', '--db', apache.url]);
      expect(code, stderr).toBe(0);
      expect(json.failing).toEqual([]);
      expect(branch(json, 'class:issue_event')).toMatchObject({
        weight: 'required',
        status: 'PASS',
        why: 'apache_ponymail (1 list)',
        requiredBy: [{ system: 'apache_ponymail', source: 'systems', lists: [APACHE] }],
      });
      for (const name of ['class:patch_submission', 'class:review'])
        expect(branch(json, name).weight, name).toBe('informational');
      expect(branch(json, 'threading')).toMatchObject({ weight: 'required', why: 'every store' });
    });

    it('passes a store of the kernel sample alone: patches and review are required, issue mail is not', async () => {
      const { code, json, stderr } = await runCliJson<VerifyResult>(['verify', '--strict', '--db', kernel.url]);
      expect(code, stderr).toBe(0);
      for (const name of ['class:patch_submission', 'class:review']) {
        expect(branch(json, name), name).toMatchObject({
          weight: 'required',
          status: 'PASS',
          requiredBy: [{ system: 'public_inbox', source: 'systems', lists: [KERNEL] }],
        });
      }
      expect(branch(json, 'class:issue_event').weight).toBe('informational');
    });

    it('fails an Apache store without issue mail (exit 3), naming the branch and the system that requires it; the config can lift it', async () => {
      // The store as if the Jira mail had always been discussion: no issue mail, no issues made from it, nothing tied to them.
      await run(apache, "UPDATE email_messages SET msg_class = 'discuss' WHERE msg_class = 'issue_event'");
      await run(
        apache,
        "UPDATE email_messages SET projected_kind = 'none' WHERE id IN (SELECT email_message_id FROM issue_email_messages)",
      );
      await run(apache, 'DELETE FROM issue_email_messages');
      await run(apache, 'DELETE FROM issues WHERE is_synthetic = TRUE');
      const strict = await runCliJson<VerifyResult>(['verify', '--strict', '--db', apache.url]);
      expect(strict.code).toBe(3);
      expect(strict.json.failing).toEqual(['class:issue_event']);
      expect(branch(strict.json, 'class:issue_event')).toMatchObject({
        status: 'EMPTY',
        requiredBy: [{ system: 'apache_ponymail', lists: [APACHE] }],
      });
      expect(strict.stderr).toContain('class:issue_event (required by apache_ponymail (1 list))');
      const text = await runCli(['verify', '--strict', '--db', apache.url]);
      expect(text.code).toBe(3);
      expect(text.stdout).toMatch(/class:issue_event\s+│ required\s+│ EMPTY\s+│ 0\s+│ required by apache_ponymail/);

      const lifted = configFile('verify_expects:\n  apache_ponymail: []\n');
      const withConfig = await runCliJson<VerifyResult>(['verify', '--strict', '--db', apache.url, '--config', lifted]);
      expect(withConfig.code, withConfig.stderr).toBe(0);
      expect(branch(withConfig.json, 'class:issue_event').weight).toBe('informational');
    });

    it('refuses a config that names an unknown class or system (exit 2)', async () => {
      const badClass = await runCli([
        'verify',
        '--db',
        kernel.url,
        '--config',
        configFile('verify_expects:\n  public_inbox: [revew]\n'),
      ]);
      expect(badClass.code).toBe(2);
      expect(badClass.stderr).toMatch(/verify_expects\.public_inbox.*unknown class "revew"/);
      const badSystem = await runCli([
        'verify',
        '--db',
        kernel.url,
        '--config',
        configFile('verify_expects:\n  lore: [review]\n'),
      ]);
      expect(badSystem.code).toBe(2);
      expect(badSystem.stderr).toContain('"lore"');
    });
  },
);
