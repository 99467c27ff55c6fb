import { connect as connectPlain, type Socket } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { DEFAULT_MAIL_TIMEOUT_MS } from './mail-timeout.js';

export interface Pop3Options {
  host: string;
  port: number;
  /** TLS from the first byte (POP3S); false only for a plain connection asked for. */
  secure: boolean;
  /** Extra certificates to trust. */
  ca?: Buffer;
  /** A server that says nothing for this long is given up on. Default DEFAULT_MAIL_TIMEOUT_MS. */
  timeoutMs?: number;
}

/** A POP3 reply that was not +OK, with the server's words. */
export class Pop3Error extends Error {
  constructor(
    message: string,
    readonly reply: string,
  ) {
    super(message);
    this.name = 'Pop3Error';
  }
}

const CRLF = Buffer.from('\r\n');
const END_OF_MULTILINE = Buffer.from('\r\n.\r\n');

/**
 * Just enough POP3 (RFC 1939, RFC 2449 CAPA) to read a maildrop without
 * changing it: USER/PASS, CAPA, UIDL, TOP, RETR and QUIT — never DELE. One
 * command at a time; a multi-line reply is read off the socket chunk by
 * chunk and un-dot-stuffed once whole.
 */
export class Pop3Client {
  private pending: Buffer[] = [];
  private wake?: () => void;
  private failure?: Error;

  private constructor(
    private readonly socket: Socket,
    timeoutMs: number,
  ) {
    socket.setTimeout(timeoutMs, () => socket.destroy(new Error(`no answer for ${Math.round(timeoutMs / 1000)} s`)));
    socket.on('data', (chunk: Buffer) => {
      this.pending.push(chunk);
      this.wake?.();
    });
    socket.on('error', (error) => {
      this.failure ??= error;
      this.wake?.();
    });
    socket.on('close', () => {
      this.failure ??= new Error('the server closed the connection');
      this.wake?.();
    });
  }

  static async connect(options: Pop3Options): Promise<Pop3Client> {
    const socket = options.secure
      ? connectTls({
          host: options.host,
          port: options.port,
          ca: options.ca,
          servername: isIp(options.host) ? undefined : options.host,
        })
      : connectPlain({ host: options.host, port: options.port });
    const client = new Pop3Client(socket, options.timeoutMs ?? DEFAULT_MAIL_TIMEOUT_MS);
    try {
      await client.status('the greeting');
    } catch (error) {
      socket.destroy();
      throw error;
    }
    return client;
  }

  async login(user: string, password: string): Promise<void> {
    await this.command(`USER ${user}`, 'USER');
    // The password is sent, never put into an error.
    await this.command(`PASS ${password}`, 'PASS');
  }

  /** The server's capabilities (CAPA), upper-cased; empty when it has no CAPA. */
  async capabilities(): Promise<Set<string>> {
    this.send('CAPA');
    try {
      await this.status('CAPA');
    } catch (error) {
      if (error instanceof Pop3Error) return new Set();
      throw error;
    }
    const lines = (await this.multiline()).toString('latin1').split('\r\n').filter(Boolean);
    return new Set(lines.map((line) => line.split(' ')[0]!.toUpperCase()));
  }

  /** Message number → unique id (UIDL). */
  async uidl(): Promise<Map<number, string>> {
    await this.command('UIDL', 'UIDL');
    const ids = new Map<number, string>();
    for (const line of (await this.multiline()).toString('latin1').split('\r\n')) {
      const match = /^(\d+)\s+(\S+)/.exec(line);
      if (match) ids.set(Number(match[1]), match[2]!);
    }
    return ids;
  }

  /** LIST: each message's size in octets, by message number. */
  async list(): Promise<Map<number, number>> {
    await this.command('LIST', 'LIST');
    const sizes = new Map<number, number>();
    for (const line of (await this.multiline()).toString('latin1').split('\r\n')) {
      const match = /^(\d+)\s+(\d+)/.exec(line);
      if (match) sizes.set(Number(match[1]), Number(match[2]));
    }
    return sizes;
  }

  /** TOP: the header and the first `lines` lines of the body. */
  async top(message: number, lines: number): Promise<Buffer> {
    await this.command(`TOP ${message} ${lines}`, 'TOP');
    return this.multiline();
  }

  async retr(message: number): Promise<Buffer> {
    await this.command(`RETR ${message}`, 'RETR');
    return this.multiline();
  }

  /** False once the connection failed, timed out or was closed: every command would fail. */
  get usable(): boolean {
    return !this.failure;
  }

  /** QUIT, then the connection is closed; without DELE, QUIT leaves the maildrop as it was. */
  async quit(): Promise<void> {
    try {
      if (!this.failure) await this.command('QUIT', 'QUIT');
    } catch {
      // closing anyway
    } finally {
      this.socket.destroy();
    }
  }

  private async command(line: string, name: string): Promise<string> {
    this.send(line);
    return this.status(name);
  }

  private send(line: string): void {
    this.socket.write(`${line}\r\n`);
  }

  /** The one-line status reply; anything but +OK is a Pop3Error naming the command. */
  private async status(name: string): Promise<string> {
    const line = (await this.readUntil(CRLF, Buffer.alloc(0))).toString('latin1');
    if (!line.startsWith('+OK')) throw new Pop3Error(`${name} was refused: ${line}`, line);
    return line;
  }

  /** The lines of a multi-line reply, dot-stuffing undone, each ending in CRLF. */
  private async multiline(): Promise<Buffer> {
    // The status line's CRLF is the first two bytes of the end marker when the reply is empty.
    const body = (await this.readUntil(END_OF_MULTILINE, CRLF)).subarray(2);
    if (body.length === 0) return body;
    const lines: Buffer[] = [];
    let start = 0;
    while (start <= body.length) {
      let end = body.indexOf(CRLF, start);
      if (end < 0) end = body.length;
      const line = body.subarray(start, end);
      lines.push(line[0] === 0x2e ? line.subarray(1) : line, CRLF);
      start = end + 2;
    }
    return Buffer.concat(lines);
  }

  /** The bytes before `marker` (after `carry`, bytes known to precede what arrives), leaving what follows it for the next read. */
  private async readUntil(marker: Buffer, carry: Buffer): Promise<Buffer> {
    const parts: Buffer[] = [];
    let tail = carry;
    for (;;) {
      const chunk = this.pending.shift();
      if (chunk === undefined) {
        if (this.failure) throw this.failure;
        await new Promise<void>((resolve) => (this.wake = resolve));
        this.wake = undefined;
        continue;
      }
      const window = tail.length ? Buffer.concat([tail, chunk]) : chunk;
      const at = window.indexOf(marker);
      if (at >= 0) {
        const rest = window.subarray(at + marker.length);
        if (rest.length) this.pending.unshift(rest);
        parts.push(window.subarray(0, at));
        return Buffer.concat(parts);
      }
      const keep = Math.min(marker.length - 1, window.length);
      parts.push(window.subarray(0, window.length - keep));
      tail = window.subarray(window.length - keep);
    }
  }
}

function isIp(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
