import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../../../src/core/classify/parse-envelope.js';
import { decodeHeaderBytes } from '../../../../src/core/classify/header-values.js';

const fixture = (name: string) => readFileSync(new URL(`../../../fixtures/mime/${name}`, import.meta.url));

describe('a top-level message/rfc822 body (a forward sent as the whole message)', () => {
  it("reads as the inner message's From, Date and Subject over its text", async () => {
    const e = await parseEnvelope(fixture('forward-as-rfc822.eml'));
    expect(e.subject).toBe('Fwd: build broken on trunk');
    expect(e.fromAddress).toBe('jane@example.org');
    expect(e.body).toBe(
      [
        '> From: Bob Builder <bob@example.org>',
        '> Date: Mon, 1 Jan 2024 23:15:00 +0100',
        '> Subject: build broken on trunk',
        '',
        'The nightly build fails in the jünit step.',
        '',
        'Bob',
        '',
      ].join('\n'),
    );
  });

  it('reads as its text when the labelled body holds no header fields', async () => {
    const raw = Buffer.from('From: a@example.org\nSubject: s\nContent-Type: message/rfc822\n\njust text, no headers\n');
    expect((await parseEnvelope(raw)).body).toBe('just text, no headers\n');
  });

  it('reads the same through mailparser', async () => {
    const raw = fixture('forward-as-rfc822.eml');
    expect((await parseEnvelopeWithMailparser(raw)).body).toBe((await parseEnvelope(raw)).body);
  });
});

describe('a raw ISO-2022-JP subject (escape sequences, no encoded words)', () => {
  it('is decoded by the fast reader', async () => {
    const e = await parseEnvelope(fixture('iso-2022-jp-raw-subject.eml'));
    expect(e.subject).toBe('テスト: 日本語');
    expect(e.body).toBe('こんにちは\n');
  });

  it('is decoded alike through mailparser, single part and multipart', async () => {
    expect((await parseEnvelopeWithMailparser(fixture('iso-2022-jp-raw-subject.eml'))).subject).toBe('テスト: 日本語');
    expect((await parseEnvelope(fixture('iso-2022-jp-raw-subject-multipart.eml'))).subject).toBe('テスト: 日本語');
  });

  it('leaves a bare ESC that opens no ISO-2022-JP sequence alone, and ends an unterminated run at the end', () => {
    expect(decodeHeaderBytes('a \x1bb c')).toBe('a \x1bb c');
    expect(decodeHeaderBytes('\x1b$B%F%9%H')).toBe('テスト');
  });
});

describe('a part labelled `Content-Type: text` without a subtype', () => {
  it('is the body, decoded in the charset its Content-Type names', async () => {
    const raw = Buffer.concat([
      Buffer.from('From: a@example.org\r\nSubject: s\r\nContent-Type: multipart/mixed; boundary=XX\r\n\r\n--XX\r\n'),
      Buffer.from('Content-Type: text; charset="koi8-r"\r\nContent-Transfer-Encoding: 8bit\r\n\r\n'),
      Buffer.from([0xf0, 0xd2, 0xc9, 0xd7, 0xc5, 0xd4]), // "Привет" in KOI8-R
      Buffer.from('\r\n--XX--\r\n'),
    ]);
    expect((await parseEnvelope(raw)).body.trim()).toBe('Привет');
    expect((await parseEnvelopeWithMailparser(raw)).body.trim()).toBe('Привет');
  });
});
