import { createHash } from 'node:crypto';
import { ArchiveError } from '../../errors.js';
import { createHttpClient, type HttpClient } from '../../net/http-client.js';
import type { ArchiveSource, Month, SourceContext } from '../archive-source.js';
import { fetchMboxUrl, requireBaseUrl, splitListAddress } from '../fetch-mbox-url.js';
import { addMonths, isMonth, monthOf } from '../month.js';
import { readMonthIndex, writeMonthIndex } from '../month-index-cache.js';

export interface HyperKittyOptions {
  client?: HttpClient;
  /** Today, for the months whose pages are always read again (tests). */
  now?: () => Date;
}

/**
 * Mailman 3 (HyperKitty). A month is the list's mbox export over
 * [first day of the month, first day of the next) — HyperKitty's `end` is
 * exclusive. The first month is the oldest month the list's overview page
 * links in its archive sidebar (`/list/ADDR/YYYY/M/`), which HyperKitty
 * builds from the list's oldest mail; when the page links none, the REST
 * API's `created_at` for the list stands in. A list whose overview page is
 * missing is a permanent failure that names the URL tried: a wrong address
 * or a base URL without HyperKitty's prefix would otherwise read as a list
 * with no mail.
 *
 * Mail imported into past months (`hyperkitty_import` of an old archive) is
 * noticed through month fingerprints taken from HyperKitty's month pages;
 * see monthFingerprints below and docs/archive-backends.md.
 */
export function createHyperKittySource(options: HyperKittyOptions = {}): ArchiveSource {
  const clientFor = (context: SourceContext) => options.client ?? createHttpClient(context);
  const now = options.now ?? (() => new Date());
  // One overview read per fetch of a list: firstMonth and monthFingerprints both need it.
  const overviews = new Map<string, Promise<string>>();
  const readOverview = (context: SourceContext) => {
    const url = `${listUrl(context)}/`;
    let page = overviews.get(url);
    if (!page) {
      page = requireOverview(clientFor(context), url, context.signal);
      overviews.set(url, page);
      page.catch(() => overviews.delete(url));
    }
    return page;
  };

  return {
    name: 'hyperkitty',

    async firstMonth(context) {
      const { address } = splitListAddress(context);
      const linked = archiveMonths(await readOverview(context), address);
      if (linked.length > 0) return linked[0];
      const info = await clientFor(context).json<{ created_at?: string }>(
        `${requireBaseUrl(context)}/api/list/${pathAddress(address)}/`,
        context.signal,
      );
      const created = info?.created_at?.slice(0, 7);
      return created && isMonth(created) ? created : undefined;
    },

    async lastMonth() {
      return monthOf(now());
    },

    fetchMonth(context, month) {
      return fetchMboxUrl(clientFor(context), exportUrl(context, month), context.signal, { flavour: 'mboxo' });
    },

    /**
     * A month's fingerprint is what its month page says of it: the counts
     * of discussions and participants, and for the threads on the page
     * their ids, latest activity and reply counts. Reading every month page
     * on every run would cost a request per month of history, so the
     * fingerprints are kept in the cache folder with the list's total of
     * discussions (its `latest` page). The current and the previous month's
     * pages are read every run; the others only when the total grew by more
     * than the discussions those two months gained, or the first month
     * moved: then some past month gained a discussion.
     */
    async monthFingerprints(context) {
      const { address } = splitListAddress(context);
      const client = clientFor(context);
      const months = archiveMonths(await readOverview(context), address);
      const latest = await client.text(`${listUrl(context)}/latest`, context.signal);
      if (latest === undefined)
        throw new ArchiveError(`There is no HyperKitty thread list at ${listUrl(context)}/latest.`, 'permanent');
      const total = threadListCounts(latest).at(-1) ?? 0;
      const stamp = `from ${months[0] ?? '-'}`;
      const cached = await readMonthIndex<FingerprintIndex>(context.cacheDir, 'hyperkitty', listUrl(context), stamp);
      const recent = new Set([monthOf(now()), addMonths(monthOf(now()), -1)]);
      const fingerprints = new Map<Month, string>();
      const readPage = async (month: Month) => {
        const fingerprint = monthPageFingerprint(await client.text(monthPageUrl(context, month), context.signal));
        if (fingerprint) fingerprints.set(month, fingerprint);
      };
      let recentGrowth = 0;
      for (const month of months.filter((month) => recent.has(month))) {
        await readPage(month);
        recentGrowth += Math.max(0, discussionsOf(fingerprints.get(month)) - discussionsOf(cached?.months[month]));
      }
      const pastUnchanged = cached !== undefined && total >= cached.total && total - cached.total <= recentGrowth;
      for (const month of months.filter((month) => !recent.has(month))) {
        if (!pastUnchanged) await readPage(month);
        else if (cached.months[month]) fingerprints.set(month, cached.months[month]);
      }
      const index: FingerprintIndex = { total, months: Object.fromEntries(fingerprints) };
      await writeMonthIndex(context.cacheDir, 'hyperkitty', listUrl(context), stamp, index);
      return fingerprints;
    },
  };
}

