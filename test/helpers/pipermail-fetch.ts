import type { ChildProcess } from 'node:child_process';
import { mkdirSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import type { ArchiveServer } from './archive-server.js';
import { queryAt } from './databases.js';
import { serveFolder, startPythonHttpServer } from './folder-server.js';

export interface FetchJson {
  lists: Array<{ list: string; status: string; staged: number; error?: { message: string } }>;
}

export async function stagedByMonth(url: string, list: string): Promise<Map<string, number>> {
  const rows = await queryAt<{ archive_month: string; n: number | string }>(
    url,
    'SELECT s.archive_month, COUNT(*) AS n FROM staged_messages s JOIN lists l ON l.id = s.list_id WHERE l.name = ? GROUP BY s.archive_month',
    [list],
  );
  return new Map(rows.map((row) => [row.archive_month, Number(row.n)]));
}
export const total = (counts: Map<string, number>) => [...counts.values()].reduce((a, b) => a + b, 0);

/** A served root holding `pipermail/<list>/` for each archive folder, and the two servers over it. */
export interface Served {
  root: string;
  http11: ArchiveServer;
  http10: { url: string; process: ChildProcess };
}

export async function serveArchives(root: string, folders: Record<string, string>): Promise<Served> {
  mkdirSync(join(root, 'pipermail'), { recursive: true });
  for (const [list, folder] of Object.entries(folders)) symlinkSync(folder, join(root, 'pipermail', list));
  return { root, http11: await serveFolder(root), http10: await startPythonHttpServer(root) };
}
