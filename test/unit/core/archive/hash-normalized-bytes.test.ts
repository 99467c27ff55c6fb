import { describe, expect, it } from 'vitest';
import { identifyMessage } from '../../../../src/core/archive/message-key.js';
import { fixtureMailFiles, fixtureMessages } from '../../../helpers/mail-files.js';
import { bytesDigest, expectSameDigests, stringDigest } from '../../../helpers/message-identity.js';

describe('the content hash read from bytes', () => {
  it('hashes what the string reading hashes: line ends, trailing blanks, >From quoting, 8-bit bytes', () => {
    const bodies = [
      '',
      '\n\n\n',
      'a',
      'a\n',
      'line  \t\r\nnext\rlast\r',
      '\n\nafter blank lines\n\n  \n\t\n',
      '>From here\n>>From there\n> From not\n>Fromage\nFrom x\n>From',
      'caf\u00e9 \u00ff\u0080\r\n\u00e9  \n',
      '-- \nsig  \n',
      '\r\r\n\n\r',
      '>>>>\n>>From \n',
    ];
    for (const body of bodies) {
      const raw = Buffer.from(body, 'latin1');
      expect(bytesDigest(raw), JSON.stringify(body)).toEqual(stringDigest(raw));
    }
  });

  it('hashes every fixture message as the string reading does', () => {
    expect(expectSameDigests(fixtureMailFiles(), fixtureMessages)).toBeGreaterThan(100);
  });

  it('identifies a message larger than a string may be long without making it a string', () => {
    // 600 MB: past V8's string limit (0x1fffffe8 characters), which the hash once reached.
    const raw = Buffer.alloc(600 * 1024 * 1024, 'x');
    const header = Buffer.from('Message-ID: <huge@example.org>\nSubject: huge\n\n');
    header.copy(raw);
    for (let at = 1000; at < raw.length; at += 77) raw[at] = 10;
    const identity = identifyMessage(raw);
    expect(identity.messageId).toBe('huge@example.org');
    expect(identity.contentHash).toMatch(/^[0-9a-f]{64}$/);
  });
});
