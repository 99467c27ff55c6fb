import { hash as digest } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
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
 * from what the manifest says is there (or that are missing on disk). A file
 * that replaces one on disk goes through a temporary file and a rename, so a
 * reader never sees half a page; a file the manifest does not know and that
 * is not on disk is written in place (docs/render.md, "Incremental and
 * deterministic"). Files are never deleted: an address handed out keeps
 * working. The calls are synchronous: for hundreds of thousands of small
 * files the promise API's thread-pool round trips cost more CPU than the
 * writes themselves (docs/performance.md).
 */
export class SiteWriter {
  written = 0;
  skipped = 0;
  private readonly manifest: RenderManifest;
  private readonly madeDirs = new Set<string>();
  /** Paths the manifest read did not hold. */
  private readonly added: string[] = [];

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
  write(path: string, content: string | Buffer): void {
    const hash = digest('sha256', content, 'hex');
    const target = join(this.outDir, ...path.split('/'));
    const known = this.manifest.files[path];
    if (known === hash && existsSync(target)) {
      this.skipped++;
      return;
    }
    const dir = dirname(target);
    if (!this.madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    if (known === undefined) this.added.push(path);
    if (known !== undefined || !writeNew(target, content)) {
      const temporary = `${target}.partial`;
      writeFileSync(temporary, content);
      renameSync(temporary, target);
    }
    this.manifest.files[path] = hash;
    this.written++;
  }

  /** Writes the manifest, keys sorted, so the same site gives the same bytes. Written last: an interrupted render writes its pages again. */
  async close(): Promise<string> {
    const sorted: RenderManifest = {
      format: 1,
      files: this.sortedFiles(),
      lists: Object.fromEntries(Object.entries(this.manifest.lists).sort(([a], [b]) => compareText(a, b))),
    };
    const path = join(this.outDir, RENDER_MANIFEST);
    const text = `${JSON.stringify(sorted, null, 1)}\n`;
    if (text === this.manifestText) return path;
    await writeFile(`${path}.partial`, text);
    await rename(`${path}.partial`, path);
    return path;
  }

  /**
   * The manifest's files in path order. The manifest read was written in that
   * order, so only the paths new in this render are sorted and merged in: a
   * site of a few hundred thousand files is not sorted again for a month's pages.
   */
  private sortedFiles(): Record<string, string> {
    const files = this.manifest.files;
    const fresh = new Set(this.added);
    const known = Object.keys(files).filter((key) => !fresh.has(key));
    if (!known.every((key, i) => i === 0 || compareText(known[i - 1]!, key) < 0))
      return Object.fromEntries(Object.entries(files).sort(([a], [b]) => compareText(a, b)));
    if (this.added.length === 0) return files;
    const added = [...this.added].sort(compareText);
    const sorted: Record<string, string> = {};
    let i = 0;
    for (const key of known) {
      while (i < added.length && compareText(added[i]!, key) < 0) sorted[added[i]!] = files[added[i++]!]!;
      sorted[key] = files[key]!;
    }
    while (i < added.length) sorted[added[i]!] = files[added[i++]!]!;
    return sorted;
  }
}

/** Writes a file that must not exist yet; false when one does (left by a render stopped before its manifest). */
function writeNew(target: string, content: string | Buffer): boolean {
  try {
    writeFileSync(target, content, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** Code-point order: the same on every engine and machine, unlike a database's collation. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
