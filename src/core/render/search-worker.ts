import { MonthIndexes, type SearchRequest } from './search-index.js';
import { serveRequests } from './worker-link.js';

/** The search thread of a render (MonthSearch): one list's month indexes at a time. */
const indexes = new MonthIndexes();

serveRequests<SearchRequest, string | undefined>((request) => {
  if ('take' in request) return indexes.take(request.take);
  for (const [month, document] of request.add) indexes.add(month, document);
  return undefined;
});
