import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../src/core/archive/mbox-reader.js';
import { addListAt } from '../helpers/add-list-at.js';
import type { Dialect } from '../helpers/databases.js';
import { describeOnDialectDatabases } from '../helpers/describe-on-dialects.js';
import {
  cleanFetch,
  fetchKilledAndResumed,
  type CleanFetch,
  type KillPointsOptions,
} from '../helpers/fetch-kill-points.js';
import { generateListMbox } from '../helpers/generated-list-mail.js';
import { groupsioMessage, startGroupsioServer, type GroupsioServer } from '../helpers/groupsio-server.js';
import { LONG_MODE, shortOrLong } from '../helpers/long-mode.js';
import { suiteSeed } from '../helpers/seeded-random.js';

/**
 * A groups.io fetch killed with SIGKILL at seeded points (while it
 * downloads, unpacks, or stages month after month) and run again ends with
 * the rows a clean run leaves: every message once, none twice.
 */

const random = suiteSeed('groupsio-resume', 20_251_126);
const SCENARIOS: Record<Dialect, number> = { sqlite: shortOrLong(3, 12), postgres: shortOrLong(2, 8) };
const TOKEN = 'gio-resume-key';
const TIMEOUT_MS = LONG_MODE ? 3_600_000 : 600_000;

describeOnDialectDatabases('a groups.io fetch killed with SIGKILL and run again on $dialect', (databases) => {
  let dir: string;
  let server: GroupsioServer;
  let clean: CleanFetch;
  let options: KillPointsOptions;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listminer-groupsio-resume-'));
    const traffic = splitMboxBuffer(
      generateListMbox(shortOrLong(900, 3000), { tag: `gio-${databases.dialect}`, stepHours: 9 }),
    );
    server = await startGroupsioServer({
      token: TOKEN,
      groups: {
        busy: { id: 1, messages: traffic },
        quiet: {
          id: 2,
          messages: [
            groupsioMessage(`q1-${databases.dialect}@groups.example`, new Date('2024-05-02T10:00:00Z'), 'quiet'),
          ],
        },
      },
    });
    options = {
      random: random.fork(databases.dialect),
      scenarios: SCENARIOS[databases.dialect],
      createDb: () => databases.create(),
      prepare: async (db, scenario) => {
        const env = { LISTMINER_CACHE: join(dir, `cache-${scenario}`), LISTMINER_GROUPSIO_TOKEN: TOKEN };
        for (const group of ['busy', 'quiet'])
          await addListAt(db.url, { system: 'groupsio', name: group, baseUrl: server.url });
        return env;
      },
    };
    clean = await cleanFetch(options);
    expect(Object.keys(clean.staged)).toHaveLength(traffic.length + 1);
  }, TIMEOUT_MS);
  afterAll(async () => {
    await server?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it(
    `ends with the clean run's rows and no lock, wherever fetch was killed (${SCENARIOS[databases.dialect]} scenarios of two kills)`,
    async () => {
      const landed = await fetchKilledAndResumed(clean, options);
      console.log(
        `groupsio-resume on ${databases.dialect}: killed with ${landed.map((n) => n ?? 'ended').join(', ')} of ${Object.keys(clean.staged).length} messages staged (clean run ${clean.ms} ms)`,
      );
    },
    TIMEOUT_MS,
  );
});
