import { describe, expect, it } from 'vitest';
import { ExitCode, ListminerError } from '../../../src/core/errors.js';
import { explainWriteFailure } from '../../../src/core/explain-write-failure.js';

const EXPORT = { name: 'export', leaves: 'and left no partial file' } as const;
const explainExportFailure = (error: unknown, outDir: string) => explainWriteFailure(error, outDir, EXPORT);

const fsError = (code: string) => Object.assign(new Error(`${code}: something, write`), { code });

describe('explainWriteFailure', () => {
  it.each([
    ['ENOSPC', ExitCode.failed, /disk holding \/out is full/],
    ['EDQUOT', ExitCode.failed, /disk holding \/out is full/],
    ['EACCES', ExitCode.failed, /may not write into \/out/],
    ['EROFS', ExitCode.failed, /read-only/],
    ['ENOTDIR', ExitCode.usage, /--out \/out is not a folder/],
    ['EISDIR', ExitCode.usage, /a folder stands where a file goes/],
  ])('%s becomes one sentence with exit %i', (code, exitCode, words) => {
    const explained = explainExportFailure(fsError(code), '/out');
    expect(explained).toBeInstanceOf(ListminerError);
    expect((explained as ListminerError).exitCode).toBe(exitCode);
    expect((explained as ListminerError).message).toMatch(words);
  });

  it('finds the code in the message of an error from the Parquet worker, which loses its code', () => {
    expect(
      (explainExportFailure(new Error('ENOSPC: no space left on device, write'), '/out') as ListminerError).exitCode,
    ).toBe(ExitCode.failed);
  });

  // DuckDB (the Parquet writer) gives the system's words, as strerror() prints them, and no code.
  it.each([
    [
      'IO Error: Could not write file "/out/x.parquet.partial": No space left on device',
      ExitCode.failed,
      /disk holding \/out is full; export stopped/,
    ],
    [
      'IO Error: Could not write file "/out/x.parquet.partial": Disk quota exceeded',
      ExitCode.failed,
      /disk holding \/out is full/,
    ],
    [
      'IO Error: Cannot open file "/out/x.parquet.partial": Permission denied',
      ExitCode.failed,
      /may not write into \/out: permission denied/,
    ],
    [
      'IO Error: Cannot open file "/out/x.parquet.partial": Read-only file system',
      ExitCode.failed,
      /the file system is read-only/,
    ],
    [
      'IO Error: Cannot open file "/out/x.parquet.partial": Is a directory',
      ExitCode.usage,
      /a folder stands where a file goes/,
    ],
  ])('DuckDB\'s "%s" becomes the same sentence, exit %i', (duckdb, exitCode, words) => {
    const explained = explainExportFailure(
      new Error(`DuckDB could not write /out/x.parquet.partial: ${duckdb}`),
      '/out',
    );
    expect(explained).toBeInstanceOf(ListminerError);
    expect((explained as ListminerError).exitCode).toBe(exitCode);
    expect((explained as ListminerError).message).toMatch(words);
  });

  it('names the command that wrote, and what a full disk left of its work', () => {
    const render = { name: 'render', leaves: 'and kept the pages it wrote' } as const;
    const explained = explainWriteFailure(fsError('ENOSPC'), '/site', render) as ListminerError;
    expect(explained.message).toBe('The disk holding /site is full; render stopped and kept the pages it wrote.');
    expect(explained.hint).toMatch(/and render again\.$/);
    expect((explainWriteFailure(fsError('EISDIR'), '/site', render) as ListminerError).message).toMatch(
      /^render cannot write its file in \/site: a folder stands where a file goes/,
    );
  });

  it('passes any other error through: that is a bug to report', () => {
    const bug = new TypeError('x is undefined');
    expect(explainExportFailure(bug, '/out')).toBe(bug);
    // A database's refusal is no file system's, though it says "permission denied" too.
    const refused = new Error('permission denied for table email_messages');
    expect(explainExportFailure(refused, '/out')).toBe(refused);
    const duckdb = new Error('DuckDB could not write /out/x.parquet.partial: Out of Memory Error: failed to allocate');
    expect(explainExportFailure(duckdb, '/out')).toBe(duckdb);
  });
});
