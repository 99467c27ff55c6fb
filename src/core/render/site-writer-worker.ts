import { type ListSummary, SiteWriter, type WriteAnswer, type WriteRequest } from './site-writer.js';
import { serveRequests } from './worker-link.js';

/** The writing thread of a render (SiteOutput): one SiteWriter, fed in the order the render made its files. */
let writer: SiteWriter | undefined;

serveRequests<WriteRequest, WriteAnswer>(async (request) => {
  if ('open' in request) {
    writer = await SiteWriter.open(request.open);
    return writer.found(request.prefix);
  }
  if ('write' in request) {
    for (const [path, content] of request.write) writer!.write(path, content);
    return undefined;
  }
  const manifest = request.close === null ? '' : await closeWith(writer!, request.close);
  return { manifest, written: writer!.written, skipped: writer!.skipped };
});

/** Writes the manifest with every list of the site. */
async function closeWith(site: SiteWriter, lists: Record<string, ListSummary>): Promise<string> {
  for (const summary of Object.values(lists)) site.setList(summary);
  return site.close();
}
