import { spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { expect, it } from 'vitest';
import type { ProgressEvent } from '../../src/core/progress.js';
import { renderSite } from '../../src/core/render/render-site.js';
import { openStore } from '../../src/core/store/open-store.js';
import { RUN_JS, runCli } from '../helpers/cli.js';
import { queryAt } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import { ADD_SAMPLE_LISTS, KERNEL, QUARRY } from '../helpers/sample-lists.js';

const countMail = async (url: string) =>
  Number((await queryAt<{ n: unknown }>(url, 'SELECT COUNT(*) AS n FROM email_messages'))[0]!.n);

describeOnDialectDatabases('a render while another process writes the store, on $dialect', (databases) => {
  it('renders the store of one moment: mail synced while it renders the first list is not on the pages of the second', async () => {
    const db = await databases.create();
    for (const stage of [...ADD_SAMPLE_LISTS, ['sync', KERNEL, '--quiet']]) {
      const run = await runCli([...stage, '--db', db.url]);
      expect(run.code, `${stage.join(' ')}: ${run.stderr}`).toBe(0);
    }
    expect(await countMail(db.url)).toBe(49);

    const out = await mkdtemp(join(tmpdir(), 'listminer-render-moment-'));
    const store = await openStore(db.url);
    let written: ReturnType<typeof spawnSync> | undefined;
    let result;
    try {
      // While the first list's threads are written, another process syncs the second list to the end.
      const progress = (event: ProgressEvent) => {
        if (written || event.type !== 'update') return;
        written = spawnSync(process.execPath, [RUN_JS, 'sync', QUARRY, '--db', db.url, '--quiet'], {
          env: { ...process.env, LISTMINER_DB: '', LISTMINER_CONFIG: '' },
          encoding: 'utf8',
          timeout: 120_000,
        });
      };
      result = await renderSite(store, { outDir: out, selection: {}, workers: 1 }, progress);
    } finally {
      await store.close();
      await rm(out, { recursive: true, force: true });
    }
    expect(written, 'render reported progress on the first list').toBeDefined();
    expect(written!.status, String(written!.stderr)).toBe(0);
    // The writer was not kept waiting: its mail is in the store, and the next render shows it.
    expect(await countMail(db.url)).toBe(294 + 49);
    // Lists render in name order: kernel-net.mbox, then quarry-dev.mbox, as the store held it when render began.
    expect(result.lists.map((list) => [basename(list.name), list.messages])).toEqual([
      ['kernel-net.mbox', 49],
      ['quarry-dev.mbox', 0],
    ]);
  });
});
