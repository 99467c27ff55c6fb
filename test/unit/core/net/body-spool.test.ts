import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { BodySpool } from '../../../../src/core/net/body-spool.js';

async function readAll(spool: BodySpool): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of spool.read()) chunks.push(chunk);
  return Buffer.concat(chunks);
}

describe('BodySpool', () => {
  it('hands on a body larger than its memory whole and in order, the rest read back from its file', async () => {
    const source = new PassThrough();
    const spool = new BodySpool(source, 1000);
    const parts = Array.from({ length: 50 }, (_, i) => Buffer.alloc(97, i));
    for (const part of parts) source.write(part);
    source.end();
    expect((await readAll(spool)).equals(Buffer.concat(parts))).toBe(true);
  });

  it('takes the body off its source before anyone reads it', async () => {
    const source = new PassThrough({ highWaterMark: 16 });
    const spool = new BodySpool(source, 64);
    for (let i = 0; i < 20; i++) expect(source.write(Buffer.alloc(32, i))).toBe(true);
    source.end();
    expect((await readAll(spool)).length).toBe(640);
  });

  it('gives the bytes that came, then the error that cut the body', async () => {
    const source = new PassThrough();
    const spool = new BodySpool(source, 10);
    const chunks: Buffer[] = [];
    source.write(Buffer.from('0123456789abcdef'));
    setImmediate(() => source.destroy(new Error('connection reset')));
    await expect(
      (async () => {
        for await (const chunk of spool.read()) chunks.push(chunk);
      })(),
    ).rejects.toThrow('connection reset');
    expect(Buffer.concat(chunks).toString()).toBe('0123456789abcdef');
  });

  it('does not take a body closed without its end for a whole one', async () => {
    const source = new PassThrough();
    const spool = new BodySpool(source);
    source.write('part');
    setImmediate(() => source.destroy());
    await expect(readAll(spool)).rejects.toThrow(/closed before its end/);
  });
  it('hands the reader a failure to write its file (a full disk) after the bytes it kept, rather than ending the process', async () => {
    const tmpdir = process.env.TMPDIR;
    process.env.TMPDIR = '/nonexistent/listminer-spool';
    try {
      const source = new PassThrough();
      const spool = new BodySpool(source, 8);
      source.write(Buffer.from('12345678'));
      source.write(Buffer.from('more than memory holds'));
      const chunks: Buffer[] = [];
      await expect(
        (async () => {
          for await (const chunk of spool.read()) chunks.push(chunk);
        })(),
      ).rejects.toThrow(/ENOENT/);
      expect(Buffer.concat(chunks).toString()).toBe('12345678');
      expect(source.destroyed).toBe(true);
    } finally {
      if (tmpdir === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = tmpdir;
    }
  });
});
