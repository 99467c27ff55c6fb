import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realSoftwareSkipReason, signalServer } from './real-software.js';

/** Debian's inn2 puts its programs here. */
const INN_BIN = '/usr/lib/news/bin';
const INN_ETC = '/etc/news';

function probeInn(): string | undefined {
  if (!existsSync(join(INN_BIN, 'innd')) || !existsSync(join(INN_ETC, 'inn.conf')))
    return 'INN is not installed (apt-get install inn2)';
  if (process.getuid?.() !== 0) return 'INN runs as the news user here, which takes root to set up';
  return undefined;
}

/** Why the real-news-server suites cannot run here, or undefined. Under CI=true a missing INN is an error: .ci/run installs it. */
export const nntpSkipReason = realSoftwareSkipReason(probeInn);

export interface NewsArticle {
  messageId: string;
  date: string;
  subject: string;
  body?: string;
  from?: string;
  references?: string;
}

export interface NewsServer {
  /** nntp://127.0.0.1:PORT */
  url: string;
  /** Creates a group, numbered from 1. */
  newGroup(group: string): Promise<void>;
  /** Feeds articles to the server with IHAVE, as a peer would; they are numbered in the order given. */
  post(group: string, articles: readonly NewsArticle[]): Promise<void>;
  /** Removes articles from the spool and moves the group's low-water mark past them, as expiry does. */
  expire(group: string, messageIds: readonly string[]): Promise<void>;
  /** Removes the group, its articles and their history, and creates it again: its numbering starts over at 1. */
  recreateGroup(group: string): Promise<void>;
  /** Stops INN and every reader process it started (SIGSTOP): connections stay open, and nothing answers, a greeting included. */
  pause(): void;
  /** Lets the processes `pause` stopped go on (SIGCONT). */
  resume(): void;
  close(): Promise<void>;
}

