import { describe, expect, it } from 'vitest';
import { identifyMessage, syntheticKey } from '../../../../src/core/archive/message-key.js';
import { fixtureMailFiles, fixtureMessages } from '../../../helpers/mail-files.js';
import { collidedBefore, hashedIdentity, identityBefore } from '../../../helpers/message-identity.js';

const keyOf = (text: string) => {
  const identity = identifyMessage(Buffer.from(text, 'latin1'));
  return identity.messageId ?? syntheticKey(identity.contentHash);
};

describe('message identity', () => {
  it('gives different header-less messages (text lines, no blank line) different keys', () => {
    const texts = [
      'hello there\nhow are you',
      'second note\nwith two lines',
      'third',
      'fourth\n',
      'a fifth one\nat: colon inside',
    ];
    const keys = texts.map(keyOf);
    expect(new Set(keys).size).toBe(texts.length);
  });

  it('gives messages that hold only one transport header different keys', () => {
    const keys = [
      'Received: from relay1.example.org\n',
      'Received: from relay2.example.org\n',
      'Delivered-To: a@example.org\n',
      'hello\n',
    ].map(keyOf);
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
    const mail = (transport: string, id: string) =>
      `${transport}From: a@example.org\nSubject: s\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n${id}\nbody\n`;
    for (const id of ['Message-ID: <m@x>\n', '']) {
      const a = identifyMessage(Buffer.from(mail('Received: from relay1\nDelivered-To: x@y\n', id)));
      const b = identifyMessage(
        Buffer.from(mail('Received: from relay2\nArchived-At: <http://a>\nX-Archives-Hash: 1\n', id)),
      );
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

  it('keys every fixture message as before, except the ones whose old key ignored their text', () => {
    expect(collidedBefore(fixtureMailFiles(), fixtureMessages)).toEqual({});
  });
});
