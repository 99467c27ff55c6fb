import { ArchiveError } from '../../errors.js';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  createReadStream,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { type ArchiveItem, type ArchiveSource, type Month, type SourceContext } from '../archive-source.js';
import { monthOf } from '../month.js';
import { GitBlobReader } from './git-blob-reader.js';
import { addToGroup } from '../../add-to-group.js';

/**
 * public-inbox v2 archives (lore.kernel.org): an inbox is a series of git
 * "epochs" 0.git, 1.git, … ; each commit adds one message as the file `m`,
 * or withdraws one as the file `d`. Epochs are mirrored bare into the cache
 * folder once and fetched on later runs.
 *
 * A month is the set of commits whose committer date falls in it. public-inbox
 * sets the committer date from when the archive received the mail and the
 * author date from the sender's Date header, which can be years off or
 * forged; filing by committer date puts new mail in the current month, which
 * the next fetch reads again, instead of in a month already checkpointed.
 */
export function createSource(): ArchiveSource {
  return new PublicInboxSource();
}

/** Commits buffered per month while the month index is written. */
const INDEX_FLUSH_LINES = 20_000;
/** Blob requests kept in flight on the cat-file process. */
const READ_AHEAD = 32;

interface Inbox {
  root: string;
  epochs: number[];
}

class PublicInboxSource implements ArchiveSource {
  readonly name = 'public_inbox';
  private readonly synced = new Map<string, Promise<Inbox>>();
  private readonly readers = new Map<string, GitBlobReader>();

  async firstMonth(context: SourceContext): Promise<Month | undefined> {
    const inbox = await this.sync(context);
    let first: Month | undefined;
    for (const epoch of inbox.epochs) {
      const months = readdirSync(indexDir(inbox.root, epoch)).sort();
      if (months[0] && (first === undefined || months[0] < first)) first = months[0];
    }
    return first;
  }

  /**
   * What each month's index files hold, by epoch and size: a month grows
   * when an epoch first seen now (a mirror that lagged, a cache deleted)
   * files old mail under it, or when rewritten history is indexed anew, and
   * fetch reads exactly those months again (docs/fetch.md). A stat per
   * month and epoch: nothing of the index is read.
   */
  async monthFingerprints(context: SourceContext): Promise<Map<Month, string>> {
    const inbox = await this.sync(context);
    const parts = new Map<Month, string[]>();
    for (const epoch of inbox.epochs) {
      const dir = indexDir(inbox.root, epoch);
      for (const month of readdirSync(dir)) {
        const part = `${epoch}:${statSync(join(dir, month)).size}`;
        addToGroup(parts, month, part);
      }
    }
    return new Map([...parts].map(([month, list]) => [month, list.join(' ')]));
  }

  async *fetchMonth(context: SourceContext, month: Month): AsyncIterable<ArchiveItem> {
    const inbox = await this.sync(context);
    for (const epoch of inbox.epochs) {
      const file = join(indexDir(inbox.root, epoch), month);
      if (!existsSync(file)) continue;
      const reader = this.reader(epochDir(inbox.root, epoch));
      const inFlight: Promise<ArchiveItem | undefined>[] = [];
      const lines = createInterface({ input: createReadStream(file), crlfDelay: Infinity });
      for await (const line of lines) {
        const [commit, time] = line.split(' ') as [string, string];
        inFlight.push(readCommit(reader, epoch, commit, Number(time)));
        if (inFlight.length >= READ_AHEAD) {
          const item = await inFlight.shift()!;
          if (item) yield item;
        }
      }
      for (const pending of inFlight.splice(0)) {
        const item = await pending;
        if (item) yield item;
      }
    }
  }

  async close(): Promise<void> {
    await Promise.all([...this.readers.values()].map((reader) => reader.close()));
    this.readers.clear();
  }

  private reader(gitDir: string): GitBlobReader {
    let reader = this.readers.get(gitDir);
    if (!reader) {
      reader = new GitBlobReader(gitDir);
      this.readers.set(gitDir, reader);
    }
    return reader;
  }

  /** Mirrors or fetches every epoch once per run, then brings the month index up to date. */
  private sync(context: SourceContext): Promise<Inbox> {
    const url = inboxUrl(context);
    let synced = this.synced.get(url);
    if (!synced) {
      synced = syncInbox(context, url);
      this.synced.set(url, synced);
    }
    return synced;
  }
}

