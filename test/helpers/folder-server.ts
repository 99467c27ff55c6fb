import { createReadStream, statSync } from 'node:fs';
import { join, normalize } from 'node:path';
import { send, startArchiveServer, type ArchiveServer } from './archive-server.js';

/**
 * Serves a folder as plain files over HTTP/1.1, as a web server in front of
 * a Mailman archive does: `/<prefix>/<path>` is `<folder>/<path>`, a folder
 * path serves its index.html. `requests` counts what was asked for.
 */
export async function serveFolder(folder: string, prefix = ''): Promise<ArchiveServer> {
  return startArchiveServer((url, response) => {
    if (!url.pathname.startsWith(`${prefix}/`)) return send(response, 404, 'Not Found');
    const relative = normalize(decodeURIComponent(url.pathname.slice(prefix.length + 1)));
    if (relative.startsWith('..')) return send(response, 404, 'Not Found');
    let path = join(folder, relative);
    let info = statSync(path, { throwIfNoEntry: false });
    if (info?.isDirectory()) {
      path = join(path, 'index.html');
      info = statSync(path, { throwIfNoEntry: false });
    }
    if (!info?.isFile()) return send(response, 404, 'Not Found');
    const type = path.endsWith('.html') ? 'text/html' : path.endsWith('.gz') ? 'application/x-gzip' : 'text/plain';
    response.writeHead(200, { 'content-type': type, 'content-length': String(info.size), 'last-modified': info.mtime.toUTCString() });
    createReadStream(path).pipe(response);
  });
}
