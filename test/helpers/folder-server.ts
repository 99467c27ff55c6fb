import { spawn, type ChildProcess } from 'node:child_process';
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
    response.writeHead(200, {
      'content-type': type,
      'content-length': String(info.size),
      'last-modified': info.mtime.toUTCString(),
    });
    createReadStream(path).pipe(response);
  });
}

/** Real software that speaks HTTP/1.0 and ends each reply by closing the connection: Python's http.server on the folder. */
export async function startPythonHttpServer(folder: string): Promise<{ url: string; process: ChildProcess }> {
  const child = spawn('python3', ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', folder], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const port = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk: Buffer) => {
      seen += chunk.toString();
      const match = /port (\d+)/.exec(seen);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`python3 -m http.server exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, process: child };
}
