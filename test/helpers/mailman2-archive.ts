import { existsSync, mkdirSync, readdirSync, statSync, writeFileSync, appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

/**
 * A pipermail archive folder written the way Mailman 2.1 writes one, so
 * tests read the bytes a real list serves. Each shape names the Mailman 2.1
 * function it comes from (Mailman/Archiver/HyperArch.py, pipermail.py,
 * Archiver.py, Handlers/Scrubber.py, cron/nightly_gzip). Times are those of
 * a server whose local time is UTC (Mailman uses the server's local time for
 * From_ dates and month names).
 */

/** One post as it reaches the list. */
export interface MailmanPost {
  name: string;
  address: string;
  subject: string;
  messageId: string;
  /** The Date header the sender wrote. */
  date: Date;
  /** When Mailman archived it; the Date header when not given. */
  arrivedAt?: Date;
  inReplyTo?: string;
  body: string;
  /** A non-text attachment the Scrubber takes out and links. */
  attachment?: { filename: string; type: string; size: number };
}

/**
 * Which Mailman 2.1 writes the text archive (the two versions of as_text and
 * of the Scrubber footer in Mailman 2.1's history; the labels name a release
 * of each era):
 * - `2.1.5`: Article.as_text returns headers + '\n\n' + body, nothing after the
 *   body, and the Scrubber's footer ends `Url : <url>\n`: the next From_ line
 *   follows it with no blank line (the mail that older archives swallow).
 * - `2.1.9`: as_text adds '\n' after the body (a blank line before the next
 *   From_ line) and the footer reads `URL: <url>`, as in the real snapshots.
 */
export type MailmanEra = '2.1.5' | '2.1.9';

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];
const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
/** Mailman/Defaults.py: ARCHIVER_CLOBBER_DATE_POLICY = 2, ARCHIVER_ALLOWABLE_SANE_DATE_SKEW = days(15). */
export const SANE_DATE_SKEW_MS = 15 * 86_400_000;

