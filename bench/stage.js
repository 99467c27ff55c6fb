// One classify-stage run in a fresh process (cold, as the CLI runs): stage
// BENCH_MESSAGES synthetic messages into a temporary SQLite file, then time
// classify with the given number of workers. Prints msg/s as JSON.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMessage } from './generate-mbox.js';

const dist = new URL('../dist/', import.meta.url);
const { classifyStaged } = await import(new URL('core/classify/classify-staged.js', dist));
const { openStore } = await import(new URL('core/store/open-store.js', dist));
const { identifyMessage } = await import(new URL('core/archive/message-key.js', dist));
const { loadSystems } = await import(new URL('core/systems/load-systems.js', dist));

const count = Number(process.env.BENCH_MESSAGES ?? 10_000);
const workers = Number(process.argv[2] ?? 1);
const dir = mkdtempSync(join(tmpdir(), 'listminer-bench-'));
const store = await openStore(join(dir, 'bench.db'));
try {
  const list = (
    await store.lists.register({
      system: 'apache_ponymail',
      name: 'dev@kafka.apache.org',
      listAddress: 'dev@kafka.apache.org',
    })
  ).list;
  for (let i = 0; i < count; i += 500) {
    const batch = [];
    for (let j = i; j < Math.min(count, i + 500); j++) {
      const raw = Buffer.from(generateMessage(j));
      batch.push({ raw, ...identifyMessage(raw) });
    }
    await store.staging.stageBatch(list.id, null, batch);
  }
  const began = process.hrtime.bigint();
  const result = await classifyStaged(store, loadSystems(), { workers }, () => {});
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  process.stdout.write(JSON.stringify({ done: result.classified + result.shunted, seconds }));
} finally {
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
