import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../../src/core/errors.js';
import { readPageFile, type PageOfItems } from '../../../../src/core/github/read-page-file.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-pages-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

let count = 0;
function file(text: string): string {
  const path = join(dir, `pages-${++count}.json`);
  writeFileSync(path, text);
  return path;
}

async function pages(path: string, itemsPerPage?: number): Promise<PageOfItems[]> {
  const out: PageOfItems[] = [];
  for await (const page of readPageFile(path, { itemsPerPage })) out.push(page);
  return out;
}

async function refusal(path: string): Promise<InputError> {
  try {
    await pages(path);
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error('expected an InputError');
}

describe('readPageFile', () => {
  it('reads one JSON array as one page', async () => {
    const read = await pages(file('[{"id": 1}, {"id": 2}]\n'));
    expect(read.map((p) => p.items)).toEqual([[{ id: 1 }, { id: 2 }]]);
    expect(read[0]!.page).toBe(1);
  });

  it('reads arrays written one after another (gh api --paginate) as one page each', async () => {
    const read = await pages(
      file('[{"id": 1}][{"id": 2},{"id": 3}]\n[\n  {"id": 4, "title": "a ] in [ a \\" string {"}\n]'),
    );
    expect(read.map((p) => p.items)).toEqual([
      [{ id: 1 }],
      [{ id: 2 }, { id: 3 }],
      [{ id: 4, title: 'a ] in [ a " string {' }],
    ]);
    expect(read.map((p) => p.page)).toEqual([1, 2, 3]);
    expect(read[2]!.line).toBe(2);
  });

  it('reads an array of pages (gh api --paginate --slurp) as its pages', async () => {
    const read = await pages(file('[[{"id": 1}], [{"id": 2}]]'));
    expect(read.map((p) => p.items)).toEqual([[{ id: 1 }], [{ id: 2 }]]);
  });

  it('reads JSON lines of objects in pages of at most itemsPerPage', async () => {
    const lines = Array.from({ length: 5 }, (_, i) => JSON.stringify({ id: i + 1 })).join('\n');
    const read = await pages(file(`${lines}\n`), 2);
    expect(read.map((p) => p.items.map((item) => (item as { id: number }).id))).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('reads a file larger than one read of the stream, with multi-byte characters across reads', async () => {
    const items = Array.from({ length: 3000 }, (_, i) => ({ id: i + 1, title: `héllo wörld ✓ ${'x'.repeat(i % 50)}` }));
    const read = await pages(file(`${JSON.stringify(items.slice(0, 1500))}${JSON.stringify(items.slice(1500))}`));
    expect(read).toHaveLength(2);
    expect(read.flatMap((p) => p.items)).toEqual(items);
  });

  it('refuses a broken file naming the file, the line and the column', async () => {
    const path = file('[{"id": 1}]\n[{"id": 2,, "x": 1}]\n');
    const error = await refusal(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/line 2, column 1[01]\b/);
    expect(error.hint).toMatch(/gh api --paginate/);
  });

  it('refuses a file cut short inside a value, naming where that value began', async () => {
    const path = file('[{"id": 1}]\n[{"id": 2}, {"id"');
    const error = await refusal(path);
    expect(error.message).toContain(path);
    expect(error.message).toMatch(/ends inside .* line 2, column 1\b/);
  });

  it('refuses text that is not JSON between pages', async () => {
    const error = await refusal(file('[{"id": 1}]\nnext page:\n[{"id": 2}]'));
    expect(error.message).toMatch(/line 2, column 1\b/);
  });

  it('refuses a file that does not exist or is empty', async () => {
    expect((await refusal(join(dir, 'missing.json'))).message).toContain('missing.json');
    expect((await refusal(file('  \n'))).message).toMatch(/empty/);
  });
});
