// A fetch process over a slow in-memory archive, for the test that runs two
// of them against one database. Usage: node fetch-worker.mjs <db> <log file>
// Each list's work is logged as {list, pid, start, end} lines.
import { appendFileSync } from 'node:fs';
import { fetchLists } from '../../dist/core/fetch/fetch-lists.js';
import { openStore } from '../../dist/core/store/open-store.js';
import { loadSystems } from '../../dist/core/systems/load-systems.js';

const [db, log] = process.argv.slice(2);
const month = new Date().toISOString().slice(0, 7);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function slowSource(list) {
  const start = Date.now();
  return {
    name: 'slow',
    async firstMonth() {
      return month;
    },
    async *fetchMonth() {
      for (let i = 0; i < 4; i++) {
        await sleep(40);
        yield {
          raw: Buffer.from(
            `From: a@example.org\nSubject: ${list.name} ${i}\nMessage-ID: <${list.name}-${i}@example.org>\n\nbody ${i}\n`,
          ),
        };
      }
    },
    async close() {
      appendFileSync(log, `${JSON.stringify({ list: list.name, pid: process.pid, start, end: Date.now() })}\n`);
    },
  };
}

const store = await openStore(db);
try {
  const result = await fetchLists(
    store,
    loadSystems(),
    { cadenceDays: 30, cacheDir: '/nonexistent', workers: 2, openSource: async (_backend, list) => slowSource(list) },
    () => {},
  );
  process.stdout.write(JSON.stringify(result.totals));
} finally {
  await store.close();
}
