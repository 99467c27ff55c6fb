import { gzipSync } from 'node:zlib';
import type { SeededRandom } from './seeded-random.js';

/**
 * Malformed mail of every shape an archive has been seen to hand over, made
 * by a seeded generator. Every message carries a marker of its own
 * (`hostile-<kind>-<n>`) in content that tells it apart (a subject, a body),
 * so no two are the same message and each can be found again in the store.
 */
export interface HostileMessage {
  kind: HostileKind;
  marker: string;
  raw: Buffer;
}

export const HOSTILE_KINDS = [
  'no-blank-line',
  'headers-only',
  'no-headers',
  'transport-header-only',
  'binary-garbage',
  'nul-bytes',
  'overlong-lines',
  'many-header-lines',
  'broken-mime-boundary',
  'nested-multipart',
  'bad-charset',
  'bad-transfer-encoding',
  'bad-encoded-words',
  'invalid-date',
  'giant-references',
  'missing-message-id',
  'duplicate-message-id',
  'from-lines-in-body',
  'mixed-line-endings',
  'raw-8bit-headers',
  'big-attachment',
  'reply-prefix-storm',
  'utf7-lone-surrogate',
  'giant-address-and-series',
  'zoneless-date',
  'top-level-rfc822',
  'raw-iso-2022-jp-subject',
] as const;
export type HostileKind = (typeof HOSTILE_KINDS)[number];

export interface HostileOptions {
  /** Ids in the References header of the first two giant-references messages; the others have a few hundred. */
  giantReferences: number;
}

const INVALID_DATES = [
  'Mon, 32 Foo 20245 25:61:61 +9999',
  'yesterday',
  '',
  '0',
  'Thu, 01 Jan 1970 00:00:00 +0000',
  'Fri, 31 Dec 1969 23:59:59 -0100',
  'Sat, 1 Jan 99999 00:00:00 +0000',
  'Tue, 1 Jan 2999 00:00:00 +0000',
  '2024-13-45T99:99:99Z',
  'Mon, 1 Jan 2024 10:00:00 +2500',
  '\u0000\u0001',
  'Mon,, 1 Jan 2024',
];

const CHARSETS = [
  'x-unknown-42',
  'utf-7',
  'iso-2022-jp',
  'utf-16',
  'windows-1256',
  '"',
  'utf-8; charset=latin1',
  'ks_c_5601-1987',
  'us-ascii',
];

