// Fetches the real-mail test corpus from its public sources into a folder the
// tests can read (LISTMINER_CORPUS=DIR). test/corpus-sources.json lists each
// source: a repository, the commit or tag, its licence, and the files taken
// from it with their sizes. Files already present with the right size are kept,
// so a stopped run resumes. Each file is written under a temporary name and
// renamed when whole, and SOURCES.md, which the tests take as the sign of a
// complete corpus, is written only when every file is there. The first file
// that cannot be fetched stops the run (offline, that is within the connect
// timeout), so no one waits for hundreds of failures.
//
//   npm run corpus                       into ./.corpus
//   npm run corpus -- --out DIR          elsewhere
//   npm run corpus -- --base-url URL     from a mirror serving URL/OWNER/REPO/REF/PATH
import { mkdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Agent, request } from 'undici';

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

// A host that does not answer is given 10 seconds; an answer that stalls, 30.
const dispatcher = new Agent({ connect: { timeout: 10_000 }, headersTimeout: 30_000, bodyTimeout: 60_000 });

/** The file's bytes. A server error is tried again twice; a network failure (offline, no DNS) is not. */
async function download(url) {
  for (let attempt = 1; ; attempt++) {
    const response = await request(url, { dispatcher });
    const body = Buffer.from(await response.body.arrayBuffer());
    if (response.statusCode === 200) return body;
    if (response.statusCode < 500 || attempt === 3) throw new Error(`HTTP ${response.statusCode}`);
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
      writeFileSync(`${target}.part`, body);
      renameSync(`${target}.part`, target);
      counts.fetched++;
    } catch (error) {
      counts.failed++;
      failures.push(`${source.folder}/${file.path}: ${describe(error)} (${url})`);
      jobs.length = 0; // the first failure stops the run
    }
  }
}

function describe(error) {
  const cause = error.cause?.code ?? error.code;
  return cause && !error.message.includes(cause) ? `${error.message} (${cause})` : error.message;
}

// A SOURCES.md left by an earlier run would mark a corpus as complete that this run found wanting.
rmSync(join(out, 'SOURCES.md'), { force: true });
await Promise.all(Array.from({ length: 4 }, worker));
await dispatcher.close();

for (const failure of failures) console.error(`failed: ${failure}`);
console.log(`${counts.fetched} files fetched, ${counts.present} already present, ${counts.failed} failed, in ${out}`);
if (counts.failed > 0) {
  console.error(
    `The corpus is incomplete, and the tests skip it until it is whole: run \`npm run corpus\` again when the sources can be reached (it keeps what it has), or point the tests at a copy: LISTMINER_CORPUS=/path/to/corpus npm test`,
  );
  process.exit(1);
}

mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, 'SOURCES.md'),
  `# Test corpus\n\nFetched by \`npm run corpus\` from the public sources below; each folder keeps its source's licence.\n\n| folder | repository | ref | licence | files |\n|---|---|---|---|---|\n${sources
    .map((s) => `| ${s.folder}/ | ${s.repository} | ${s.ref} | ${s.license} | ${s.files.length} |`)
    .join('\n')}\n`,
);
console.log(`The tests read it from here; a copy elsewhere is read with LISTMINER_CORPUS=${out} npm test`);
