import { createHash } from 'node:crypto';
import { ArchiveError } from '../../errors.js';
import { NntpClient, type NntpGroup, type OverviewLine } from '../../net/nntp-client.js';
import { sharedPacer } from '../../net/pacer.js';
import type { ArchiveSource, Month, SourceContext } from '../archive-source.js';
import { readMonthIndex, writeMonthIndex } from '../month-index-cache.js';
import { messageMonth } from '../message-month.js';
import { monthOf } from '../month.js';

/**
 * What listminer knows of a group, kept in the source cache between runs:
 * the article numbers of each month, read up to the high-water mark `high`,
 * and a digest of each month's Message-IDs. The numbers are the server's
 * (they change when a group is renumbered); the digests are of the messages
 * themselves, so an index rebuilt after a renumbering has the same digests
 * and no month is read again for it.
 */
interface GroupIndex {
  high: number;
  /** Message-ID of article `high`: another one there means the server renumbered the group. */
  highId?: string;
  months: Record<Month, number[]>;
  /** Per month: `count:xor of sha256(Message-ID)`, which new articles update without the old ones. */
  digests: Record<Month, string>;
}

const INDEX_KIND = 'nntp-groups';
/** Bumped when GroupIndex changes shape, so indexes of an older listminer are rebuilt. */
const INDEX_VERSION = 'v1';
/** Article numbers per OVER command. */
const OVERVIEW_SPAN = 1000;
/** ARTICLE commands sent together (one paced request). */
const ARTICLE_BATCH = 50;
const DEFAULT_PORTS = { nntp: 119, nntps: 563 } as const;

interface Server {
  host: string;
  port: number;
  tls: boolean;
  /** nntp://host:port, for the cache key and messages. */
  url: string;
  /** host:port, the pacer's name for the server. */
  paceKey: string;
}

/**
 * A newsgroup on an NNTP server (RFC 3977), e.g. lore.kernel.org's or
 * Gmane's. The group is read like a local source: its overview (OVER) is
 * read from the last high-water mark on and filed by each article's Date
 * into months, whose digests tell fetch which months gained mail. A month is
 * read with ARTICLE for each of its article numbers. A group whose numbers
 * went back (the server renumbered or recreated it) is indexed again from
 * its low-water mark; messages are told apart by their content, never by
 * number, so nothing is stored twice. Articles the server expired stay in
 * the store; the index keeps their numbers, and ARTICLE for them is skipped.
 */
export function createSource(): ArchiveSource {
  let client: NntpClient | undefined;
  let selected: { group: NntpGroup; name: string } | undefined;
  let index: Promise<GroupIndex> | undefined;

  const open = async (context: SourceContext) => {
    const server = serverOf(context, `The list ${context.list.name}`);
    if (!client) {
      await sharedPacer.wait(server.paceKey, context.signal);
      client = await paced(server, () =>
        NntpClient.connect({
          ...server,
          credentials: credentials(context, server),
          idleTimeoutMs: context.mailTimeoutMs,
          signal: context.signal,
        }),
      );
    }
    if (!selected) {
      const name = context.list.name;
      selected = { group: await paced(server, () => client!.group(name)), name };
    }
    return { server, client, group: selected.group };
  };

  const groupIndex = (context: SourceContext) => (index ??= buildIndex(context, open));

  return {
    name: 'nntp',

    async firstMonth(context) {
      return Object.keys((await groupIndex(context)).months).sort()[0];
    },

    async monthFingerprints(context) {
      return new Map(Object.entries((await groupIndex(context)).digests));
    },

    async *fetchMonth(context, month) {
      const numbers = (await groupIndex(context)).months[month] ?? [];
      const { server, client: nntp, group } = await open(context);
      // Below the low-water mark the server has expired the articles: they were stored when they were read.
      const left = numbers.filter((number) => number >= group.low);
      for (let start = 0; start < left.length; start += ARTICLE_BATCH) {
        context.signal?.throwIfAborted();
        const batch = left.slice(start, start + ARTICLE_BATCH);
        await sharedPacer.wait(server.paceKey, context.signal);
        const articles = await paced(server, () => nntp.articles(batch));
        for (const [at, raw] of articles.entries()) {
          if (raw) yield { raw, sourceRef: `${server.url}/${context.list.name}/${batch[at]}` };
        }
      }
    },

    /** The server's groups (LIST ACTIVE); with --domain, those under that hierarchy (`gmane.comp` → `gmane.comp.*`). */
    async enumerateLists(context) {
      const server = serverOf(context, 'lists discover');
      const nntp = await paced(server, () =>
        NntpClient.connect({
          ...server,
          credentials: credentials(context, server),
          idleTimeoutMs: context.mailTimeoutMs,
          signal: context.signal,
        }),
      );
      try {
        return (await paced(server, () => nntp.groupNames(context.domain ? `${context.domain}.*` : undefined))).map(
          (name) => ({ name }),
        );
      } finally {
        nntp.close();
      }
    },

    async close() {
      client?.close();
      client = undefined;
    },
  };
}

