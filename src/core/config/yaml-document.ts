import { InputError } from '../errors.js';
import type { Document, LineCounter, Node } from 'yaml';
import { loadOnFirstUse } from '../load-on-first-use.js';

/** One problem in a file, placed at its line so the user can go straight there. */
export interface Problem {
  file: string;
  line?: number;
  path: string;
  message: string;
}

/** What every validator returns: the value when usable, and never prints. */
export interface Validation<T> {
  value?: T;
  errors: Problem[];
  warnings: Problem[];
}

export function formatProblem(problem: Problem): string {
  const where = problem.line ? `${problem.file}:${problem.line}` : problem.file;
  const path = problem.path ? ` (${problem.path})` : '';
  return `${where}${path}: ${problem.message}`;
}

const yamlLibrary = loadOnFirstUse<typeof import('yaml')>('yaml');

/**
 * A parsed YAML file that can say on which line any path starts, so
 * validators report `systems.yaml:42: unknown class "revew"`. Given the
 * file's data as parsed before (the bundled systems.yaml, parsed when the
 * CLI is built), it parses the text only when a problem needs its line.
 */
export class YamlFile {
  readonly errors: Problem[] = [];
  readonly data: unknown;
  private parsed: { doc: Document; lines: LineCounter } | undefined;

  constructor(
    readonly file: string,
    private readonly text: string,
    parsedBefore?: { data: unknown },
  ) {
    if (parsedBefore) {
      this.data = parsedBefore.data;
      return;
    }
    const { doc, lines } = this.document();
    for (const error of doc.errors) {
      const line = error.linePos?.[0]?.line ?? lines.linePos(error.pos[0]).line;
      this.errors.push({ file, line, path: '', message: error.message.split('\n')[0] ?? error.message });
    }
    this.data = this.errors.length ? undefined : this.toData(doc, file);
  }

  private document(): { doc: Document; lines: LineCounter } {
    if (!this.parsed) {
      const { LineCounter, parseDocument } = yamlLibrary();
      const lines = new LineCounter();
      const doc = parseDocument(this.text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
      this.parsed = { doc, lines };
    }
    return this.parsed;
  }

  /** The yaml library refuses a document whose aliases would expand past its limit (an alias bomb): a problem of the file, not a crash. */
  private toData(doc: Document, file: string): unknown {
    try {
      return doc.toJS();
    } catch (error) {
      const message = /alias/i.test((error as Error).message)
        ? 'its aliases (*name) expand to too much data; write the repeated values out instead of nesting aliases'
        : (error as Error).message;
      this.errors.push({ file, line: undefined, path: '', message });
      return undefined;
    }
  }

  problem(path: readonly (string | number)[], message: string): Problem {
    return { file: this.file, line: this.lineOf(path), path: path.join('.'), message };
  }

  lineOf(path: readonly (string | number)[]): number | undefined {
    const { doc, lines } = this.document();
    const { isMap, isSeq } = yamlLibrary();
    for (let depth = path.length; depth >= 0; depth--) {
      const node = doc.getIn(path.slice(0, depth), true) as Node | undefined;
      const range = node && (isMap(node) || isSeq(node) || 'range' in node) ? node.range : undefined;
      if (range) return lines.linePos(keyStart(doc, path.slice(0, depth)) ?? range[0]).line;
    }
    return undefined;
  }
}

/** Offset of a mapping key, so a problem points at `rules:` rather than the value below it. */
function keyStart(doc: Document, path: readonly (string | number)[]): number | undefined {
  if (path.length === 0) return undefined;
  const parent = doc.getIn(path.slice(0, -1), true);
  if (!yamlLibrary().isMap(parent)) return undefined;
  const last = path[path.length - 1];
  const pair = parent.items.find((item) => (item.key as { value?: unknown } | null)?.value === last);
  const key = pair?.key as Node | undefined;
  return key?.range?.[0];
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A YAML list of non-empty strings, such as `[issue_event, review]`. */
export function isNameList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string' && item !== '');
}

/** Problems after the first that the hint names; the others are counted. */
const NAMED_PROBLEMS = 10;

/** Throws the first error as an InputError (exit code 2), the rest named in its hint, so one run shows what to fix. */
export function refuseProblems(errors: readonly Problem[], hint: string): never {
  const [first, ...rest] = errors;
  const more = rest.length ? ` (and ${rest.length} more problem${rest.length > 1 ? 's' : ''})` : '';
  const named = rest.slice(0, NAMED_PROBLEMS).map(formatProblem);
  const unnamed = rest.length - named.length;
  const also = named.length ? ` Also: ${named.join('; ')}${unnamed ? `; and ${unnamed} more` : ''}.` : '';
  throw new InputError(`${first ? formatProblem(first) : 'invalid file'}${more}`, `${hint}${also}`);
}
