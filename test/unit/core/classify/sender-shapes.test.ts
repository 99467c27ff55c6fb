import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { splitMboxBuffer } from '../../../../src/core/archive/mbox-reader.js';
import type { Envelope } from '../../../../src/core/classify/envelope.js';
import { parseEnvelope, parseEnvelopeWithMailparser } from '../../../../src/core/classify/parse-envelope.js';
import { normalizeAddress, readSender } from '../../../../src/core/classify/header-values.js';

/** Mail in the shapes archive software writes it (test/fixtures/senders), one envelope per message. */
function messages(file: string): Buffer[] {
  return splitMboxBuffer(readFileSync(new URL(`../../../fixtures/senders/${file}`, import.meta.url)));
}

const READERS: Array<[string, (raw: Buffer) => Promise<Envelope>]> = [
  ['the reader parse-envelope picks', parseEnvelope],
  ['mailparser', parseEnvelopeWithMailparser],
];

const LONG_ID = 'DB6PR0802MB2600E1F3A2B7C9D8E1F0A1B2C3D4E5F6@DB6PR0802MB2600.eurprd08.prod.outlook.com';

describe.each(READERS)('envelope senders and ids through %s', (_reader, parse) => {
  it('reads a HyperKitty In-Reply-To that Python folded into encoded words as the parent id', async () => {
    const [parent, plain, multipart] = await Promise.all(messages('hyperkitty-long-ids.mbox').map(parse));
    expect(parent!.messageId).toBe(LONG_ID);
    expect(plain!.inReplyTo).toBe(LONG_ID);
    expect(multipart!.inReplyTo).toBe(LONG_ID);
  });

  it('reads encoded words in Message-ID and References too (older Python encoded every long field)', async () => {
    const raw = Buffer.from(
      [
        'Message-ID: =?utf-8?q?=3CAM6PR08MB3000AAAABBBBCCCCDDDDEEEEFFFF0000=40AM6PR08MB3?=',
        ' =?utf-8?q?000=2Eeurprd08=2Eprod=2Eoutlook=2Ecom=3E?=',
        'From: Jana Novak <jana.novak@arm.example>',
        'Subject: Re: long ids',
        'References: <short@x.example> =?utf-8?q?=3CDB6PR0802MB2600E1F3A2B7C9D8E1F0A1B2C3?=',
        ' =?utf-8?q?D4E5F6=40DB6PR0802MB2600=2Eeurprd08=2Eprod=2Eoutlook=2Ecom=3E?=',
        '',
        'body',
        '',
      ].join('\n'),
    );
    const e = await parse(raw);
    expect(e.messageId).toBe('AM6PR08MB3000AAAABBBBCCCCDDDDEEEEFFFF0000@AM6PR08MB3000.eurprd08.prod.outlook.com');
    expect(e.references).toEqual(['short@x.example', LONG_ID]);
  });

  it('recovers the address and name of Mailman 2.0 `From: Name addr@host`', async () => {
    const [jane, tom] = await Promise.all(messages('mailman-2.0.txt').map(parse));
    expect([jane!.fromName, jane!.fromAddress]).toEqual(['Jane Doe', 'jane@example.org']);
    expect([tom!.fromName, tom!.fromAddress]).toEqual(["Tom O'Brien", 'tom.obrien@mail.example.com']);
  });

  it('recovers the address of pipermail `user at host (Name)` and a bare `user at host`', async () => {
    const senders = (await Promise.all(messages('pipermail-obfuscated.txt').map(parse))).map((e) => [
      e.fromName,
      e.fromAddress,
    ]);
    expect(senders).toEqual([
      ['Bastien Teinturier', 'bastien@acinq.example'],
      ['Jorge Timón', 'jtimon@jtimon.example'],
      [null, 'pm+lists@acinq.example'],
    ]);
  });

  it('gives no name when pipermail only repeats the hidden address as the name', async () => {
    const [first] = await Promise.all(messages('pipermail-list-sender.txt').map(parse));
    expect([first!.fromName, first!.fromAddress]).toEqual([null, 'dev@lists.example.org']);
  });

  it('writes a punycode domain as ASCII, in lower case, whichever reader reads the message', async () => {
    const [simple] = await Promise.all(messages('punycode-sender.mbox').map(parse));
    const multipart = (await Promise.all(messages('hyperkitty-long-ids.mbox').map(parse)))[2]!;
    expect(simple!.fromAddress).toBe('juergen@xn--bcher-kva.example');
    expect(multipart.fromAddress).toBe('juergen@xn--bcher-kva.example');
    expect([simple!.fromName, multipart.fromName]).toEqual(['Jürgen Weiß', 'Jürgen Weiß']);
  });
});

describe('one normal form for an address', () => {
  it('lower-cases the address and writes a Unicode domain in punycode', () => {
    expect(normalizeAddress('Juergen@Bücher.Example')).toBe('juergen@xn--bcher-kva.example');
    expect(normalizeAddress('juergen@XN--BCHER-KVA.example')).toBe('juergen@xn--bcher-kva.example');
    expect(normalizeAddress('jane@[192.0.2.1]')).toBe('jane@[192.0.2.1]');
    expect(normalizeAddress('undisclosed-recipients')).toBe('undisclosed-recipients');
  });

  it('reads `Name addr@host` but not a sentence that merely ends in an address', () => {
    expect(readSender('Jane Q. Doe jane@example.org')).toEqual({ name: 'Jane Q. Doe', address: 'jane@example.org' });
    expect(readSender('jane@example.org')).toEqual({ name: null, address: 'jane@example.org' });
    expect(readSender('Jane Doe')).toEqual({ name: 'Jane Doe', address: null });
    expect(readSender('meeting at noon')).toEqual({ name: 'meeting at noon', address: null });
    expect(readSender('jane at localhost')).toEqual({ name: 'jane at localhost', address: null });
  });
});
