import { createReadStream } from 'node:fs';
import { InputError } from '../errors.js';
import { unreadableFile } from '../read-user-file.js';

/** One page of API items as the file holds it. */
export interface PageOfItems {
  /** 1-based, in file order. */
  page: number;
  /** Line of the file where the page begins. */
  line: number;
  items: unknown[];
}

const HINT =
  'Give pages as `gh api --paginate` writes them: a JSON array, arrays one after another, or one JSON object per line.';

/**
 * The pages of a file of GitHub API answers, read as a stream. A file holds
 * one JSON array, several arrays one after another (`gh api --paginate`), an
 * array of arrays (`--slurp`), or one JSON object per line (`--jq '.[]'`);
 * each array is a page, and lines of objects are gathered into pages of
 * `itemsPerPage`. Anything else is an InputError naming the file, line and column.
 */
export async function* readPageFile(
  path: string,
  options: { itemsPerPage?: number } = {},
): AsyncGenerator<PageOfItems> {
  const itemsPerPage = options.itemsPerPage ?? 100;
  let page = 0;
  let lines: { line: number; items: unknown[] } | undefined;
  const flushLines = function* (): Generator<PageOfItems> {
    if (lines) yield { page: ++page, line: lines.line, items: lines.items };
    lines = undefined;
  };
  let values = 0;
  for await (const value of readJsonValues(path)) {
    values++;
    if (Array.isArray(value.json)) {
      yield* flushLines();
      const slurped = value.json.length > 0 && value.json.every((element) => Array.isArray(element));
      const arrays = slurped ? (value.json as unknown[][]) : [value.json];
      for (const items of arrays) yield { page: ++page, line: value.line, items };
    } else {
      lines ??= { line: value.line, items: [] };
      lines.items.push(value.json);
      if (lines.items.length >= itemsPerPage) yield* flushLines();
    }
  }
  yield* flushLines();
  if (values === 0) throw new InputError(`${path} is empty: it holds no GitHub API pages.`, HINT);
}

interface JsonValue {
  json: unknown;
  line: number;
}

/** The top-level JSON arrays and objects of a file, one after another, each parsed as it completes. */
async function* readJsonValues(path: string): AsyncGenerator<JsonValue> {
  let stream: AsyncIterable<string>;
  try {
    stream = createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 });
  } catch (error) {
    throw unreadableFile(path, error, PAGE_FILE_HINT);
  }
  let line = 1;
  let column = 1;
  let depth = 0;
  let inString = false;
  let escaped = false;
  /** The text of the value being read, and where it began. */
  let pieces: string[] = [];
  let start = { line: 1, column: 1 };
  const fail = (why: string, at: { line: number; column: number }) =>
    new InputError(`${path} is not GitHub API JSON: ${why} at line ${at.line}, column ${at.column}.`, HINT);

  try {
    for await (const chunk of stream) {
      let from = 0;
      for (let i = 0; i < chunk.length; i++) {
        const char = chunk[i]!;
        if (depth === 0) {
          if (char === '[' || char === '{') {
            depth = 1;
            start = { line, column };
            from = i;
          } else if (!/\s/.test(char)) {
            throw fail(`unexpected ${JSON.stringify(char)} where a JSON array or object should begin`, {
              line,
              column,
            });
          }
        } else if (inString) {
          if (escaped) escaped = false;
          else if (char === '\\') escaped = true;
          else if (char === '"') inString = false;
        } else if (char === '"') {
          inString = true;
        } else if (char === '[' || char === '{') {
          depth++;
        } else if (char === ']' || char === '}') {
          depth--;
          if (depth === 0) {
            pieces.push(chunk.slice(from, i + 1));
            const text = pieces.join('');
            pieces = [];
            yield { json: parseValue(text, start, fail), line: start.line };
          }
        }
        if (char === '\n') {
          line++;
          column = 1;
        } else {
          column++;
        }
      }
      if (depth > 0) pieces.push(chunk.slice(from));
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw unreadableFile(path, error, PAGE_FILE_HINT);
  }
  if (depth > 0) throw fail('the file ends inside the JSON value that began', start);
}

/** JSON.parse, with its complaint placed in the file: V8 says `at position N` of the value. */
function parseValue(
  text: string,
  start: { line: number; column: number },
  fail: (why: string, at: { line: number; column: number }) => InputError,
): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    const message = (error as Error).message;
    const position = /at position (\d+)/.exec(message)?.[1];
    const why = message.replace(/\s*(in JSON )?at position \d+.*$/s, '').replace(/\s*\(line \d+ column \d+\)$/, '');
    if (position === undefined) throw fail(why, start);
    throw fail(why, offsetIn(text, Number(position), start));
  }
}

/** Line and column in the file of an offset into a value that began at `start`. */
function offsetIn(
  text: string,
  offset: number,
  start: { line: number; column: number },
): { line: number; column: number } {
  let line = start.line;
  let column = start.column;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return { line, column };
}

/** What to give instead of a file of pages that cannot be read. */
export const PAGE_FILE_HINT = 'Give the path of a file of GitHub API pages, as `gh api --paginate` writes them.';