/** Reads the group's overview from the cached high-water mark on (from its low-water mark when the server renumbered it) and caches the index. */
async function buildIndex(
  context: SourceContext,
  open: (context: SourceContext) => Promise<{ server: Server; client: NntpClient; group: NntpGroup }>,
): Promise<GroupIndex> {
  const { server, client, group } = await open(context);
  const key = `${server.url}/${context.list.name}`;
  let index = await readMonthIndex<GroupIndex>(context.cacheDir, INDEX_KIND, key, INDEX_VERSION);
  if (index && (await renumbered(index, group, client, server))) index = undefined;
  index ??= { high: 0, months: {}, digests: {} };
  const digests = new Map(Object.entries(index.digests).map(([month, digest]) => [month, parseDigest(digest)]));
  const fallback = monthOf(new Date());
  for (let low = Math.max(index.high + 1, group.low); low <= group.high; low += OVERVIEW_SPAN) {
    context.signal?.throwIfAborted();
    const high = Math.min(low + OVERVIEW_SPAN - 1, group.high);
    await sharedPacer.wait(server.paceKey, context.signal);
    const lines = await paced(server, () => client.overview(low, high));
    for (const line of lines) addArticle(index, digests, line, fallback);
  }
  for (const [month, digest] of digests) index.digests[month] = `${digest.count}:${digest.xor.toString('hex')}`;
  await writeMonthIndex(context.cacheDir, INDEX_KIND, key, INDEX_VERSION, index);
  return index;
}

/** The group's numbers went back, or the article at the old high-water mark is another message (or gone): its numbering is not the one indexed. */
async function renumbered(index: GroupIndex, group: NntpGroup, client: NntpClient, server: Server): Promise<boolean> {
  if (index.high === 0) return false;
  if (group.high < index.high) return true;
  if (index.high < group.low) return false;
  await sharedPacer.wait(server.paceKey);
  const id = await paced(server, () => client.messageIdAt(index.high));
  return id !== index.highId;
}

function addArticle(
  index: GroupIndex,
  digests: Map<Month, { count: number; xor: Buffer }>,
  line: OverviewLine,
  fallback: Month,
): void {
  // An article without a usable Date is filed under the month it was first seen in, which the index then keeps.
  const month = messageMonth(Buffer.from(`Date: ${line.date}\n\n`, 'latin1'), fallback);
  (index.months[month] ??= []).push(line.number);
  const digest = digests.get(month) ?? { count: 0, xor: Buffer.alloc(32) };
  const hash = createHash('sha256')
    .update(line.messageId || `#${line.number}`)
    .digest();
  for (let i = 0; i < 32; i++) digest.xor[i]! ^= hash[i]!;
  digest.count++;
  digests.set(month, digest);
  if (line.number > index.high) {
    index.high = line.number;
    index.highId = line.messageId;
  }
}

function parseDigest(text: string): { count: number; xor: Buffer } {
  const [count, hex] = text.split(':');
  return { count: Number(count), xor: Buffer.from(hex ?? '', 'hex') };
}

/** Runs one exchange with the server: a transport failure strains the host's pace, a success eases it. */
async function paced<T>(server: Server, exchange: () => Promise<T>): Promise<T> {
  try {
    const result = await exchange();
    sharedPacer.ease(server.paceKey);
    return result;
  } catch (error) {
    if (!(error instanceof ArchiveError) || error.kind === 'transient') sharedPacer.strain(server.paceKey);
    throw error;
  }
}

/** The news server of the base URL; `subject` (the list, or the command) names what has none in the error. */
function serverOf(context: Pick<SourceContext, 'baseUrl'>, subject: string): Server {
  if (!context.baseUrl)
    throw new ArchiveError(`${subject} has no news server: give it with --base-url nntp://HOST[:PORT].`, 'permanent');
  let url: URL;
  try {
    url = new URL(context.baseUrl);
  } catch {
    throw new ArchiveError(`"${context.baseUrl}" is not an nntp:// or nntps:// URL.`, 'permanent');
  }
  const scheme = url.protocol.replace(/:$/, '');
  if (scheme !== 'nntp' && scheme !== 'nntps')
    throw new ArchiveError(`"${context.baseUrl}" is not an nntp:// or nntps:// URL.`, 'permanent');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : DEFAULT_PORTS[scheme];
  return { host, port, tls: scheme === 'nntps', url: `${scheme}://${url.host}`, paceKey: url.host };
}

/**
 * AUTHINFO USER/PASS from the config file's mail_accounts entry for the
 * server's host, else from LISTMINER_NNTP_USER and LISTMINER_NNTP_PASSWORD;
 * none when neither gives both.
 */
function credentials(
  context: Pick<SourceContext, 'mailAccounts'>,
  server: Server,
): { user: string; password: string } | undefined {
  const account = context.mailAccounts?.find(
    (entry) => entry.host === server.host.toLowerCase() && entry.user && entry.password,
  );
  if (account) return { user: account.user!, password: account.password! };
  const user = process.env.LISTMINER_NNTP_USER;
  const password = process.env.LISTMINER_NNTP_PASSWORD;
  return user && password ? { user, password } : undefined;
}