/** One message of the given kind; `n` makes it unique, `random` shapes it. */
export function hostileMessage(
  kind: HostileKind,
  n: number,
  random: SeededRandom,
  options: HostileOptions,
): HostileMessage {
  const marker = `hostile-${kind}-${n}`;
  const id = `<${marker}@hostile.example.org>`;
  const basic = [
    `From: Sender ${n % 97} <sender${n % 97}@example.org>`,
    `To: dev@hostile.example.org`,
    `Subject: ${marker}`,
    `Date: Mon, 1 Jan 2024 10:00:00 +0000`,
    `Message-ID: ${id}`,
  ];
  const text = (lines: string[]) => Buffer.from(lines.join('\n'), 'utf8');
  const bytes = (...parts: Array<string | Buffer>) =>
    Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'utf8') : p)));
  let raw: Buffer;
  switch (kind) {
    case 'no-blank-line':
      raw = text([...basic, `X-Note: ${random.int(0, 1e9)}`]);
      break;
    case 'headers-only':
      raw = text([...basic, '', '']);
      break;
    case 'no-headers':
      raw = text([`just some text, ${marker}`, 'and no header at all', `${random.int(0, 1e9)}`]);
      break;
    case 'transport-header-only':
      raw = text([`Received: from relay${n}.example.org by mx.example.org; ${marker}`]);
      break;
    case 'binary-garbage':
      raw = random.chance(0.5)
        ? bytes(`${basic.join('\n')}\n\n`, random.bytes(random.int(1, 4096)))
        : bytes(`${marker}\n\n`, random.bytes(random.int(1, 4096)));
      break;
    case 'nul-bytes':
      raw = bytes(
        `From: Nul\u0000 <nul${n}@example.org>\nSubject: ${marker}\u0000\u0000tail\nMessage-ID: <\u0000${marker}@x>\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\nbody\u0000with\u0000nuls ${marker}\n`,
      );
      break;
    case 'overlong-lines':
      raw = bytes(
        `${basic.join('\n')}\nX-Long: ${'h'.repeat(random.int(1_000, 10_000))}\n\n${'x'.repeat(random.chance(0.02) ? 1_000_000 : random.int(5_000, 30_000))} ${marker}\n`,
      );
      break;
    case 'many-header-lines':
      raw = text([
        ...basic,
        ...Array.from(
          { length: n % 4 === 0 ? 2000 : random.int(100, 400) },
          (_, i) => `X-Header-${i}: value ${i} ${random.int(0, 1e6)}`,
        ),
        '',
        `body of ${marker}`,
      ]);
      break;
    case 'broken-mime-boundary':
      raw = text([
        ...basic,
        'MIME-Version: 1.0',
        random.pick([
          'Content-Type: multipart/mixed; boundary="never-there"',
          'Content-Type: multipart/mixed',
          'Content-Type: multipart/alternative; boundary=""',
          'Content-Type: multipart/mixed; boundary="b"',
        ]),
        '',
        '--b',
        'Content-Type: text/plain',
        '',
        `part without an end ${marker}`,
        random.pick(['--b', '--b-', '--', '--b--garbage']),
      ]);
      break;
    case 'nested-multipart': {
      const depth = random.int(20, 120);
      const lines = [...basic, 'MIME-Version: 1.0', `Content-Type: multipart/mixed; boundary="d0"`, ''];
      for (let d = 1; d <= depth; d++) lines.push(`--d${d - 1}`, `Content-Type: multipart/mixed; boundary="d${d}"`, '');
      lines.push(`--d${depth}`, 'Content-Type: text/plain', '', `deep ${marker}`);
      for (let d = depth; d >= 0; d--) lines.push(`--d${d}--`);
      raw = text(lines);
      break;
    }
    case 'bad-charset':
      raw = bytes(
        `${basic.join('\n')}\nMIME-Version: 1.0\nContent-Type: text/plain; charset=${random.pick(CHARSETS)}\n\n`,
        random.bytes(random.int(10, 300)),
        `\n${marker}\n`,
      );
      break;
    case 'bad-transfer-encoding':
      raw = text([
        ...basic,
        'MIME-Version: 1.0',
        'Content-Type: text/plain; charset=utf-8',
        `Content-Transfer-Encoding: ${random.pick(['base64', 'quoted-printable', 'x-uuencode', 'bogus', '8bit; 7bit'])}`,
        '',
        random.pick(['!!!not base64!!!', '=ZZ=\n=', '=E2=82', 'SGVsbG8=====', '====', 'abc=\n=\n=']),
        marker,
      ]);
      break;
    case 'bad-encoded-words':
      raw = text([
        `From: =?bogus?Q?S=E9nder?= <enc${n}@example.org>`,
        `Subject: ${random.pick(['=?utf-8?B?!!!?=', '=?utf-8?Q?=ZZ?=', '=?x-unknown?B?SGVsbG8=?=', '=?utf-8?X?abc?=', '=?=?=?'])} ${'=?utf-8?Q?a?= '.repeat(random.int(1, 1000))}${marker}`,
        `Message-ID: ${id}`,
        'Date: Mon, 1 Jan 2024 10:00:00 +0000',
        '',
        'body',
      ]);
      break;
    case 'invalid-date':
      raw = text([
        basic[0]!,
        basic[1]!,
        basic[2]!,
        `Date: ${random.pick(INVALID_DATES)}`,
        basic[4]!,
        '',
        `dated badly: ${marker}`,
      ]);
      break;
    case 'giant-references': {
      const length = n < 2 * HOSTILE_KINDS.length ? options.giantReferences : random.int(50, 500);
      const refs = Array.from({ length }, (_, i) => `<ref-${n}-${i}@hostile.example.org>`);
      raw = text([
        ...basic,
        `References: ${refs.join('\n ')}`,
        `In-Reply-To: ${refs.at(-1) ?? ''}`,
        '',
        `reply to a long thread: ${marker}`,
      ]);
      break;
    }
    case 'missing-message-id':
      raw = text([basic[0]!, basic[1]!, basic[2]!, basic[3]!, '', `no id: ${marker}`]);
      break;
    case 'duplicate-message-id':
      // Several different messages under one id: each must be kept under a variant key.
      raw = text([
        basic[0]!,
        basic[1]!,
        basic[2]!,
        basic[3]!,
        `Message-ID: <shared-${n % 7}@hostile.example.org>`,
        '',
        `same id, other content: ${marker}`,
      ]);
      break;
    case 'from-lines-in-body':
      raw = text([
        ...basic,
        '',
        `quoted below ${marker}`,
        'From the desk of the release manager:',
        '>From an mboxrd archive',
        'From me to you',
        '',
        'From nobody in particular',
        '>>From twice quoted',
      ]);
      break;
    case 'mixed-line-endings':
      raw = bytes(`${basic.join('\r\n')}\r\nX-Mixed: a\rb\n\r\nline one\r\nline two\rline three\n${marker}\r\n`);
      break;
    case 'raw-8bit-headers':
      raw = bytes(
        `From: `,
        Buffer.from('Jos\xe9 M\xfcller', 'latin1'),
        ` <raw${n}@example.org>\nSubject: `,
        Buffer.from('Gr\xfc\xdfe \xff\xfe ', 'latin1'),
        `${marker}\nMessage-ID: ${id}\nDate: Mon, 1 Jan 2024 10:00:00 +0000\n\n`,
        Buffer.from('K\xf6rper\n', 'latin1'),
      );
      break;
    case 'big-attachment': {
      const attachment = random.chance(0.5)
        ? random.bytes(random.chance(0.02) ? 1_500_000 : random.int(5_000, 40_000))
        : gzipSync(random.bytes(30_000));
      raw = text([
        ...basic,
        'MIME-Version: 1.0',
        'Content-Type: multipart/mixed; boundary="att"',
        '',
        '--att',
        'Content-Type: text/plain',
        '',
        `see attached ${marker}`,
        '--att',
        'Content-Type: application/octet-stream; name="blob.bin"',
        'Content-Transfer-Encoding: base64',
        '',
        attachment.toString('base64').replace(/.{76}/g, '$&\n'),
        '--att--',
      ]);
      break;
    }
    case 'reply-prefix-storm':
      raw = text([
        basic[0]!,
        basic[1]!,
        `Subject: ${random.pick(['RE : ', 'Re: ', 'AW: ', 'Re : [dev] AW [2] : ']).repeat(40)}${marker}`,
        basic[3]!,
        basic[4]!,
        '',
        `prefixed ${marker}`,
      ]);
      break;
    case 'utf7-lone-surrogate':
      // `+2D0-` is half a surrogate pair in UTF-7; PostgreSQL refuses such text.
      raw = text([
        `From: =?utf-7?Q?+2D0-?= <utf7${n}@example.org>`,
        `Subject: =?utf-7?Q?${random.pick(['+2D0-', '+3AA-', '+2D3YAA-', '+2D0AQQ-'])}?= ${marker}`,
        basic[3]!,
        basic[4]!,
        '',
        `lone half ${marker}`,
      ]);
      break;
    case 'giant-address-and-series': {
      const local = 'a'.repeat(random.int(2_900, 3_100));
      const title = `${'series-'.repeat(430)}${marker}`;
      raw = text([
        `From: Long <${local}${n}@example.org>`,
        basic[1]!,
        `Subject: [PATCH v${random.int(1, 9)} ${random.int(0, 3)}/3] ${title}`,
        basic[3]!,
        basic[4]!,
        '',
        `a patch series of ${marker}`,
        '',
        'diff --git a/x b/x',
        '--- a/x',
        '+++ b/x',
        '@@ -1 +1 @@',
        '-a',
        '+b',
      ]);
      break;
    }
    case 'zoneless-date':
      raw = text([
        basic[0]!,
        basic[1]!,
        basic[2]!,
        `Date: ${random.pick(['Mon, 1 Jan 2024 10:00:00', '1 Jan 2024 10:00', 'Mon Jan  1 10:00:00 2024', '2024-01-01 10:00:00'])}`,
        basic[4]!,
        '',
        `no zone: ${marker}`,
      ]);
      break;
    case 'top-level-rfc822': {
      const encoding = random.pick(['', '7bit', 'base64']);
      const inner = random.chance(0.2)
        ? [`no inner headers ${marker}`]
        : [
            `From: Inner <inner${n}@example.org>`,
            `Subject: inner ${marker}`,
            'Date: Sun, 31 Dec 2023 10:00:00 +0100',
            random.pick(['Content-Type: message/rfc822', 'Content-Type: text/plain']),
            '',
            `the forwarded text ${marker}`,
          ];
      raw = text([
        ...basic,
        'MIME-Version: 1.0',
        'Content-Type: message/rfc822',
        ...(encoding ? [`Content-Transfer-Encoding: ${encoding}`] : []),
        '',
        ...(encoding === 'base64' ? [Buffer.from(inner.join('\n')).toString('base64'), marker] : inner),
      ]);
      break;
    }
    case 'raw-iso-2022-jp-subject':
      raw = bytes(
        basic[0]!,
        '\n',
        basic[1]!,
        '\nSubject: ',
        random.pick(['\x1b$B%F%9%H\x1b(B ', '\x1b$BF|K\\8l', '\x1b$B\x1b(B', '\x1b$ \x1b(I12\x1b(B ', '\x1b$B%']),
        ` ${marker}\n`,
        `${basic[3]!}\n${basic[4]!}\nContent-Type: text/plain; charset=iso-2022-jp\n\n\x1b$B$3$s$K$A$O\x1b(B ${marker}\n`,
      );
      break;
  }
  return { kind, marker, raw };
}

/** `count` hostile messages, kinds in turn so each kind is well represented. */
export function hostileMessages(count: number, random: SeededRandom, options: HostileOptions): HostileMessage[] {
  return Array.from({ length: count }, (_, n) =>
    hostileMessage(HOSTILE_KINDS[n % HOSTILE_KINDS.length]!, n, random, options),
  );
}

/** An mboxrd file of the messages: a From_ line before each, `From ` lines of the body quoted. */
export function toMbox(messages: readonly HostileMessage[]): Buffer {
  const parts: Buffer[] = [];
  for (const message of messages) {
    parts.push(Buffer.from('From hostile@example.org Mon Jan  1 10:00:00 2024\n'));
    parts.push(Buffer.from(message.raw.toString('latin1').replace(/^(>*From )/gm, '>$1'), 'latin1'));
    parts.push(Buffer.from('\n\n'));
  }
  return Buffer.concat(parts);
}
