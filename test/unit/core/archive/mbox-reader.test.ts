import { readFileSync } from 'node:fs';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { MboxSplitter, readMbox, readMboxEntries } from '../../../../src/core/archive/mbox-reader.js';

const fixture = (name: string) => fileURLToPath(new URL(`../../../fixtures/mbox/${name}`, import.meta.url));

async function collect(input: Parameters<typeof readMbox>[0]): Promise<string[]> {
  const out: string[] = [];
  for await (const raw of readMbox(input)) out.push(raw.toString('latin1'));
  return out;
}

/** Splits bytes fed in pieces of the given size, to exercise every chunk boundary. */
function splitInPieces(bytes: Buffer, size: number): string[] {
  const splitter = new MboxSplitter();
  const out: string[] = [];
  for (let i = 0; i < bytes.length; i += size)
    for (const entry of splitter.push(bytes.subarray(i, i + size))) out.push(entry.raw.toString('latin1'));
  for (const entry of splitter.end()) out.push(entry.raw.toString('latin1'));
  return out;
}

describe('readMbox', () => {
  it('reads CRLF mbox files without keeping the separator blank line', async () => {
    const messages = await collect(fixture('crlf.mbox'));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^From: Alice/);
    expect(messages[0]!.endsWith('Body one.\r\n')).toBe(true);
    expect(messages[1]!.endsWith('Body two.\r\n')).toBe(true);
  });

  it('reads a file that starts straight with headers as its first message', async () => {
    const messages = await collect(fixture('no-first-separator.mbox'));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toMatch(/^From: Carol/);
    expect(messages[1]).toMatch(/^From: Dave/);
  });

  it('keeps the last line of a file without a trailing newline', async () => {
    const messages = await collect(fixture('no-trailing-newline.mbox'));
    expect(messages).toHaveLength(2);
    expect(messages[1]!.endsWith('the very last line')).toBe(true);
  });

  it('does not split at body lines that merely start with "From "', async () => {
    const messages = await collect(fixture('from-in-body.mbox'));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('\nFrom my point of view this is fine.\n');
    expect(messages[0]).toContain('\nFrom what I saw at 10:30 it works.\nFrom here on.\n');
  });

  it('takes one level of quoting off >From lines (mboxrd) and nothing else', async () => {
    const [first] = await collect(fixture('mboxrd-quoting.mbox'));
    expect(first).toContain(
      '\nFrom the start\n>From twice quoted\n> From not a quote of From\n>>From three\nx>From mid-line\n',
    );
  });

  it('reads gzip by its magic bytes, from a path and from a stream', async () => {
    const plain = await collect(fixture('from-in-body.mbox'));
    expect(await collect(fixture('from-in-body.mbox.gz'))).toEqual(plain);
    const gz = readFileSync(fixture('from-in-body.mbox.gz'));
    expect(await collect(Readable.from([gz.subarray(0, 1), gz.subarray(1, 40), gz.subarray(40)]))).toEqual(plain);
  });

  it('takes off every gzip layer of a stream gzipped twice (a .txt.gz a server gzips again)', async () => {
    const plain = readFileSync(fixture('from-in-body.mbox'));
    const once = await collect(Readable.from([gzipSync(plain)]));
    expect(await collect(Readable.from([gzipSync(gzipSync(plain))]))).toEqual(once);
    expect(once).toHaveLength(2);
  });

  it('fails on a truncated gzip rather than returning part of it silently', async () => {
    const gz = gzipSync(readFileSync(fixture('from-in-body.mbox')));
    await expect(collect(Readable.from([gz.subarray(0, gz.length - 12)]))).rejects.toThrow();
  });

  it('gives the same messages whatever the chunk boundaries', () => {
    for (const name of [
      'crlf.mbox',
      'no-first-separator.mbox',
      'no-trailing-newline.mbox',
      'from-in-body.mbox',
      'mboxrd-quoting.mbox',
    ]) {
      const bytes = readFileSync(fixture(name));
      const whole = splitInPieces(bytes, bytes.length);
      for (const size of [1, 2, 3, 5, 7, 13, 64])
        expect(splitInPieces(bytes, size), `${name} in pieces of ${size}`).toEqual(whole);
    }
  });

  it('reports each From_ line and the offset where its message starts', async () => {
    const entries = [];
    for await (const entry of readMboxEntries(fixture('from-in-body.mbox'))) entries.push(entry);
    const bytes = readFileSync(fixture('from-in-body.mbox'));
    expect(entries.map((e) => e.fromLine)).toEqual([
      'From grace@example.org Sun Jan  7 08:00:00 2024',
      'From heidi@example.org Mon Jan  8 08:00:00 2024',
    ]);
    expect(entries.map((e) => bytes.toString('latin1', e.offset, e.offset + 10))).toEqual(['From grace', 'From heidi']);
  });

  it('reads past a UTF-8 byte-order mark at the start of the file, with offsets into the file', async () => {
    const plain = readFileSync(fixture('from-in-body.mbox'));
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), plain]);
    const entries = [];
    for await (const entry of readMboxEntries(Readable.from([bytes]))) entries.push(entry);
    expect(entries.map((e) => e.fromLine)).toEqual([
      'From grace@example.org Sun Jan  7 08:00:00 2024',
      'From heidi@example.org Mon Jan  8 08:00:00 2024',
    ]);
    expect(entries.map((e) => bytes.toString('latin1', e.offset, e.offset + 10))).toEqual(['From grace', 'From heidi']);
    expect(splitInPieces(bytes, 1)).toEqual(splitInPieces(plain, 1));
    // Only at the start of the file: the same bytes further on are a message's text.
    const inside = Buffer.concat([plain, Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('more text\n')]);
    expect(splitInPieces(inside, 7).at(-1)).toMatch(/\u00ef\u00bb\u00bfmore text\n$/);
  });

  it('does not split at an unquoted git patch attached inside a MIME part', async () => {
    const mbox = Buffer.from(
      [
        'From a@example.org Mon Jan  1 00:00:00 2024',
        'From: a@example.org',
        'Content-Type: multipart/mixed; boundary="XX"',
        '',
        '--XX',
        'Content-Type: text/x-diff',
        '',
        'From 0123abcd Mon Sep 17 00:00:00 2001',
        'From: b@example.org',
        '',
        '--XX--',
        '',
        'From c@example.org Tue Jan  2 00:00:00 2024',
        'From: c@example.org',
        '',
        'second',
        '',
      ].join('\n'),
    );
    const messages = await collect(Readable.from([mbox]));
    expect(messages).toHaveLength(2);
    expect(messages[0]).toContain('\nFrom 0123abcd Mon Sep 17 00:00:00 2001\n');
    // However the bytes arrive, even with the header split across chunks.
    for (const size of [1, 7, 50]) expect(splitInPieces(mbox, size), `pieces of ${size}`).toHaveLength(2);
  });

  it('splits at the next ordinary From_ line after a multipart that opens its boundary and never closes it', async () => {
    const mbox = Buffer.from(
      [
        'From a@example.org Mon Jan  1 00:00:00 2024',
        'Content-Type: multipart/mixed; boundary="open"',
        '',
        '--open',
        'Content-Type: text/plain',
        '',
        'the part never ends',
        '',
        'From b@example.org Mon Jan  1 00:00:01 2024',
        'Subject: b',
        '',
        'b',
        '',
        'From c@example.org Mon Jan  1 00:00:02 2024',
        'Subject: c',
        '',
        'c',
        '',
      ].join('\n'),
    );
    const messages = await collect(Readable.from([mbox]));
    expect(messages).toHaveLength(3);
    for (const size of [1, 7, 50]) expect(splitInPieces(mbox, size), `pieces of ${size}`).toHaveLength(3);
  });

  it('splits a message that declares a multipart boundary it never uses', async () => {
    const mbox = Buffer.from(
      'From a@x.org Mon Jan  1 00:00:00 2024\nContent-Type: multipart/mixed; boundary=nope\n\nbody\n\nFrom b@x.org Mon Jan  1 00:00:01 2024\nSubject: b\n\nb\n',
    );
    expect(await collect(Readable.from([mbox]))).toHaveLength(2);
  });

  it('stops when its signal is aborted', async () => {
    const controller = new AbortController();
    controller.abort();
    const read = async () => {
      for await (const _ of readMbox(fixture('crlf.mbox'), { signal: controller.signal })) void _;
    };
    await expect(read()).rejects.toThrow(/abort/i);
  });
});

describe('an mbox that stops inside a line', () => {
  const two =
    'From a@b Mon Jan  1 00:00:00 2024\nSubject: one\n\nbody one\n\nFrom a@b Mon Jan  1 00:00:00 2024\nSubject: two\n\nbody two\n';
  const entries = async (text: string | Buffer) => {
    const out = [];
    for await (const entry of readMboxEntries(Readable.from([Buffer.from(text)]))) out.push(entry);
    return out;
  };

  it('marks its last message unterminated, plain or gzip, and no other', async () => {
    for (const input of [two.slice(0, -4), gzipSync(two.slice(0, -4))]) {
      const found = await entries(input);
      expect(found.map((e) => e.unterminated)).toEqual([undefined, true]);
    }
  });

  it('marks nothing when the text ends a line, with or without a blank line after it, in LF or CRLF', async () => {
    for (const text of [two, `${two}\n`, two.replace(/\n/g, '\r\n')])
      expect((await entries(text)).map((e) => e.unterminated)).toEqual([undefined, undefined]);
  });
});