async function readCommit(
  reader: GitBlobReader,
  epoch: number,
  commit: string,
  time: number,
): Promise<ArchiveItem | undefined> {
  const sourceRef = `${epoch}.git/${commit}`;
  const message = await reader.read(`${commit}:m`);
  if (message) return { raw: message, sourceRef };
  const deleted = await reader.read(`${commit}:d`);
  if (deleted) return { kind: 'deletion', raw: deleted, sourceRef, deletedAt: new Date(time * 1000).toISOString() };
  return undefined; // neither file: not a message commit (an empty or foreign commit)
}

function inboxUrl(context: SourceContext): string {
  const base = context.baseUrl ?? context.system.baseUrl;
  if (!base) throw new ArchiveError(`The public-inbox list ${context.list.name} has no base URL.`, 'permanent');
  return `${base.replace(/\/+$/, '')}/${encodeURIComponent(context.list.name)}`;
}

/** One folder per inbox URL: readable name first, a digest so two hosts never share it. */
function inboxRoot(cacheDir: string, url: string, name: string): string {
  const digest = createHash('sha256').update(url).digest('hex').slice(0, 12);
  return join(cacheDir, 'public-inbox', `${name.replace(/[^A-Za-z0-9._-]/g, '_')}-${digest}`);
}

const epochDir = (root: string, epoch: number) => join(root, 'git', `${epoch}.git`);
const indexDir = (root: string, epoch: number) => join(root, 'index', String(epoch));

async function syncInbox(context: SourceContext, url: string): Promise<Inbox> {
  const root = inboxRoot(context.cacheDir, url, context.list.name);
  mkdirSync(join(root, 'git'), { recursive: true });
  const epochs: number[] = [];
  for (let epoch = 0; ; epoch++) {
    const dir = epochDir(root, epoch);
    if (existsSync(dir)) {
      await runGit(
        context,
        ['--git-dir', dir, 'fetch', '--quiet', '--prune', 'origin'],
        `fetch ${url}/git/${epoch}.git`,
      );
    } else if (!(await cloneEpoch(context, `${url}/git/${epoch}.git`, dir, epoch))) {
      break;
    }
    epochs.push(epoch);
    await indexEpoch(context, root, epoch);
  }
  return { root, epochs };
}

const MISSING = /not found|does not appear to be a git repository|does not exist|error: 404|No such file or directory/i;

/** Clones an epoch into place; false when the archive has no such epoch. */
async function cloneEpoch(context: SourceContext, url: string, dir: string, epoch: number): Promise<boolean> {
  const partial = `${dir}.partial`;
  rmSync(partial, { recursive: true, force: true });
  const result = await spawnGit(context, ['clone', '--mirror', '--quiet', url, partial]);
  if (result.code !== 0) {
    rmSync(partial, { recursive: true, force: true });
    if (MISSING.test(result.stderr)) {
      if (epoch === 0)
        throw new ArchiveError(`${url} is not a public-inbox archive: ${firstLine(result.stderr)}`, 'permanent');
      return false;
    }
    throw new ArchiveError(`git clone ${url} failed: ${firstLine(result.stderr)}`, 'transient');
  }
  // A clone cut short leaves only the .partial folder, which the next run removes.
  renameSync(partial, dir);
  return true;
}

interface IndexState {
  /** Branch tips the index covers. */
  tips: string;
  /** Month the index was last brought up to date in. */
  month: Month;
}

/**
 * Files each commit of an epoch under its month: index/<epoch>/<YYYY-MM>
 * holds `<commit> <committer time>` lines, written in one streamed pass over
 * `git rev-list`, so a month is read without walking the epoch and no
 * epoch's commit list is ever held whole.
 *
 * When the tips moved forward only the new commits are filed, and never in a
 * month before the one the index was last updated in: a commit that arrives
 * late with an old committer date would otherwise land in a month already
 * checkpointed and never be read. A date in the future is filed under the
 * current month for the same reason. History rewritten (public-inbox-purge)
 * rebuilds the index.
 */
