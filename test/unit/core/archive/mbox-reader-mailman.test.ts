import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { MboxSplitter, splitMboxBuffer, type MboxFlavour } from '../../../../src/core/archive/mbox-reader.js';
import { Mailman2Archive, samplePosts } from '../../../helpers/mailman2-archive.js';

const dir = mkdtempSync(join(tmpdir(), 'listminer-mailman-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function monthText(era: '2.1.5' | '2.1.9', count: number): Buffer {
  const archive = new Mailman2Archive(join(dir, era), 'dev', era);
  for (const post of samplePosts('2004-05', count)) archive.post(post);
  return readFileSync(join(archive.dir, '2004-May.txt'));
}

const subjects = (messages: Buffer[]) => messages.map((raw) => /^Subject: (.*)$/m.exec(raw.toString('latin1'))?.[1]);

describe('the mbox reader on Mailman 2 text archives', () => {
  it('splits at a From_ line that follows a scrubbed-attachment footer with no blank line (Mailman 2.1.5)', () => {
    const text = monthText('2.1.5', 12);
    expect(text.toString()).toMatch(
      /^Url : http:\/\/\S+\nFrom poster\d at example\.org {2}\w{3} May [ \d]\d \d\d:\d\d:\d\d 2004$/m,
    );
    const messages = splitMboxBuffer(text, 'pipermail');
    expect(subjects(messages)).toEqual(Array.from({ length: 12 }, (_, i) => `[dev] topic ${i} of 2004-05`));
    // The footer stays with its message; the next message starts at its own header.
    expect(messages[0]!.toString()).toMatch(/Url : \S+\n$/);
    expect(messages[1]!.toString()).toMatch(/^From: poster1 at example\.org \(Poster 1\)\n/);
  });

  it('reads the 2.1.9 shape (a blank line after each message) the same way', () => {
    expect(splitMboxBuffer(monthText('2.1.9', 12), 'pipermail')).toHaveLength(12);
  });

  it('gives the same messages whatever the chunk boundaries', () => {
    const text = monthText('2.1.5', 9);
    const whole = splitMboxBuffer(text, 'pipermail').map((raw) => raw.toString('latin1'));
    for (const size of [1, 7, 64, 333, 4096]) {
      const splitter = new MboxSplitter('pipermail');
      const out: string[] = [];
      for (let i = 0; i < text.length; i += size)
        for (const entry of splitter.push(text.subarray(i, i + size))) out.push(entry.raw.toString('latin1'));
      for (const entry of splitter.end()) out.push(entry.raw.toString('latin1'));
      expect(out, `chunks of ${size}`).toEqual(whole);
    }
  });

  it('never splits at a body line that merely starts with "From ", blank line before it or not', () => {
    const mbox = Buffer.from(
      [
        'From a at example.org  Mon May  3 13:15:30 2004',
        'From: a at example.org (A)',
        'Subject: one',
        '',
        'From now on please use the tracker.',
        'From what I understand, it works.',
        '',
        'From what I understand, many people have expressed concerns about',
        'From 1a2b3c4d5e6f Mon Sep 17 00:00:00 2001',
        'From: someone',
        'From x Mon May 3 13:15 2004 is a date, not a separator',
        'From a at example.org  Mon May  3 13:15:31 2004',
        'From: a at example.org (A)',
        'Subject: two',
        '',
        'body',
        '',
      ].join('\n'),
    );
    expect(subjects(splitMboxBuffer(mbox, 'pipermail'))).toEqual(['one', 'two']);
  });

  it('reads >From lines as the flavour wrote them', () => {
    const mbox = Buffer.from(
      'From a@example.org Mon May  3 13:15:30 2004\nSubject: q\n\n>From the log\n>>From the quote\n',
    );
    const body = (flavour: MboxFlavour) => splitMboxBuffer(mbox, flavour)[0]!.toString().split('\n\n')[1];
    expect(body('mboxrd')).toBe('From the log\n>From the quote\n');
    expect(body('mboxo')).toBe('>From the log\n>>From the quote\n');
    expect(body('pipermail')).toBe('>From the log\n>>From the quote\n');
  });
});
