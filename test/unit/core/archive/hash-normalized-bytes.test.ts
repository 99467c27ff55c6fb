import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashNormalizedBytes, identifyMessage } from '../../../../src/core/archive/message-key.js';
import { corpusMailFiles, corpusMessages } from '../../../helpers/corpus-mail.js';
import { corpusMissing } from '../../../helpers/corpus.js';

/** The body as the content hash has always read it, as one string. */
function stringDigest(body: Buffer): { digest: string; length: number } {
  const text = body.toString('latin1').replace(/\r\n?/g, '\n').replace(/^>+(From )/gm, '$1').replace(/[ \t]+$/gm, '').replace(/\n+$/, '');
  return { digest: createHash('sha256').update(text).digest('hex'), length: text.length };
}

function bytesDigest(body: Buffer): { digest: string; length: number } {
  const hash = createHash('sha256');
  const length = hashNormalizedBytes(hash, body);
  return { digest: hash.digest('hex'), length };
}

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

  it.skipIf(Boolean(corpusMissing))('hashes every corpus message as the string reading does', () => {
    let messages = 0;
    for (const file of corpusMailFiles()) {
      for (const raw of corpusMessages(file)) {
        messages++;
        expect(bytesDigest(raw), `${file} #${messages}`).toEqual(stringDigest(raw));
      }
    }
    expect(messages).toBeGreaterThan(500);
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