async function indexEpoch(context: SourceContext, root: string, epoch: number): Promise<void> {
  const dir = epochDir(root, epoch);
  const tips = (await runGit(context, ['--git-dir', dir, 'rev-parse', '--branches'], 'read branch tips')).stdout
    .trim()
    .split('\n')
    .sort()
    .join(' ');
  const target = indexDir(root, epoch);
  const stateFile = `${target}.state.json`;
  const now = monthOf(new Date());
  const state = existsSync(target) ? readIndexState(stateFile) : undefined;
  if (state?.tips === tips) return;
  if (state && state.tips && (await isFastForward(context, dir, state.tips, tips))) {
    if (tips)
      await fileCommits(context, dir, target, [...tips.split(' '), '--not', ...state.tips.split(' ')], {
        floor: state.month,
        cap: now,
      });
  } else {
    const building = `${target}.building`;
    rmSync(building, { recursive: true, force: true });
    mkdirSync(building, { recursive: true });
    if (tips) await fileCommits(context, dir, building, tips.split(' '), { cap: now });
    rmSync(target, { recursive: true, force: true });
    renameSync(building, target);
  }
  writeFileSync(stateFile, JSON.stringify({ tips, month: now } satisfies IndexState));
}

/** The saved state, or undefined (rebuild) when it is missing or unreadable. */
function readIndexState(file: string): IndexState | undefined {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as IndexState;
  } catch {
    return undefined;
  }
}

/** True when every commit reachable from the old tips is reachable from the new ones. */
async function isFastForward(context: SourceContext, dir: string, oldTips: string, newTips: string): Promise<boolean> {
  if (!newTips) return false;
  const result = await spawnGit(context, [
    '--git-dir',
    dir,
    'rev-list',
    '--count',
    ...oldTips.split(' '),
    '--not',
    ...newTips.split(' '),
  ]);
  return result.code === 0 && result.stdout.trim() === '0';
}

/** Appends the commits `git rev-list <revisions>` names to their month files. */
async function fileCommits(
  context: SourceContext,
  dir: string,
  folder: string,
  revisions: string[],
  bounds: { floor?: Month; cap: Month },
): Promise<void> {
  const buffered = new Map<string, string[]>();
  let count = 0;
  const flush = () => {
    for (const [month, lines] of buffered) appendFileSync(join(folder, month), `${lines.join('\n')}\n`);
    buffered.clear();
    count = 0;
  };
  const child = spawn('git', ['--git-dir', dir, 'rev-list', '--timestamp', ...revisions], {
    stdio: ['ignore', 'pipe', 'pipe'],
    signal: context.signal,
    detached: true,
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
  const closed = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  for await (const line of createInterface({ input: child.stdout, crlfDelay: Infinity })) {
    const [time, commit] = line.split(' ') as [string, string];
    let month = monthOf(new Date(Number(time) * 1000));
    if (bounds.floor && month < bounds.floor) month = bounds.floor;
    if (month > bounds.cap) month = bounds.cap;
    const lines = buffered.get(month);
    if (lines) lines.push(`${commit} ${time}`);
    else buffered.set(month, [`${commit} ${time}`]);
    if (++count >= INDEX_FLUSH_LINES) flush();
  }
  const code = await closed;
  if (code !== 0) throw new ArchiveError(`git rev-list in ${dir} failed: ${firstLine(stderr)}`, 'transient');
  flush();
}

interface GitResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

function gitEnvironment(context: SourceContext): { args: string[]; env: NodeJS.ProcessEnv } {
  const agent = `listminer${context.contactEmail ? ` (+mailto:${context.contactEmail})` : ''}`;
  return { args: ['-c', `http.userAgent=${agent}`], env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } };
}

function spawnGit(context: SourceContext, args: string[]): Promise<GitResult> {
  const { args: config, env } = gitEnvironment(context);
  return new Promise((resolve, reject) => {
    // Own process group, as for cat-file: a Ctrl-C stops git through the abort signal, not behind listminer's back.
    const child = spawn('git', [...config, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
      signal: context.signal,
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-4000)));
    child.on('error', (error) =>
      reject(new ArchiveError(`git ${args[0]} could not run: ${error.message}`, 'transient')),
    );
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function runGit(context: SourceContext, args: string[], what: string): Promise<GitResult> {
  const result = await spawnGit(context, args);
  if (result.code !== 0) throw new ArchiveError(`git could not ${what}: ${firstLine(result.stderr)}`, 'transient');
  return result;
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