interface FingerprintIndex {
  /** The list's total of discussions when the fingerprints were taken. */
  total: number;
  months: Record<Month, string>;
}

/** The discussions a month fingerprint counts (its header's last number). */
function discussionsOf(fingerprint: string | undefined): number {
  return Number(/(\d+):/.exec(fingerprint ?? '')?.[1] ?? 0);
}

async function requireOverview(client: HttpClient, url: string, signal?: AbortSignal): Promise<string> {
  const page = await client.text(url, signal);
  if (page === undefined) {
    throw new ArchiveError(
      `There is no HyperKitty list at ${url} (check the list address, and that the base URL ends with HyperKitty's prefix, such as /hyperkitty).`,
      'permanent',
    );
  }
  return page;
}

function listUrl(context: SourceContext): string {
  return `${requireBaseUrl(context)}/list/${pathAddress(splitListAddress(context).address)}`;
}

function monthPageUrl(context: SourceContext, month: Month): string {
  return `${listUrl(context)}/${month.slice(0, 4)}/${Number(month.slice(5, 7))}/`;
}

export function exportUrl(context: SourceContext, month: Month): string {
  const { address } = splitListAddress(context);
  const name = pathAddress(address);
  return `${requireBaseUrl(context)}/list/${name}/export/${name}.mbox.gz?start=${month}-01&end=${addMonths(month, 1)}-01`;
}

/** The months an overview page links as `/list/ADDR/YYYY/M/`, oldest first. */
export function archiveMonths(html: string, address: string): Month[] {
  const escaped = address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace('@', '(?:@|%40)');
  const link = new RegExp(`/list/${escaped}/(\\d{4})/(\\d{1,2})/`, 'gi');
  const months = new Set<Month>();
  for (const match of html.matchAll(link)) {
    const month = `${match[1]}-${match[2]!.padStart(2, '0')}`;
    if (isMonth(month)) months.add(month);
  }
  return [...months].sort();
}

/** The numbers of a thread list page's header (participants, discussions), whatever the page's language. */
export function threadListCounts(html: string): number[] {
  const header = /class="[^"]*\bthread-list-info\b[^"]*"[^>]*>([\s\S]*?)<\/ul>/.exec(html)?.[1] ?? '';
  return (header.match(/\d+/g) ?? []).map(Number);
}

/**
 * A month page's fingerprint, or '' for a month without discussions (or
 * without a page). The CSRF token and other per-request parts of the page
 * are left out: only the counts and the threads listed go in.
 */
export function monthPageFingerprint(html: string | undefined): string {
  if (html === undefined) return '';
  const counts = threadListCounts(html);
  if (counts.every((count) => count === 0)) return '';
  const threads = [...html.matchAll(/<a name="(\w+)"\s+href="[^"]*\/thread\/\1\/"/g)].map((match) => match[1]);
  const activity = [...html.matchAll(/class="thread-date[^"]*"\s+title="([^"]*)"/g)].map((match) => match[1]);
  const replies = [...html.matchAll(/(\d+)\s*<!-- comments -->/g)].map((match) => match[1]);
  const digest = createHash('sha256').update(JSON.stringify({ threads, activity, replies })).digest('hex').slice(0, 16);
  return `${counts.join('/')}:${digest}`;
}

/** Addresses go into HyperKitty paths as they are written, `@` included. */
function pathAddress(address: string): string {
  return encodeURIComponent(address).replace(/%40/g, '@');
}

export function createSource(): ArchiveSource {
  return createHyperKittySource();
}
