import { ArchiveError } from '../../errors.js';
import { createHttpClient, type HttpClient } from '../../net/http-client.js';
import { type ArchiveSource, type DiscoveredList, type Month, type SourceContext } from '../archive-source.js';
import { fetchMboxUrl, requireBaseUrl, splitListAddress } from '../fetch-mbox-url.js';
import { isMonth, monthOf } from '../month.js';

interface StatsAnswer {
  firstYear?: number;
  firstMonth?: number;
}

interface PreferencesAnswer {
  /** domain → list name → message count. */
  lists?: Record<string, Record<string, number>>;
}

export interface PonyMailOptions {
  client?: HttpClient;
}

/**
 * Pony Mail Foal (lists.apache.org). A month is one mboxrd download; the
 * first month comes from stats.lua over a one-day window, which still
 * reports the list's firstYear/firstMonth but makes the server search almost
 * nothing (a 30-year window would make it read the whole list).
 */
export function createPonyMailSource(options: PonyMailOptions = {}): ArchiveSource {
  const clientFor = (context: { contactEmail?: string }) => options.client ?? createHttpClient(context);
  return {
    name: 'apache_ponymail',

    async firstMonth(context: SourceContext): Promise<Month | undefined> {
      const { local, domain } = splitListAddress(context);
      const url = `${requireBaseUrl(context)}/api/stats.lua?${query({ list: local, domain, d: 'lte=1d' })}`;
      const stats = await clientFor(context).json<StatsAnswer>(url, context.signal);
      // An empty list still answers 200; a 404 means the URL or the address is wrong,
      // and taking it for an empty list would mark the list complete for a month.
      if (stats === undefined)
        throw new ArchiveError(`${url} answered 404: the archive does not know ${local}@${domain}.`, 'permanent');
      if (!Number.isInteger(stats.firstYear) || !Number.isInteger(stats.firstMonth)) return undefined;
      const month = `${String(stats.firstYear).padStart(4, '0')}-${String(stats.firstMonth).padStart(2, '0')}`;
      // An empty list answers with no years or with zeros.
      return isMonth(month) && stats.firstYear! >= 1970 ? month : undefined;
    },

    async lastMonth(): Promise<Month> {
      return monthOf(new Date());
    },

    fetchMonth(context: SourceContext, month: Month) {
      const { local, domain } = splitListAddress(context);
      const url = `${requireBaseUrl(context)}/api/mbox.lua?${query({ list: local, domain, date: month })}`;
      return fetchMboxUrl(clientFor(context), url, context.signal);
    },

    async enumerateLists(context): Promise<DiscoveredList[]> {
      const url = `${requireBaseUrl(context)}/api/preferences.lua`;
      const preferences = await clientFor(context).json<PreferencesAnswer>(url, context.signal);
      if (!preferences?.lists || typeof preferences.lists !== 'object') {
        throw new ArchiveError(`${url} has no list catalogue ("lists").`, 'permanent');
      }
      const wanted = context.domain?.toLowerCase();
      const found: DiscoveredList[] = [];
      for (const [domain, lists] of Object.entries(preferences.lists)) {
        if (wanted && domain.toLowerCase() !== wanted) continue;
        for (const name of Object.keys(lists ?? {})) {
          const address = `${name}@${domain}`.toLowerCase();
          found.push({ name: address, listAddress: address, listId: address.replace('@', '.') });
        }
      }
      return found.sort((a, b) => a.name.localeCompare(b.name));
    },
  };
}

/** `list=dev&domain=kafka.apache.org&d=lte=1d`: Pony Mail reads `d` raw, so only what must be escaped is. */
function query(params: Record<string, string>): string {
  return Object.entries(params)
    .map(([key, value]) => `${key}=${encodeURIComponent(value).replace(/%3D/g, '=')}`)
    .join('&');
}

export function createSource(): ArchiveSource {
  return createPonyMailSource();
}
