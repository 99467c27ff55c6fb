import { hash as digest } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../errors.js';
import { WorkerLink } from './worker-link.js';

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
  private readonly madeDirs = new Set<string>();
  /** Paths written by this render, with their new hashes. */
  private readonly changes = new Map<string, string>();

  private constructor(
    readonly outDir: string,
    private readonly files: ManifestFiles,
    readonly lists: Record<string, ListSummary>,
    /** The manifest's text as read, when it is in the form close() writes (else the manifest is written again). */
    private readonly listsText: string | undefined,
  ) {}

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
    let text = '';
    try {
      text = await readFile(join(outDir, RENDER_MANIFEST), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    const read = ManifestFiles.read(text);
    if (read) return new SiteWriter(outDir, read.files, read.lists, read.listsText);
    // Not in the form this writer gives it (or no manifest): read as JSON, and written again whole at the end.
    let manifest: RenderManifest = { format: 1, files: {}, lists: {} };
    try {
      const parsed = JSON.parse(text) as RenderManifest;
      if (parsed.format === 1) manifest = { format: 1, files: parsed.files ?? {}, lists: parsed.lists ?? {} };
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
    }
    // A path JSON escapes was not written by a render (none is): it is left out, and its file stays unknown.
    const plain = Object.entries(manifest.files).filter(([path]) => JSON.stringify(path) === `"${path}"`);
    const files = ManifestFiles.read(manifestText(plain, {}))!.files;
    return new SiteWriter(outDir, files, manifest.lists, undefined);
  }

  setList(summary: ListSummary): void {
    this.lists[summary.slug] = summary;
  }

  /** What the manifest said when the folder was opened: its lists, and its files under `prefix`. */
  found(prefix: string): SiteFound {
    return { lists: { ...this.lists }, files: this.files.pathsUnder(prefix) };
  }

  /** Writes `content` at `path` (relative, with `/`) unless the same bytes are there already. */
  write(path: string, content: string | Uint8Array): void {
    const hash = digest('sha256', content, 'hex');
    const target = join(this.outDir, ...path.split('/'));
    const known = this.changes.get(path) ?? this.files.get(path);
    if (known === hash && existsSync(target)) {
      this.skipped++;
      return;
    }
    const dir = dirname(target);
    if (!this.madeDirs.has(dir)) {
      mkdirSync(dir, { recursive: true });
      this.madeDirs.add(dir);
    }
    if (known !== undefined || !writeNew(target, content)) {
      const temporary = `${target}.partial`;
      writeFileSync(temporary, content);
      renameSync(temporary, target);
    }
    this.changes.set(path, hash);
    this.written++;
  }

  /**
   * Writes the manifest, keys sorted, so the same site gives the same bytes;
   * not at all when nothing changed. Written last: an interrupted render
   * writes its pages again.
   */
  async close(): Promise<string> {
    const path = join(this.outDir, RENDER_MANIFEST);
    const lists = Object.fromEntries(Object.entries(this.lists).sort(([a], [b]) => compareText(a, b)));
    const listsText = listsPart(lists);
    if (this.changes.size === 0 && listsText === this.listsText) return path;
    await writeFile(`${path}.partial`, this.files.merged(this.changes, listsText));
    await rename(`${path}.partial`, path);
    return path;
  }
}

/** What the manifest of a folder held when a render opened it. */
export interface SiteFound {
  lists: Record<string, ListSummary>;
  /** Its files under the prefix asked for. */
  files: string[];
}

/**
 * What the writing thread is asked: open the folder (and tell what its
 * manifest holds under a prefix), write files, end (with the manifest's
 * lists, or null to leave the manifest as it is).
 */
export type WriteRequest =
  | { open: string; prefix: string }
  | { write: Array<[path: string, content: string | Uint8Array]> }
  | { close: Record<string, ListSummary> | null };
/** Its answers: what the manifest held (open), nothing (write), and the figures of the render (close). */
export type WriteAnswer = SiteFound | undefined | WriteFigures;

export interface WriteFigures {
  manifest: string;
  written: number;
  skipped: number;
}

const WRITE_WORKER = fileURLToPath(new URL('./site-writer-worker.js', import.meta.url));
/** Files held here before they go to the writing thread in one message, and the bytes that send them sooner. */
const HAND_OVER_FILES = 256;
const HAND_OVER_BYTES = 4 * 1024 * 1024;
/**
 * Requests the writing thread may have waiting when the render waits for
 * it (settle): at most 16 batches of 4 MB. Room for a few lets the pages run
 * ahead while the thread catches up: an incremental render of 100,000
 * messages took 3.3 s with 16 where it took 4.0–4.8 s with 4.
 */
const ROOM = 16;

/**
 * The site's files as a render hands them over: written by a SiteWriter on
 * a thread of its own when one is asked for and the compiled worker exists,
 * else on this one. Creating a few hundred thousand files is a third of a
 * whole render's time, all of it in the kernel (docs/performance.md); the
 * writes keep the order of the calls either way, so the files and the
 * manifest are the same.
 */
