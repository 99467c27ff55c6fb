import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { identifyMessage, syntheticKey, type MessageIdentity } from '../../../../src/core/archive/message-key.js';
import { readHeaderBlock, firstField } from '../../../../src/core/archive/raw-headers.js';
import { normalizeMessageId } from '../../../../src/core/archive/message-key.js';
import { corpusMailFiles, corpusMessages } from '../../../helpers/corpus-mail.js';
import { corpusMissing } from '../../../helpers/corpus.js';

const keyOf = (text: string) => {
  const identity = identifyMessage(Buffer.from(text, 'latin1'));
  return identity.messageId ?? syntheticKey(identity.contentHash);
};

/**
 * The identity every listminer before this change computed, kept verbatim:
 * stored rows carry its hashes, so ordinary mail must keep getting them.
 */
function identityBefore(raw: Buffer): Pick<MessageIdentity, 'messageId' | 'contentHash'> {
  const fields = ['message-id', 'from', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references'];
  const block = readHeaderBlock(raw);
  const hash = createHash('sha256');
  for (const name of fields) {
    for (const value of block.fields.get(name) ?? []) hash.update(`${name}:${value.replace(/\s+/g, ' ')}\n`);
  }
  hash.update('\n');
  hash.update(
    raw
      .subarray(block.bodyOffset)
      .toString('latin1')
      .replace(/\r\n?/g, '\n')
      .replace(/^>+(From )/gm, '$1')
      .replace(/[ \t]+$/gm, '')
      .replace(/\n+$/, ''),
  );
  return { messageId: normalizeMessageId(firstField(block, 'message-id')), contentHash: hash.digest('hex') };
}

/** The Message-ID and content hash, which the stored keys derive from. */
function hashedIdentity(raw: Buffer): Pick<MessageIdentity, 'messageId' | 'contentHash'> {
  const { messageId, contentHash } = identifyMessage(raw);
  return { messageId, contentHash };
}

describe('message identity', () => {
  it('gives different header-less messages (text lines, no blank line) different keys', () => {
    const texts = ['hello there\nhow are you', 'second note\nwith two lines', 'third', 'fourth\n', 'a fifth one\nat: colon inside'];
    const keys = texts.map(keyOf);
    expect(new Set(keys).size).toBe(texts.length);
  });

  it('gives messages that hold only one transport header different keys', () => {
    const keys = ['Received: from relay1.example.org\n', 'Received: from relay2.example.org\n', 'Delivered-To: a@example.org\n', 'hello\n'].map(keyOf);
    expect(new Set(keys).size).toBe(4);
  });

  it('gives header-less fragments (text lines, a blank line, then the same signature) different keys', () => {
    const keys = ['first stray text\n\n-- \nb4 0.14\n', 'second stray text\n\n-- \nb4 0.14\n'].map(keyOf);
    expect(new Set(keys).size).toBe(2);
  });

  it('gives a header-less message the same key on every read, whatever its line endings', () => {
    expect(keyOf('hello there\r\nhow are you\r\n')).toBe(keyOf('hello there\nhow are you\n'));
  });

  it('keeps one key for the same mail carried with other transport headers, Message-ID or not', () => {
    const mail = (transport: string, id: string) => `${transport}From: a@example.org\nSubject: s\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n${id}\nbody\n`;
    for (const id of ['Message-ID: <m@x>\n', '']) {
      const a = identifyMessage(Buffer.from(mail('Received: from relay1\nDelivered-To: x@y\n', id)));
      const b = identifyMessage(Buffer.from(mail('Received: from relay2\nArchived-At: <http://a>\nX-Archives-Hash: 1\n', id)));
      expect(a).toEqual(b);
    }
  });

  it('keeps the key of mail whose body follows its header without a blank line when it has a Message-ID', () => {
    const raw = Buffer.from('From: a@example.org\nMessage-ID: <m@x>\nSubject: s\nsome text\n');
    expect(hashedIdentity(raw)).toEqual(identityBefore(raw));
  });

  it('hashes bodies with trailing blanks, CRLF, blank-only lines and >From quoting as before', () => {
    const bodies = [
      'text  \nmore\t\n-- \nsig \t ',
      'a \r\n b\t\r\n\r\n  \r\n',
      '\n\n\n',
      ' ',
      '\t\n \n',
      '>From x \n>>From y\t\nFrom z',
      'x\r',
      'x\r\r\n \n\n',
      'line\u00a0 \n\u00a0',
      'no change at all\nsecond line',
      '',
    ];
    for (const body of bodies) {
      const raw = Buffer.from(`Message-ID: <m@x>\nFrom: a@example.org\n\n${body}`, 'latin1');
      expect(hashedIdentity(raw), JSON.stringify(body)).toEqual(identityBefore(raw));
    }
  });

  it.skipIf(Boolean(corpusMissing))('keys every corpus message as before, except the ones whose old key ignored their text', () => {
    const changed: Record<string, string> = {};
    let messages = 0;
    for (const file of corpusMailFiles()) {
      corpusMessages(file).forEach((raw, i) => {
        messages++;
        const before = identityBefore(raw);
        if (JSON.stringify(hashedIdentity(raw)) === JSON.stringify(before)) return;
        // Each changed key must have been a collision: the empty identity, or From/To/Subject alone.
        const fields = readHeaderBlock(raw).fields;
        const identityFields = ['message-id', 'from', 'to', 'cc', 'date', 'subject', 'in-reply-to', 'references'].some((name) => fields.has(name));
        changed[`${file} #${i}`] =
          before.contentHash === EMPTY_IDENTITY
            ? 'no identity field, no body'
            : identityFields
              ? 'no Message-ID, text with no blank line'
              : 'no identity field, text above a blank line';
      });
    }
    expect(messages).toBeGreaterThan(500);
    expect(changed).toEqual(COLLIDED_BEFORE);
  });
});

/** The hash every message with no identity field and no body got: all of them were one message. */
const EMPTY_IDENTITY = createHash('sha256').update('\n').digest('hex');

/** Corpus messages whose old key did not read their text, checked by hand. */
const COLLIDED_BEFORE: Record<string, string> = {
  'cpython/Lib/test/test_email/data/msg_18.txt #0': 'no identity field, no body', // only Content-Type and X- fields
  'cpython/Lib/test/test_email/data/msg_19.txt #0': 'no identity field, text above a blank line', // a digest's preamble with no header
  'cpython/Lib/test/test_email/data/msg_35.txt #0': 'no Message-ID, text with no blank line', // "counter to RFC 2822, there's no separating newline here"
  'patchwork/patchwork/tests/data/patches/0001-add-line.patch #0': 'no identity field, no body', // a bare diff
  'patchwork/patchwork/tests/data/patches/0002-utf-8.patch #0': 'no identity field, no body',
  'public-inbox/t/git.fast-import-data #0': 'no identity field, text above a blank line', // git fast-import data, not mail
  'public-inbox/t/solve/bare.patch #0': 'no identity field, no body',
};
