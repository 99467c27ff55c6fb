import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputError } from '../errors.js';

/** The manifest's file in the output folder. */
export const RENDER_MANIFEST = 'render-manifest.json';

/** One list as the front page shows it, kept in the manifest so a render of some lists keeps the others on the front page. */
export interface ListSummary {
  slug: string;
  system: string;
  name: string;
  repoUrl: string | null;
  firstMonth: string | null;
  lastMonth: string | null;
  messages: number;
  monthly: Array<{ month: string; count: number }>;
}

export interface RenderManifest {
  format: 1;
  /** Every file of the site, by path, with the SHA-256 of its content. */
  files: Record<string, string>;
  lists: Record<string, ListSummary>;
}

/**
 * Writes the site's files into one folder, only those whose content differs
 * from what the manifest says is there (or that are missing on disk), each
 * through a temporary file and a rename, so a reader never sees half a page.
 * Files are never deleted: an address handed out keeps working.
 */
export class SiteWriter {
  written = 0;
  skipped = 0;
  private readonly manifest: RenderManifest;
  private readonly madeDirs = new Set<string>();

  private constructor(
    readonly outDir: string,
    manifest: RenderManifest,
    private readonly manifestText: string,
  ) {
    this.manifest = manifest;
  }

  static async open(outDir: string): Promise<SiteWriter> {
    try {
      await mkdir(outDir, { recursive: true });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR' || code === 'EEXIST')
        throw new InputError(
          `--out ${outDir} is not a folder: a file stands at that path or on the way to it.`,
          'Give --out a folder path (it is made when missing).',
        );
      throw error;
    }
    let manifest: RenderManifest = { format: 1, files: {}, lists: {} };
    let text = '';
    try {
      text = await readFile(join(outDir, RENDER_MANIFEST), 'utf8');
      const read = JSON.parse(text) as RenderManifest;
      if (read.format === 1) manifest = { format: 1, files: read.files ?? {}, lists: read.lists ?? {} };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && !(error instanceof SyntaxError)) throw error;
    }
    return new SiteWriter(outDir, manifest, text);
  }

  get lists(): Record<string, ListSummary> {
    return this.manifest.lists;
  }

  setList(summary: ListSummary): void {
    this.manifest.lists[summary.slug] = summary;
  }

  /** Writes `content` at `path` (relative, with `/`) unless the same bytes are there already. */
  async write(path: string, content: string | Buffer): Promise<void> {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const hash = createHash('sha256').update(bytes).digest('hex');
    const target = join(this.outDir, ...path.split('/'));
    if (this.manifest.files[path] === hash && (await exists(target))) {
      this.skipped++;
      return;
    }
    const dir = dirname(target);
    if (!this.madeDirs.has(dir)) {
      await mkdir(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    const temporary = `${target}.partial`;
    await writeFile(temporary, bytes);
    await rename(temporary, target);
    this.manifest.files[path] = hash;
    this.written++;
  }

  /** Writes the manifest, keys sorted, so the same site gives the same bytes. Written last: an interrupted render writes its pages again. */
  async close(): Promise<string> {
    const sorted: RenderManifest = {
      format: 1,
      files: Object.fromEntries(Object.entries(this.manifest.files).sort(([a], [b]) => compareText(a, b))),
      lists: Object.fromEntries(Object.entries(this.manifest.lists).sort(([a], [b]) => compareText(a, b))),
    };
    const path = join(this.outDir, RENDER_MANIFEST);
    const text = `${JSON.stringify(sorted, null, 1)}\n`;
    if (text === this.manifestText) return path;
    await writeFile(`${path}.partial`, text);
    await rename(`${path}.partial`, path);
    return path;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

/** Code-point order: the same on every engine and machine, unlike a database's collation. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
