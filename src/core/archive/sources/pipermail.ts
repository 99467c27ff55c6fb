import { ArchiveError } from '../../errors.js';
import { createHttpClient, type HttpClient } from '../../net/http-client.js';
import { type ArchiveSource, type Month, type SourceContext } from '../archive-source.js';
import { addMonths, monthOf } from '../month.js';
import { fetchMboxUrl, requireBaseUrl, splitListAddress } from '../fetch-mbox-url.js';

const MONTH_NAMES = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const MONTH_LINK = new RegExp(
  `href\\s*=\\s*["']?([^"'\\s>]*?(\\d{4})-(${MONTH_NAMES.join('|')})\\.txt(?:\\.gz)?)["'\\s>]`,
  'gi',
);
/** The link's text: `[ Gzip'd Text 7 KB ]` (HyperArch.html_TOC_entry with sizeof()). */
const LINK_TEXT = /^[^>]*>([^<]*)</;
/**
 * Archiver.ArchiveMail (ARCHIVER_CLOBBER_DATE_POLICY 2) keeps a Date within
 * ARCHIVER_ALLOWABLE_SANE_DATE_SKEW (15 days) of arrival, and pipermail files
 * by that Date: mail arriving up to 15 days after a month ends is filed
 * under it. Two days more for relays and the archive queue.
 */
const MAILMAN_LATE_MS = (15 + 2) * 86_400_000;

/** A month's text archive as the index links it. */
interface MonthLink {
  url: string;
  /** The link and the size the index states for it: changes when the archive file does (to the KB). */
  stated: string;
}

export interface PipermailOptions {
  client?: HttpClient;
}

/**
 * Mailman 2 (pipermail). The list's archive index page links one
 * `YYYY-Month.txt` or `.txt.gz` per month; the index is read once per
 * source (one list's fetch), its oldest month is the first month, and a
 * month it does not link is empty. Each month's link and stated size are
 * its fingerprint, so a past month that changed is read again. The text
 * escapes nothing and may put a From_ line straight after a message
 * (docs/archive-backends.md).
 */
export function createPipermailSource(options: PipermailOptions = {}): ArchiveSource {
  const clientFor = (context: SourceContext) => options.client ?? createHttpClient(context);
  const indexes = new Map<string, Promise<Map<Month, MonthLink>>>();
  /** Set once a `.txt` beside a linked `.txt.gz` is missing (a mirror that keeps only what the index links). */
  let plainTextMissing = false;
  const monthsOf = (context: SourceContext) => {
    const url = indexUrl(context);
    let months = indexes.get(url);
    if (!months) {
      months = readIndex(clientFor(context), url, context.signal);
      months.catch(() => indexes.delete(url));
      indexes.set(url, months);
    }
    return months;
  };
  return {
    name: 'pipermail',
    monthSettleMs: MAILMAN_LATE_MS,

    async firstMonth(context) {
      const months = [...(await monthsOf(context)).keys()].sort();
      return months[0];
    },

    async lastMonth() {
      return monthOf(new Date());
    },

    async monthFingerprints(context) {
      return new Map([...(await monthsOf(context))].map(([month, link]) => [month, link.stated]));
    },

    async *fetchMonth(context, month) {
      const link = (await monthsOf(context)).get(month);
      if (!link) return;
      const client = clientFor(context);
      let messages = 0;
      let missing = false;
      const read = async function* (url: string) {
        missing = false;
        for await (const message of fetchMboxUrl(client, url, context.signal, {
          flavour: 'pipermail',
          wholeEnding: true,
          onMissing: () => (missing = true),
        })) {
          messages++;
          yield message;
        }
      };
      // html_TOC_entry links the .txt.gz whenever it exists, but cron/nightly_gzip
      // rewrites it only once a day from the .txt Mailman appends to: for a month
      // that may still grow, the .txt is the whole month.
      const plain = link.url.replace(/\.gz$/, '');
      if (plain !== link.url && !plainTextMissing && mayStillGrow(month)) {
        yield* read(plain);
        if (messages > 0) return;
        if (missing) plainTextMissing = true;
      }
      yield* read(link.url);
      // Mailman links a month's file once it holds a message: a file the index links that is gone or empty is the server's fault.
      if (messages === 0)
        throw new ArchiveError(
          `${link.url} is linked from the archive index (${link.stated}), but the server ${missing ? 'has no such file (404)' : 'sent no mail in it'}; the month is read again on the next fetch.`,
          'transient',
        );
    },

    async close() {
      indexes.clear();
    },
  };
}

/**
 * The list's archive folder: a base URL that already points into
 * `/pipermail/` is the folder itself; any other base gets
 * `/pipermail/<list name>/` added, as Mailman 2 lays archives out.
 */
export function indexUrl(context: SourceContext): string {
  const base = requireBaseUrl(context);
  if (/\/pipermail\//.test(`${new URL(base).pathname}/`)) return `${base}/`;
  return `${base}/pipermail/${encodeURIComponent(splitListAddress(context).local)}/`;
}

/** True while Mailman may still file mail under the month. */
function mayStillGrow(month: Month): boolean {
  return Date.now() < Date.parse(`${addMonths(month, 1)}-01T00:00:00Z`) + MAILMAN_LATE_MS;
}

async function readIndex(client: HttpClient, url: string, signal?: AbortSignal): Promise<Map<Month, MonthLink>> {
  const html = await client.text(url, signal);
  if (html === undefined) throw new ArchiveError(`There is no pipermail archive index at ${url}.`, 'permanent');
  return parseIndexLinks(html, url);
}

/** Month → absolute URL of its text archive, from an index page. */
export function parseIndex(html: string, url: string): Map<Month, string> {
  return new Map([...parseIndexLinks(html, url)].map(([month, link]) => [month, link.url]));
}

/** Month → its text archive's URL and what the index states of it. */
export function parseIndexLinks(html: string, url: string): Map<Month, MonthLink> {
  const months = new Map<Month, MonthLink>();
  for (const match of html.matchAll(MONTH_LINK)) {
    const number = MONTH_NAMES.findIndex((name) => name.toLowerCase() === match[3]!.toLowerCase()) + 1;
    const month = `${match[2]}-${String(number).padStart(2, '0')}`;
    if (months.has(month)) continue;
    const text =
      LINK_TEXT.exec(html.slice(match.index + match[0].length - 1, match.index + match[0].length + 200))?.[1] ?? '';
    months.set(month, { url: new URL(match[1]!, url).href, stated: `${match[1]} ${text.replace(/\s+/g, ' ').trim()}` });
  }
  return months;
}

export function createSource(): ArchiveSource {
  return createPipermailSource();
}