/** Python's time.ctime(): `Mon May  3 13:15:30 2004` (day padded with a space). */
export function ctime(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${DAYS[at.getUTCDay()]} ${MONTHS[at.getUTCMonth()]!.slice(0, 3)} ${String(at.getUTCDate()).padStart(2, ' ')} ${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} ${at.getUTCFullYear()}`;
}

/** HyperArchive.dateToVolName for ARCHIVE_PERIOD 'month': time.strftime("%Y-%B"). */
export function volumeName(at: Date): string {
  return `${at.getUTCFullYear()}-${MONTHS[at.getUTCMonth()]}`;
}

/** `2004-05` → `2004-May`, the volume Mailman files that month's mail under. */
export function volumeOfMonth(month: string): string {
  return volumeName(new Date(`${month}-01T00:00:00Z`));
}

/** `2004-May` → `2004-05`. */
export function monthOfVolume(volume: string): string {
  return `${volume.slice(0, 4)}-${String(MONTHS.indexOf(volume.slice(5)) + 1).padStart(2, '0')}`;
}

/** Article.__init__ with ARCHIVER_OBSCURES_EMAILADDRS: re.sub('@', ' at ', email). */
const obscure = (text: string) => text.replace(/([-+,.\w]+)@([-+.\w]+)/g, '$1 at $2');

/** HyperArch.sizeof(): ' %d bytes ' under 1000, ' %d KB ' (size // 1000) under 1,000,000, else ' %d MB '. */
export function statedSize(bytes: number): string {
  if (bytes < 1000) return ` ${bytes} bytes `;
  if (bytes < 1_000_000) return ` ${Math.floor(bytes / 1000)} KB `;
  return ` ${Math.floor(bytes / 1_000_000)} MB `;
}

export class Mailman2Archive {
  /** Next per-message page number: pipermail.T.sequence runs over the whole archive. */
  private sequence = 0;
  private readonly pages = new Map<string, number[]>();

  constructor(
    readonly dir: string,
    readonly listName: string,
    readonly era: MailmanEra = '2.1.5',
    readonly baseUrl = `http://lists.example.org/pipermail/${listName}`,
  ) {
    mkdirSync(dir, { recursive: true });
  }

  /**
   * Archives one post as Mailman does: Archiver.ArchiveMail clobbers a Date
   * more than 15 days from the arrival time with the arrival time;
   * pipermail.T.add_article files it under the volume of its (maybe
   * clobbered) date; HyperArchive.write_article appends as_text to
   * `<volume>.txt` and writes the page `<volume>/NNNNNN.html`.
   */
  post(post: MailmanPost): string {
    const arrived = post.arrivedAt ?? post.date;
    const date = Math.abs(arrived.getTime() - post.date.getTime()) > SANE_DATE_SKEW_MS ? arrived : post.date;
    const volume = volumeName(date);
    appendFileSync(join(this.dir, `${volume}.txt`), this.asText(post, date));
    const sequence = this.sequence++;
    const folder = join(this.dir, volume);
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, `${String(sequence).padStart(6, '0')}.html`), this.asHtml(post, sequence));
    const pages = this.pages.get(volume) ?? [];
    pages.push(sequence);
    this.pages.set(volume, pages);
    writeFileSync(join(folder, 'thread.html'), `<HTML><BODY>\n<b>Messages:</b> ${pages.length}<p>\n</BODY></HTML>\n`);
    return volume;
  }

  /**
   * HyperArch.Article.as_text: the From_ line `From %(email)s  %(fromdate)s`
   * (two spaces, fromdate = time.ctime(date)), then From:/Date:/Subject:,
   * In-Reply-To, Message-ID, a blank line and the Scrubber's flattened body.
   * Body lines that start with "From " are written as they are (pipermail
   * escapes nothing).
   */
  asText(post: MailmanPost, date: Date): string {
    const email = obscure(post.address);
    const headers = [
      `From ${email}  ${ctime(date)}`,
      `From: ${email} (${post.name})`,
      `Date: ${date.toUTCString().replace('GMT', '+0000')}`,
      `Subject: ${post.subject}`,
    ];
    if (post.inReplyTo) headers.push(`In-Reply-To: ${post.inReplyTo}`);
    headers.push(`Message-ID: ${post.messageId}`);
    // The 2.1.9 as_text also obscures addresses in the body; 2.1.5 wrote the body as it was.
    const body = this.era === '2.1.9' ? obscure(this.scrubbedBody(post)) : this.scrubbedBody(post);
    return this.era === '2.1.5' ? `${headers.join('\n')}\n\n${body}` : `${headers.join('\n')}\n\n${body}\n`;
  }

  /**
   * Handlers/Scrubber.process: each text part ends with '\n' ("Separation is
   * useful"), parts are joined with '-------------- next part --------------\n',
   * a non-text part becomes the "A non-text attachment was scrubbed..." block
   * whose last line is the attachment's URL, ending in '\n'.
   */
  private scrubbedBody(post: MailmanPost): string {
    const text = post.body.endsWith('\n') ? post.body : `${post.body}\n`;
    if (!post.attachment) return text;
    const { filename, type, size } = post.attachment;
    const day = post.date.toISOString().slice(0, 10).replace(/-/g, '');
    const url = `${this.baseUrl}/attachments/${day}/${post.messageId.replace(/\W/g, '').slice(0, 8)}/${filename}`;
    const scrubbed =
      this.era === '2.1.5'
        ? `A non-text attachment was scrubbed...\nName: ${filename}\nType: ${type}\nSize: ${size} bytes\nDesc: not available\nUrl : ${url}\n`
        : `A non-text attachment was scrubbed...\nName: ${filename}\nType: ${type}\nSize: ${size} bytes\nDesc: not available\nURL: <${url}>\n`;
    return `${text}-------------- next part --------------\n${scrubbed}`;
  }

  /** article_template: the page holds the Message-ID in its mailto link, as pipermail pages do. */
  private asHtml(post: MailmanPost, sequence: number): string {
    const id = encodeURIComponent(post.messageId);
    return `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">\n<HTML>\n <HEAD>\n   <TITLE> [${this.listName}] ${post.subject}\n   </TITLE>\n   <LINK REL="made" HREF="mailto:${this.listName}%40lists.example.org?Subject=${encodeURIComponent(post.subject)}&In-Reply-To=${id}">\n </HEAD>\n <BODY>\n<!--beginarticle-->\n<PRE>${post.body.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</PRE>\n<!--endarticle-->\n<!-- ${sequence} -->\n</BODY></HTML>\n`;
  }

  /** cron/nightly_gzip: `<volume>.txt.gz` from each `<volume>.txt`, which stays. */
  nightlyGzip(): void {
    for (const name of readdirSync(this.dir)) {
      if (name.endsWith('.txt'))
        writeFileSync(join(this.dir, `${name}.gz`), gzipSync(readFileSync(join(this.dir, name))));
    }
  }

  /**
   * HyperArchive.html_TOC / html_TOC_entry with the archtoc.html and
   * archtocentry.html templates: one row per volume, newest first, linking
   * `.txt.gz` when it exists, else `.txt`, with the file's size as sizeof()
   * states it.
   */
  writeIndex(): void {
    const volumes = [...this.volumes()].sort((a, b) => volumeTime(b) - volumeTime(a));
    const rows = volumes.map((volume) => {
      const gz = join(this.dir, `${volume}.txt.gz`);
      const txt = join(this.dir, `${volume}.txt`);
      const [file, url, label] = existsSync(gz)
        ? [gz, `${volume}.txt.gz`, "Gzip'd Text"]
        : [txt, `${volume}.txt`, 'Text'];
      const [year, month] = volume.split('-');
      return `
	    <tr>
            <td>${month} ${year}:</td>
            <td>
              <A href="${volume}/thread.html">[ Thread ]</a>
              <A href="${volume}/subject.html">[ Subject ]</a>
              <A href="${volume}/author.html">[ Author ]</a>
              <A href="${volume}/date.html">[ Date ]</a>
            </td>
            <td><A href="${url}">[ ${label}${statedSize(statSync(file).size)}]</a></td>
            </tr>

`;
    });
    writeFileSync(
      join(this.dir, 'index.html'),
      `<!DOCTYPE HTML PUBLIC "-//W3C//DTD HTML 4.01 Transitional//EN">
<HTML>
  <HEAD>
     <title>The ${this.listName} Archives</title>
     <META NAME="robots" CONTENT="noindex,follow">
     <META http-equiv="Content-Type" content="text/html; charset=us-ascii">
  </HEAD>
  <BODY BGCOLOR="#ffffff">
     <h1>The ${this.listName} Archives </h1>
     <p>
      You can get <a href="http://lists.example.org/mailman/listinfo/${this.listName}">more information about this list</a>.
     </p>
     
     	<table border=3>
          <tr><td>Archive</td>
          <td>View by:</td>
          <td>Downloadable version</td></tr>

     ${rows.join('')}
              </table>

     </BODY>
     </HTML>
`,
    );
  }

  private volumes(): Set<string> {
    return new Set(
      readdirSync(this.dir)
        .filter((name) => /^\d{4}-[A-Za-z]+\.txt(\.gz)?$/.test(name))
        .map((name) => name.replace(/\.txt(\.gz)?$/, '')),
    );
  }
}

