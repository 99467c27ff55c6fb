// Fetches the real-mail test corpus from its public sources into a folder the
// tests can read (LISTMINER_CORPUS=DIR). test/corpus-sources.json lists each
// source: a repository, the commit or tag, its licence, and the files taken
// from it with their sizes. Files already present with the right size are kept,
// so a stopped run resumes.
//
//   npm run corpus                       into ./.corpus
//   npm run corpus -- --out DIR          elsewhere
//   npm run corpus -- --base-url URL     from a mirror serving URL/OWNER/REPO/REF/PATH
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { request } from 'undici';

const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, '.corpus') },
    'base-url': { type: 'string', default: 'https://raw.githubusercontent.com' },
    sources: { type: 'string', default: join(root, 'test', 'corpus-sources.json') },
  },
});
const out = resolve(values.out);
const base = values['base-url'].replace(/\/+$/, '');
const { sources } = JSON.parse(await readFile(values.sources, 'utf8'));

function sizeOf(path) {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

async function download(url) {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await request(url, { headersTimeout: 30_000, bodyTimeout: 60_000 });
      const body = Buffer.from(await response.body.arrayBuffer());
      if (response.statusCode === 200) return body;
      if (response.statusCode < 500 || attempt === 3) throw new Error(`HTTP ${response.statusCode}`);
    } catch (error) {
      if (attempt === 3) throw error;
    }
    await new Promise((done) => setTimeout(done, 1000 * attempt));
  }
}

const jobs = sources.flatMap((source) => source.files.map((file) => ({ source, file })));
const counts = { fetched: 0, present: 0, failed: 0 };
const failures = [];
async function worker() {
  for (let job = jobs.shift(); job; job = jobs.shift()) {
    const { source, file } = job;
    const target = join(out, source.folder, file.path);
    if (sizeOf(target) === file.size) {
      counts.present++;
      continue;
    }
    const url = `${base}/${source.repository}/${encodeURIComponent(source.ref)}/${file.path.split('/').map(encodeURIComponent).join('/')}`;
    try {
      const body = await download(url);
      if (body.length !== file.size) throw new Error(`${body.length} bytes where the list says ${file.size}`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, body);
      counts.fetched++;
    } catch (error) {
      counts.failed++;
      failures.push(`${source.folder}/${file.path}: ${error.message} (${url})`);
    }
  }
}
await Promise.all(Array.from({ length: 4 }, worker));

mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'SOURCES.md'),
  `# Test corpus\n\nFetched by \`npm run corpus\` from the public sources below; each folder keeps its source's licence.\n\n| folder | repository | ref | licence | files |\n|---|---|---|---|---|\n${sources
    .map((s) => `| ${s.folder}/ | ${s.repository} | ${s.ref} | ${s.license} | ${s.files.length} |`)
    .join('\n')}\n`,
);
for (const failure of failures) console.error(`failed: ${failure}`);
console.log(`${counts.fetched} files fetched, ${counts.present} already present, ${counts.failed} failed, in ${out}`);
if (counts.failed === 0) console.log(`Point the tests at it: LISTMINER_CORPUS=${out} npm test`);
process.exitCode = counts.failed === 0 ? 0 : 1;