const NEWS_UID = 9;
const NEWS_GID = 9;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * A real INN (Debian's inn2) started in a temporary folder on a free
 * loopback port, running as the news user. Articles are fed with IHAVE;
 * groups are made, renumbered and removed with ctlinnd. With `users`,
 * readers must give one of them with AUTHINFO USER/PASS (checked by INN's
 * ckpasswd); feeding is not affected.
 */
export async function startNewsServer(options: { users?: Record<string, string> } = {}): Promise<NewsServer> {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-inn-'));
  const port = await freePort();
  const paths: Record<string, string> = {
    pathetc: join(dir, 'etc'),
    pathdb: join(dir, 'db'),
    pathrun: join(dir, 'run'),
    pathlog: join(dir, 'log'),
    pathhttp: join(dir, 'http'),
    pathspool: join(dir, 'spool'),
    patharticles: join(dir, 'spool', 'articles'),
    pathoverview: join(dir, 'spool', 'overview'),
    pathincoming: join(dir, 'spool', 'incoming'),
    pathtmp: join(dir, 'spool', 'incoming', 'tmp'),
    pathoutgoing: join(dir, 'spool', 'outgoing'),
    patharchive: join(dir, 'spool', 'archive'),
  };
  for (const path of Object.values(paths)) mkdirSync(path, { recursive: true });
  cpSync(INN_ETC, paths.pathetc!, { recursive: true });
  const settings: Record<string, string> = {
    ...paths,
    port: String(port),
    bindaddress: '127.0.0.1',
    bindaddress6: 'none',
    domain: 'example.net',
    pathhost: 'news.example.net',
    // Fixture mail is dated months back: take articles of any age.
    artcutoff: '0',
    doinnwatch: 'false',
    pgpverify: 'false',
    // A busy test machine is no reason to turn readers away.
    nnrpdloadlimit: '0',
    nnrpdpostport: String(port),
  };
  const conf = readFileSync(join(INN_ETC, 'inn.conf'), 'utf8')
    .split('\n')
    .filter((line) => !Object.hasOwn(settings, line.split(':')[0]!.replace(/^#\s*/, '').trim()))
    .concat(Object.entries(settings).map(([key, value]) => `${key}: ${value}`))
    .join('\n');
  writeFileSync(join(paths.pathetc!, 'inn.conf'), `${conf}\n`);
  writeFileSync(join(paths.pathetc!, 'newsfeeds'), 'ME:!*/!local::\n');
  writeFileSync(join(paths.pathetc!, 'incoming.conf'), 'peer ME {\n  hostname: "localhost, 127.0.0.1"\n}\n');
  if (options.users) {
    const passwords = join(paths.pathetc!, 'newsusers');
    const lines = Object.entries(options.users).map(([user, password]) => {
      const hashed = spawnSync('openssl', ['passwd', '-1', password], { encoding: 'utf8' });
      if (hashed.status !== 0) throw new Error(`openssl passwd failed: ${hashed.stderr}`);
      return `${user}:${hashed.stdout.trim()}`;
    });
    writeFileSync(passwords, `${lines.join('\n')}\n`);
    writeFileSync(
      join(paths.pathetc!, 'readers.conf'),
      `auth "users" {\n  hosts: "*"\n  auth: "ckpasswd -f ${passwords}"\n}\naccess "users" {\n  users: "*"\n  newsgroups: "*"\n  access: RPA\n}\n`,
    );
  }
  writeFileSync(
    join(paths.pathdb!, 'active'),
    'control 0000000000 0000000001 n\ncontrol.cancel 0000000000 0000000001 n\njunk 0000000000 0000000001 n\n',
  );
  writeFileSync(join(paths.pathdb!, 'active.times'), '');
  writeFileSync(join(paths.pathdb!, 'newsgroups'), '');
  writeFileSync(join(paths.pathdb!, 'history'), '');
  chownTree(dir);
  const env = { ...process.env, INNCONF: join(paths.pathetc!, 'inn.conf'), HOME: dir };
  const run = (program: string, args: string[], cwd = dir) =>
    new Promise<string>((resolve, reject) => {
      execFile(
        join(INN_BIN, program),
        args,
        { cwd, env, uid: NEWS_UID, gid: NEWS_GID, timeout: 60_000 },
        (error, stdout, stderr) => {
          if (error) reject(new Error(`${program} ${args.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`));
          else resolve(`${stdout}${stderr}`);
        },
      );
    });
  await run('makedbz', ['-i', '-o'], paths.pathdb);

  let innd: ChildProcess | undefined;
  let output = '';
  const start = async () => {
    innd = spawn(join(INN_BIN, 'innd'), ['-f'], {
      cwd: dir,
      env,
      uid: NEWS_UID,
      gid: NEWS_GID,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    innd.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    innd.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    await waitForGreeting(
      port,
      () => innd?.exitCode !== null && innd?.exitCode !== undefined,
      () => output,
    );
  };
  const stop = async () => {
    if (!innd || innd.exitCode !== null) return;
    const exited = new Promise((resolve) => innd!.once('exit', resolve));
    await run('ctlinnd', ['-t', '30', 'shutdown', 'listminer-test']).catch(() => innd!.kill('SIGTERM'));
    await exited;
  };
  await start();

  return {
    url: `nntp://127.0.0.1:${port}`,
    async newGroup(group) {
      await run('ctlinnd', ['-t', '30', 'newgroup', group, 'y', 'listminer']);
    },
    async post(group, articles) {
      await feed(port, group, articles);
    },
    async expire(group, messageIds) {
      for (const id of messageIds) await run('ctlinnd', ['-t', '30', 'cancel', `<${id}>`]);
      await run('ctlinnd', ['-t', '30', 'renumber', group]);
    },
    async recreateGroup(group) {
      await run('ctlinnd', ['-t', '30', 'rmgroup', group]);
      await stop();
      // The articles and their history go too, so the same articles can be fed again under new numbers.
      rmSync(join(paths.patharticles!, ...group.split('.')), { recursive: true, force: true });
      writeFileSync(join(paths.pathdb!, 'history'), '');
      chownTree(paths.pathdb!);
      await run('makedbz', ['-i', '-o'], paths.pathdb);
      await start();
      await run('ctlinnd', ['-t', '30', 'newgroup', group, 'y', 'listminer']);
    },
    pause() {
      if (innd?.pid) signalServer(innd.pid, 'SIGSTOP');
    },
    resume() {
      if (innd?.pid) signalServer(innd.pid, 'SIGCONT');
    },
    async close() {
      if (innd?.pid) signalServer(innd.pid, 'SIGCONT'); // a paused INN would not shut down
      await stop().catch(() => innd?.kill('SIGKILL'));
      // LISTMINER_KEEP_INN=1 keeps the folder (its log/ and etc/) to look at a failure.
      if (!process.env.LISTMINER_KEEP_INN) rmSync(dir, { recursive: true, force: true });
    },
  };
}

function chownTree(path: string): void {
  const result = spawnSync('chown', ['-R', `${NEWS_UID}:${NEWS_GID}`, path], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`chown -R news ${path} failed: ${result.stderr}`);
}

async function waitForGreeting(port: number, exited: () => boolean, output: () => string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (exited()) throw new Error(`innd exited:\n${output()}`);
    const greeting = await new Promise<string | undefined>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('data', (chunk) => {
        socket.end('QUIT\r\n');
        resolve(chunk.toString());
      });
      socket.once('error', () => resolve(undefined));
    });
    if (greeting?.startsWith('200')) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`innd did not answer on port ${port}:\n${output()}`);
}

/** IHAVE each article over one peer connection; fails on any answer but 235 (transferred). */
async function feed(port: number, group: string, articles: readonly NewsArticle[]): Promise<void> {
  const socket = connect({ host: '127.0.0.1', port });
  let buffered = '';
  let waiting: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('latin1');
    waiting?.();
  });
  const line = async () => {
    while (!buffered.includes('\r\n')) await new Promise<void>((resolve) => (waiting = resolve));
    const end = buffered.indexOf('\r\n');
    const text = buffered.slice(0, end);
    buffered = buffered.slice(end + 2);
    return text;
  };
  const expect = async (code: string, what: string) => {
    const answer = await line();
    if (!answer.startsWith(code)) throw new Error(`${what}: ${answer}`);
  };
  try {
    await expect('200', 'greeting');
    for (const article of articles) {
      socket.write(`IHAVE <${article.messageId}>\r\n`);
      await expect('335', `IHAVE <${article.messageId}>`);
      const headers = [
        'Path: listminer-test!not-for-mail',
        `From: ${article.from ?? 'Jane Doe <jane@example.org>'}`,
        `Newsgroups: ${group}`,
        `Subject: ${article.subject}`,
        `Date: ${new Date(article.date).toUTCString().replace('GMT', '+0000')}`,
        `Message-ID: <${article.messageId}>`,
        ...(article.references ? [`References: <${article.references}>`] : []),
      ];
      const body = (article.body ?? `Body of ${article.messageId}.\n`).replace(/\r?\n/g, '\r\n');
      const text = `${headers.join('\r\n')}\r\n\r\n${body}`.replace(/(^|\r\n)\./g, '$1..');
      socket.write(`${text}${text.endsWith('\r\n') ? '' : '\r\n'}.\r\n`);
      await expect('235', `article <${article.messageId}>`);
    }
    socket.write('QUIT\r\n');
  } finally {
    socket.end();
  }
}