function volumeTime(volume: string): number {
  const [year, month] = volume.split('-');
  return Date.UTC(Number(year), MONTHS.indexOf(month!), 1);
}

/** The per-message pages pipermail wrote under a folder: `YYYY-Month/NNNNNN.html`. */
export function countMessagePages(dir: string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const name of readdirSync(dir)) {
    const folder = join(dir, name);
    if (!/^\d{4}-[A-Za-z]+$/.test(name) || !statSync(folder).isDirectory()) continue;
    counts.set(name, readdirSync(folder).filter((file) => /^\d{6}\.html$/.test(file)).length);
  }
  return counts;
}

/** Posts of a small busy list: every third carries a scrubbed attachment, some bodies have lines that start with "From ". */
export function samplePosts(month: string, count: number, tag = month): MailmanPost[] {
  const [year, mon] = month.split('-').map(Number) as [number, number];
  const bodies = [
    'Hi all,\n\nthe build is green again.\n\nCheers\n',
    'From now on please use the bug tracker on Sourceforge:\nhttp://sourceforge.net/tracker/\n',
    'Thanks for the patch.\n\n> From what I understand, the parser is at fault.\n\nFrom what I understand, it is the lexer.\n',
    'Reply from bob@example.org inline:\n\n>From the log it looks fine.\n',
  ];
  return Array.from({ length: count }, (_, i) => ({
    name: `Poster ${i % 5}`,
    address: `poster${i % 5}@example.org`,
    subject: `[dev] topic ${i} of ${tag}`,
    messageId: `<${tag}.${i}@example.org>`,
    date: new Date(Date.UTC(year, mon - 1, 1 + (i % 27), 8 + (i % 12), 15, 30)),
    inReplyTo: i > 0 && i % 2 === 0 ? `<${tag}.${i - 1}@example.org>` : undefined,
    body: bodies[i % bodies.length]!,
    attachment: i % 3 === 0 ? { filename: 'signature.asc', type: 'application/pgp-signature', size: 189 } : undefined,
  }));
}
