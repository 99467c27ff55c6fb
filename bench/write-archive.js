/**
 * Writes the benchmark's archive, streaming: each message goes to the mbox
 * file (mboxrd: a From_ line, `>From ` quoting) and, when asked, to a
 * public-inbox v2 inbox (one commit per message holding the file `m`,
 * through `git fast-import`), and is then let go.
 *
 *   node bench/write-archive.js --messages 1000000 [--source synthetic|corpus] [--seed N] --mbox FILE [--public-inbox ROOT]
 *
 * prints what it wrote, with the time it took and its own peak RSS.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { fromLineDate } from './mail-encoding.js';
import { DEFAULT_SEED, syntheticArchive } from './synthetic-archive.js';
import { corpusArchive } from './corpus-archive.js';

/** public-inbox starts a new epoch at about 1 GB of mail; so does this writer. */
const EPOCH_BYTES = 1024 ** 3;
/** The inbox name the benchmark registers. */
export const INBOX = 'bench';

/** The messages of the archive a benchmark run asked for. */
export async function archiveMessages({ source, messages, seed = DEFAULT_SEED, corpusDir }) {
  if (source === 'synthetic') return syntheticArchive({ messages, seed });
  if (source === 'corpus') return corpusArchive({ messages, corpusDir });
  throw new Error(`unknown source ${source}: synthetic or corpus`);
}

/**
 * Writes `items` ({ raw, arrived, sender }) to `mbox` and, when given, to the
 * public-inbox at `publicInbox` (<root>/bench/git/<epoch>.git). Returns the
 * counts and sizes.
 */
export async function writeArchive(items, { mbox, publicInbox }) {
  const out = createWriteStream(mbox);
  const inbox = publicInbox ? new InboxWriter(join(publicInbox, INBOX, 'git')) : undefined;
  let messages = 0;
  let mboxBytes = 0;
  let rawBytes = 0;
  for (const item of items) {
    const entry = mboxEntry(item);
    messages++;
    mboxBytes += entry.length;
    rawBytes += item.raw.length;
    if (!out.write(entry)) await once(out, 'drain');
    if (inbox) await inbox.add(item);
  }
  out.end();
  await once(out, 'finish');
  const epochs = inbox ? await inbox.close() : 0;
  return { messages, mboxBytes, rawBytes, epochs };
}

/** One message as an mboxrd entry: From_ line, body with `>From ` quoted once more, blank line. */
export function mboxEntry({ raw, arrived, sender }) {
  let text = raw.toString('latin1');
  if (/^>*From /m.test(text)) text = text.replace(/^(>*From )/gm, '>$1');
  if (!text.endsWith('\n')) text += '\n';
  return Buffer.from(
    `From ${sender.replace(/\s/g, '') || 'MAILER-DAEMON'} ${fromLineDate(arrived)}\n${text}\n`,
    'latin1',
  );
}

class InboxWriter {
  constructor(gitRoot) {
    this.gitRoot = gitRoot;
    this.epoch = -1;
    this.bytes = 0;
    this.importer = undefined;
  }

  async add({ raw, arrived, sender }) {
    if (!this.importer || this.bytes >= EPOCH_BYTES) await this.nextEpoch();
    const time = Math.floor(arrived.getTime() / 1000);
    const who = sender.replace(/[<>\n]/g, '') || 'unknown';
    // public-inbox commits as the sender; the committer date is when the inbox took the mail, which listminer files months by.
    const head = Buffer.from(
      `commit refs/heads/master\nauthor ${who.split('@')[0]} <${who}> ${time} +0000\ncommitter listminer bench <bench@listminer.invalid> ${time} +0000\ndata 2\nm\ndeleteall\nM 100644 inline m\ndata ${raw.length}\n`,
    );
    this.bytes += raw.length;
    const stdin = this.importer.child.stdin;
    stdin.write(head);
    stdin.write(raw);
    const more = stdin.write('\n');
    // A fast-import that died rejects `closed` with its stderr, instead of leaving the write waiting.
    if (!more) await Promise.race([once(stdin, 'drain'), this.importer.closed]);
  }

  async nextEpoch() {
    await this.finishEpoch();
    this.epoch++;
    this.bytes = 0;
    const dir = join(this.gitRoot, `${this.epoch}.git`);
    mkdirSync(dir, { recursive: true });
    execFileSync('git', ['init', '--quiet', '--bare', dir]);
    const child = spawn('git', ['--git-dir', dir, 'fast-import', '--quiet', '--done'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    child.stdin.on('error', () => {}); // reported by `closed`, with git's own message
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr = (stderr + chunk).slice(-4000)));
    const closed = new Promise((resolve, reject) => {
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve() : reject(new Error(`git fast-import failed (${code}): ${stderr}`)),
      );
    });
    this.importer = { child, closed };
  }

  async finishEpoch() {
    if (!this.importer) return;
    this.importer.child.stdin.end('done\n');
    await this.importer.closed;
    this.importer = undefined;
  }

  /** Ends the last epoch; returns how many there are. */
  async close() {
    await this.finishEpoch();
    return this.epoch + 1;
  }
}

async function main() {
  const { values } = parseArgs({
    options: {
      messages: { type: 'string', default: '20000' },
      source: { type: 'string', default: 'synthetic' },
      seed: { type: 'string', default: String(DEFAULT_SEED) },
      mbox: { type: 'string' },
      'public-inbox': { type: 'string' },
    },
  });
  if (!values.mbox) throw new Error('--mbox FILE is required');
  const began = process.hrtime.bigint();
  const items = await archiveMessages({
    source: values.source,
    messages: Number(values.messages),
    seed: Number(values.seed),
  });
  const written = await writeArchive(items, {
    mbox: resolve(values.mbox),
    publicInbox: values['public-inbox'] && resolve(values['public-inbox']),
  });
  const seconds = Number(process.hrtime.bigint() - began) / 1e9;
  console.log(
    JSON.stringify({
      ...written,
      seconds: Number(seconds.toFixed(2)),
      maxRssBytes: process.resourceUsage().maxRSS * 1024,
    }),
  );
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
