import { ArchiveError } from '../../errors.js';
import { createHttpClient, type HttpClient } from '../../net/http-client.js';
import { type ArchiveSource, type Month, type SourceContext } from '../archive-source.js';
import { monthOf } from '../month.js';
import { fetchMboxUrl, requireBaseUrl, splitListAddress } from '../fetch-mbox-url.js';

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const MONTH_LINK = new RegExp(`href\\s*=\\s*["']?([^"'\\s>]*?(\\d{4})-(${MONTH_NAMES.join('|')})\\.txt(?:\\.gz)?)["'\\s>]`, 'gi');

export interface PipermailOptions {
  client?: HttpClient;
}

/**
 * Mailman 2 (pipermail). The list's archive index page links one
 * `YYYY-Month.txt` or `.txt.gz` per month; the index is read once per
 * source (one list's fetch), its oldest month is the first month, and a
 * month it does not link is empty.
 */
export function createPipermailSource(options: PipermailOptions = {}): ArchiveSource {
  const clientFor = (context: SourceContext) => options.client ?? createHttpClient(context);
  const indexes = new Map<string, Promise<Map<Month, string>>>();
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

    async firstMonth(context) {
      const months = [...(await monthsOf(context)).keys()].sort();
      return months[0];
    },

    async lastMonth() {
      return monthOf(new Date());
    },

    async *fetchMonth(context, month) {
      const url = (await monthsOf(context)).get(month);
      if (url) yield* fetchMboxUrl(clientFor(context), url, context.signal);
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

async function readIndex(client: HttpClient, url: string, signal?: AbortSignal): Promise<Map<Month, string>> {
  const html = await client.text(url, signal);
  if (html === undefined) throw new ArchiveError(`There is no pipermail archive index at ${url}.`, 'permanent');
  return parseIndex(html, url);
}

/** Month → absolute URL of its text archive, from an index page. */
export function parseIndex(html: string, url: string): Map<Month, string> {
  const months = new Map<Month, string>();
  for (const match of html.matchAll(MONTH_LINK)) {
    const number = MONTH_NAMES.findIndex((name) => name.toLowerCase() === match[3]!.toLowerCase()) + 1;
    const month = `${match[2]}-${String(number).padStart(2, '0')}`;
    if (!months.has(month)) months.set(month, new URL(match[1]!, url).href);
  }
  return months;
}

export function createSource(): ArchiveSource {
  return createPipermailSource();
}
