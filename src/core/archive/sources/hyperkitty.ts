import { createHttpClient, type HttpClient } from '../../net/http-client.js';
import type { ArchiveSource, Month, SourceContext } from '../archive-source.js';
import { fetchMboxUrl, requireBaseUrl, splitListAddress } from '../fetch-mbox-url.js';
import { addMonths, isMonth, monthOf } from '../month.js';

export interface HyperKittyOptions {
  client?: HttpClient;
}

/**
 * Mailman 3 (HyperKitty). A month is the list's mbox export over
 * [first day of the month, first day of the next) — HyperKitty's `end` is
 * exclusive. The first month is the oldest month the list's overview page
 * links in its archive sidebar (`/list/ADDR/YYYY/M/`), which HyperKitty
 * builds from the mail itself; when the page links none, the REST API's
 * `created_at` for the list stands in.
 */
export function createHyperKittySource(options: HyperKittyOptions = {}): ArchiveSource {
  const clientFor = (context: SourceContext) => options.client ?? createHttpClient(context);
  return {
    name: 'hyperkitty',

    async firstMonth(context) {
      const { address } = splitListAddress(context);
      const base = requireBaseUrl(context);
      const client = clientFor(context);
      const overview = await client.text(`${base}/list/${pathAddress(address)}/`, context.signal);
      const linked = overview === undefined ? [] : archiveMonths(overview, address);
      if (linked.length > 0) return linked[0];
      const info = await client.json<{ created_at?: string }>(`${base}/api/list/${pathAddress(address)}/`, context.signal);
      const created = info?.created_at?.slice(0, 7);
      return created && isMonth(created) ? created : undefined;
    },

    async lastMonth() {
      return monthOf(new Date());
    },

    fetchMonth(context, month) {
      return fetchMboxUrl(clientFor(context), exportUrl(context, month), context.signal);
    },
  };
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

/** Addresses go into HyperKitty paths as they are written, `@` included. */
function pathAddress(address: string): string {
  return encodeURIComponent(address).replace(/%40/g, '@');
}

export function createSource(): ArchiveSource {
  return createHyperKittySource();
}
