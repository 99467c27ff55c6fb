import { connect as connectTcp, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { ArchiveError } from '../errors.js';
import { quoteExcerpt } from '../quote-excerpt.js';
import { DEFAULT_MAIL_TIMEOUT_MS } from './mail-timeout.js';

/** A status line of the server: `211 12 1 12 comp.lang.misc`. */
export interface NntpStatus {
  code: number;
  text: string;
}

/** A multi-line response: its status and its lines, dot-stuffing undone, line ends removed. */
export interface NntpResponse extends NntpStatus {
  lines: Buffer[];
}

/** One line of OVER/XOVER: the fields listminer needs of an article before reading it. */
export interface OverviewLine {
  number: number;
  date: string;
  messageId: string;
}

export interface NntpGroup {
  count: number;
  low: number;
  high: number;
}

export interface NntpConnectOptions {
  host: string;
  port: number;
  tls: boolean;
  /** AUTHINFO USER/PASS when given; the password is never part of an error message. */
  credentials?: { user: string; password: string };
  /** No byte from the server for this long fails the connection. Default DEFAULT_MAIL_TIMEOUT_MS. */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
}

/** Codes RFC 3977 (and RFC 2980 for XOVER) answer with a multi-line block. */
const MULTI_LINE = new Set([100, 101, 215, 220, 221, 222, 224, 225, 230, 231]);
const CRLF = Buffer.from('\r\n');

/**
 * A small NNTP reader client (RFC 3977): one connection, commands sent in
 * batches (pipelined, as section 3.5 allows) and their answers read in
 * order. No npm NNTP client is maintained for Node today, and a reader needs
 * only GROUP, OVER, STAT, ARTICLE and AUTHINFO; docs/archive-backends.md
 * says why it is written here.
 */
export class NntpClient {
  private buffered: Buffer = Buffer.alloc(0);
  private waiting: (() => void) | undefined;
  private failure: Error | undefined;
  private ended = false;

  private constructor(
    private readonly socket: Socket,
    readonly where: string,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
      this.wake();
    });
    socket.on('error', (error) => {
      this.failure ??= new ArchiveError(`The news server ${where} failed: ${error.message}.`, 'transient');
      this.wake();
    });
    socket.on('close', () => {
      this.ended = true;
      this.wake();
    });
    socket.on('timeout', () => {
      this.failure ??= new ArchiveError(
        `The news server ${where} stopped answering: no answer for ${Math.round(socket.timeout! / 1000)} s.`,
        'transient',
      );
      socket.destroy();
      this.wake();
    });
  }

  static async connect(options: NntpConnectOptions): Promise<NntpClient> {
    const where = `${options.host}:${options.port}`;
    const socket = options.tls
      ? connectTls({ host: options.host, port: options.port, servername: options.host })
      : connectTcp({ host: options.host, port: options.port });
    socket.setTimeout(options.idleTimeoutMs ?? DEFAULT_MAIL_TIMEOUT_MS);
    const client = new NntpClient(socket, where);
    const abort = () => socket.destroy(new Error('interrupted'));
    options.signal?.addEventListener('abort', abort, { once: true });
    const greeting = await client.readStatus();
    if (greeting.code !== 200 && greeting.code !== 201) {
      client.close();
      throw new ArchiveError(
        `The news server ${where} refused the connection: ${greeting.code} ${greeting.text}`,
        greeting.code === 502 ? 'permanent' : 'transient',
      );
    }
    // A server that splits feeding and reading (INN) hands a reader over to nnrpd; others answer 5xx, which is fine.
    const reader = await client.command('MODE READER');
    if (reader.code === 400) {
      client.close();
      throw new ArchiveError(
        `The news server ${where} asked listminer to come back later: ${reader.text}`,
        'transient',
      );
    }
    if (options.credentials) await client.authenticate(options.credentials);
    return client;
  }

  private async authenticate(credentials: { user: string; password: string }): Promise<void> {
    let answer = await this.command(`AUTHINFO USER ${credentials.user}`);
    if (answer.code === 381) answer = await this.command(`AUTHINFO PASS ${credentials.password}`);
    if (answer.code !== 281)
      throw new ArchiveError(
        `The news server ${this.where} refused the user name and password (${answer.code}).`,
        'permanent',
      );
  }

  /** GROUP: selects the group and tells its article count and its low and high water marks. */
  async group(name: string): Promise<NntpGroup> {
    const answer = await this.command(`GROUP ${name}`);
    if (answer.code === 411) throw new ArchiveError(`The news server ${this.where} has no group ${name}.`, 'permanent');
    if (answer.code === 480)
      throw new ArchiveError(`The news server ${this.where} wants a user name and password for ${name}.`, 'permanent');
    this.expect(answer, 211, `GROUP ${name}`);
    const [count, low, high] = answer.text.split(/\s+/).map(Number);
    return { count: count ?? 0, low: low ?? 0, high: high ?? 0 };
  }

  /** LIST ACTIVE: the names of the groups the server carries, or of those `wildmat` matches (`gmane.comp.*`). */
  async groupNames(wildmat?: string): Promise<string[]> {
    const answer = await this.command(wildmat ? `LIST ACTIVE ${wildmat}` : 'LIST ACTIVE');
    if (answer.code === 480)
      throw new ArchiveError(
        `The news server ${this.where} wants a user name and password for its list of groups.`,
        'permanent',
      );
    this.expect(answer, 215, 'LIST ACTIVE');
    return answer.lines.map((line) => line.toString('latin1').split(/\s+/)[0] ?? '').filter(Boolean);
  }

  /** STAT: the Message-ID of an article of the selected group, or undefined when it has none by that number. */
  async messageIdAt(number: number): Promise<string | undefined> {
    const answer = await this.command(`STAT ${number}`);
    if (answer.code === 423) return undefined;
    this.expect(answer, 223, `STAT ${number}`);
    return answer.text.split(/\s+/)[1];
  }

  /** OVER (else XOVER) for a range of article numbers of the selected group. */
  async overview(low: number, high: number): Promise<OverviewLine[]> {
    let answer = await this.command(`OVER ${low}-${high}`);
    if (answer.code === 500 || answer.code === 501) answer = await this.command(`XOVER ${low}-${high}`);
    if (answer.code === 423 || answer.code === 420) return [];
    this.expect(answer, 224, `OVER ${low}-${high}`);
    return answer.lines.flatMap((line) => {
      const fields = line.toString('latin1').split('\t');
      const number = Number(fields[0]);
      return Number.isInteger(number) ? [{ number, date: fields[3] ?? '', messageId: (fields[4] ?? '').trim() }] : [];
    });
  }

  /**
   * ARTICLE for each number, pipelined: the raw articles in order, lines
   * joined by LF as in an mbox; undefined for a number the server no longer
   * has (expired, cancelled).
   */
  async articles(numbers: readonly number[]): Promise<Array<Buffer | undefined>> {
    if (!numbers.length) return [];
    this.socket.write(numbers.map((number) => `ARTICLE ${number}\r\n`).join(''));
    const out: Array<Buffer | undefined> = [];
    for (const number of numbers) {
      const answer = await this.readResponse();
      if (answer.code === 423 || answer.code === 430) {
        out.push(undefined);
        continue;
      }
      this.expect(answer, 220, `ARTICLE ${number}`);
      out.push(joinLines(answer.lines));
    }
    return out;
  }

  /** QUIT, without waiting for the answer, and the connection closed. */
  close(): void {
    if (!this.ended && !this.socket.destroyed) this.socket.end('QUIT\r\n');
    this.socket.destroySoon?.();
  }

  /** Sends one command and reads its whole answer. */
  async command(line: string): Promise<NntpResponse> {
    this.socket.write(`${line}\r\n`);
    return this.readResponse();
  }

  private expect(answer: NntpStatus, code: number, what: string): void {
    if (answer.code === code) return;
    const kind = answer.code === 400 || answer.code === 403 ? 'transient' : 'permanent';
    throw new ArchiveError(`The news server ${this.where} answered ${what} with ${answer.code} ${answer.text}`, kind);
  }

  private async readResponse(): Promise<NntpResponse> {
    const status = await this.readStatus();
    const lines: Buffer[] = [];
    if (MULTI_LINE.has(status.code)) {
      for (;;) {
        const line = await this.readLine();
        if (line.length === 1 && line[0] === 0x2e) break;
        // Dot-stuffing: a line that began with a dot was sent with a second one.
        lines.push(line[0] === 0x2e ? line.subarray(1) : line);
      }
    }
    return { ...status, lines };
  }

  private async readStatus(): Promise<NntpStatus> {
    const line = (await this.readLine()).toString('latin1');
    const match = /^(\d{3})\s?(.*)$/.exec(line);
    if (!match)
      throw new ArchiveError(
        `The news server ${this.where} sent ${quoteExcerpt(line)}, not an NNTP answer.`,
        'transient',
      );
    return { code: Number(match[1]), text: match[2]! };
  }

  /** The next line, without its CRLF (a bare LF is taken too). */
  private async readLine(): Promise<Buffer> {
    for (;;) {
      const end = this.buffered.indexOf(0x0a);
      if (end >= 0) {
        const line = this.buffered.subarray(0, end > 0 && this.buffered[end - 1] === 0x0d ? end - 1 : end);
        this.buffered = this.buffered.subarray(end + 1);
        return line;
      }
      if (this.failure) throw this.failure;
      if (this.ended) throw new ArchiveError(`The news server ${this.where} closed the connection.`, 'transient');
      await new Promise<void>((resolve) => (this.waiting = resolve));
    }
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.();
  }
}

function joinLines(lines: readonly Buffer[]): Buffer {
  const parts: Buffer[] = [];
  for (const line of lines) parts.push(line, CRLF.subarray(1));
  return Buffer.concat(parts);
}