export class SiteOutput {
  private held: Array<[string, string | Uint8Array]> = [];
  private heldBytes = 0;
  /** The lists rendered now. */
  private readonly chosen: Record<string, ListSummary> = {};

  private constructor(
    private readonly link: WorkerLink<WriteRequest, WriteAnswer> | undefined,
    private readonly local: SiteWriter | undefined,
    /** What the manifest held: on a writing thread, it comes while the render starts. */
    private readonly known: Promise<SiteFound>,
  ) {}

  /**
   * Opens the folder; `prefix` names the files found() tells of. On a
   * writing thread the manifest is read while the render goes on, and a
   * folder that cannot be is told by the next settle().
   */
  static async open(outDir: string, thread: boolean, prefix: string): Promise<SiteOutput> {
    const link = thread ? WorkerLink.start<WriteRequest, WriteAnswer>(WRITE_WORKER) : undefined;
    if (!link) {
      const local = await SiteWriter.open(outDir);
      return new SiteOutput(undefined, local, Promise.resolve(local.found(prefix)));
    }
    const known = link.request({ open: outDir, prefix }) as Promise<SiteFound>;
    known.catch(() => undefined); // the link fails with it, and says so at the next call
    return new SiteOutput(link, undefined, known);
  }

  /** Every list of the site: those the manifest holds, and those rendered now. */
  async lists(): Promise<Record<string, ListSummary>> {
    return { ...(await this.known).lists, ...this.chosen };
  }

  /** The files under the prefix given to open() that the manifest held. */
  async found(): Promise<string[]> {
    return (await this.known).files;
  }

  setList(summary: ListSummary): void {
    this.chosen[summary.slug] = summary;
  }

  /** Writes `content` at `path` unless the same bytes are there (SiteWriter.write), now or on the writing thread. */
  write(path: string, content: string | Uint8Array): void {
    if (!this.link) return this.local!.write(path, content);
    // A view into a larger buffer (Node's pool) would take the whole buffer across: it goes as a copy of its bytes.
    const own = typeof content === 'string' || content.byteLength === content.buffer.byteLength;
    this.held.push([path, own ? content : new Uint8Array(content)]);
    this.heldBytes += content.length;
    if (this.held.length >= HAND_OVER_FILES || this.heldBytes >= HAND_OVER_BYTES) this.handOver();
  }

  /** Hands over what is held and waits until the writing thread has few requests left (a failed write is thrown here). */
  async settle(): Promise<void> {
    if (!this.link) return;
    this.handOver();
    await this.link.settle(ROOM);
  }

  /** Writes what is left and the manifest; the thread ends. */
  async close(): Promise<WriteFigures> {
    const lists = await this.lists();
    if (!this.link) {
      for (const summary of Object.values(lists)) this.local!.setList(summary);
      const manifest = await this.local!.close();
      return { manifest, written: this.local!.written, skipped: this.local!.skipped };
    }
    try {
      this.handOver();
      return (await this.link.request({ close: lists })) as WriteFigures;
    } finally {
      await this.link.close();
    }
  }

  /**
   * After a stop or a failure: the files handed over are written, the
   * manifest is not, so the next render compares against the previous one
   * and writes them again. The figures are those of the files written (none
   * known when the writing thread failed). Never throws: the failure that
   * brought the render here is the one to tell.
   */
  async abandon(): Promise<WriteFigures> {
    if (!this.link) return { manifest: '', written: this.local!.written, skipped: this.local!.skipped };
    try {
      this.handOver();
      return (await this.link.request({ close: null })) as WriteFigures;
    } catch {
      return { manifest: '', written: 0, skipped: 0 };
    } finally {
      await this.link.close();
    }
  }

  private handOver(): void {
    if (this.held.length === 0) return;
    this.link!.post({ write: this.held });
    this.held = [];
    this.heldBytes = 0;
  }
}

const MANIFEST_HEAD = '{\n "format": 1,\n "files": {';
const FILES_END = '\n },\n';
/** One file's line, `  "path": "sha-256"`, without the comma between lines. */
const HASH_LENGTH = 64;
const LINE_TAIL = 4 + HASH_LENGTH + 1; // '": "', the hash, '"'

/** The manifest's text: what `JSON.stringify(manifest, null, 1)` gives, and a newline. */
function manifestText(files: ReadonlyArray<[string, string]>, lists: Record<string, ListSummary>): string {
  const sorted = [...files].sort(([a], [b]) => compareText(a, b));
  return filesText(sorted.map(([path, hash]) => fileLine(path, hash)).join(',\n'), listsPart(lists));
}

function filesText(lines: string, listsText: string): string {
  return lines ? `${MANIFEST_HEAD}\n${lines}${FILES_END}${listsText}` : `${MANIFEST_HEAD}},\n${listsText}`;
}

function fileLine(path: string, hash: string): string {
  return `  ${JSON.stringify(path)}: "${hash}"`;
}

/** The manifest's end from its `"lists"` key on. */
function listsPart(lists: Record<string, ListSummary>): string {
  return `${JSON.stringify({ lists }, null, 1).slice(2)}\n`;
}

/**
 * The manifest's files, looked up in its text rather than parsed: a site of
 * a few hundred thousand files has a manifest of tens of megabytes, and an
 * update of a month changes a few thousand lines of it. Read only when the
 * text is in the form manifestText() gives, its paths in order and none
 * escaped; the new manifest is the old text with the changed lines replaced
 * and the new ones put in their place.
 */
class ManifestFiles {
  private constructor(
    private readonly text: string,
    /** Where each file's line starts, and ends (before its comma): lines in path order. */
    private readonly starts: Int32Array,
    private readonly ends: Int32Array,
  ) {}

  private lookups = 0;
  private byPath: Map<string, number> | undefined;

  static read(
    text: string,
  ): { files: ManifestFiles; lists: Record<string, ListSummary>; listsText: string } | undefined {
    if (!text.startsWith(MANIFEST_HEAD)) return undefined;
    let at = MANIFEST_HEAD.length;
    const starts: number[] = [];
    const ends: number[] = [];
    let listsAt: number;
    if (text.startsWith('},\n', at)) listsAt = at + 3;
    else {
      const filesEnd = text.indexOf(FILES_END, at);
      if (filesEnd < 0 || text.lastIndexOf('\\', filesEnd) >= at) return undefined;
      let previous = '';
      while (at < filesEnd) {
        const start = at + 1; // after the newline
        const next = text.indexOf('\n', start);
        const end = next === filesEnd ? filesEnd : next - 1; // before the comma
        if (next === filesEnd ? false : text.charCodeAt(next - 1) !== 44) return undefined;
        if (
          !text.startsWith('  "', start) ||
          !text.startsWith('": "', end - LINE_TAIL) ||
          text.charCodeAt(end - 1) !== 34
        )
          return undefined;
        const path = text.slice(start + 3, end - LINE_TAIL);
        if (path.includes('"') || (starts.length > 0 && compareText(previous, path) >= 0)) return undefined;
        previous = path;
        starts.push(start);
        ends.push(end);
        at = next;
      }
      listsAt = filesEnd + FILES_END.length;
    }
    const listsText = text.slice(listsAt);
    let lists: Record<string, ListSummary>;
    try {
      lists = (JSON.parse(`{${listsText}`) as { lists?: Record<string, ListSummary> }).lists ?? {};
    } catch (error) {
      if (error instanceof SyntaxError) return undefined;
      throw error;
    }
    if (listsPart(lists) !== listsText) return undefined;
    return { files: new ManifestFiles(text, Int32Array.from(starts), Int32Array.from(ends)), lists, listsText };
  }

  private path(index: number): string {
    return this.text.slice(this.starts[index]! + 3, this.ends[index]! - LINE_TAIL);
  }

  /** The first line whose path is not before `path` (the count of lines when none). */
  private lowerBound(path: string): number {
    let low = 0;
    let high = this.starts.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareText(this.path(middle), path) < 0) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  /** The paths that start with `prefix`, in order. */
  pathsUnder(prefix: string): string[] {
    const found: string[] = [];
    for (let at = this.lowerBound(prefix); at < this.starts.length; at++) {
      const path = this.path(at);
      if (!path.startsWith(prefix)) break;
      found.push(path);
    }
    return found;
  }

  get(path: string): string | undefined {
    // A render that looks up much of the site (a whole render over it) indexes every path once instead.
    if (!this.byPath && ++this.lookups > this.starts.length / 8)
      this.byPath = new Map(Array.from(this.starts, (_, index) => [this.path(index), index]));
    const index = this.byPath ? (this.byPath.get(path) ?? -1) : this.lowerBound(path);
    if (index < 0 || index === this.starts.length || this.path(index) !== path) return undefined;
    return this.text.slice(this.ends[index]! - HASH_LENGTH - 1, this.ends[index]! - 1);
  }

  /** The manifest with these paths' hashes changed or added; the lines between them are copied as they are. */
  merged(changes: ReadonlyMap<string, string>, listsText: string): string {
    const pieces: string[] = [];
    let from = 0;
    const copy = (to: number) => {
      if (to > from) pieces.push(this.text.slice(this.starts[from], this.ends[to - 1]));
    };
    for (const [path, hash] of [...changes].sort(([a], [b]) => compareText(a, b))) {
      const at = this.lowerBound(path);
      copy(at);
      pieces.push(fileLine(path, hash));
      from = at < this.starts.length && this.path(at) === path ? at + 1 : at;
    }
    copy(this.starts.length);
    return filesText(pieces.join(',\n'), listsText);
  }
}

/** Writes a file that must not exist yet; false when one does (left by a render stopped before its manifest). */
function writeNew(target: string, content: string | Uint8Array): boolean {
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
