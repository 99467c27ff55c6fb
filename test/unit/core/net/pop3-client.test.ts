import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Pop3Client, Pop3Error } from '../../../../src/core/net/pop3-client.js';

/** A scripted POP3 server: each command gets the reply `answer` gives (`CLOSE:` first: then it hangs up), one byte at a time when `trickle` is set. */
async function scriptedServer(
  answer: (command: string) => string,
  trickle = false,
): Promise<{ server: Server; port: number; commands: string[] }> {
  const commands: string[] = [];
  const write = async (socket: Socket, text: string) => {
    const bytes = Buffer.from(text, 'latin1');
    if (!trickle) return void socket.write(bytes);
    for (const byte of bytes) {
      socket.write(Buffer.from([byte]));
      await new Promise((resolve) => setImmediate(resolve));
    }
  };
  const server = createServer((socket) => {
    let buffered = '';
    void write(socket, '+OK ready\r\n');
    // One reply at a time: a trickled reply must not interleave with the next one.
    let replying = Promise.resolve();
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      replying = replying.then(async () => {
        let end: number;
        while ((end = buffered.indexOf('\r\n')) >= 0) {
          const command = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          commands.push(command);
          const reply = answer(command);
          await write(socket, reply.replace(/^CLOSE:/, ''));
          if (command === 'QUIT' || reply.startsWith('CLOSE:')) socket.end();
        }
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as { port: number }).port, commands };
}

const MESSAGE = 'Subject: dots\r\n\r\n..leading dot\r\n.\r\n'; // as sent: dot-stuffed, then the end line

let open: Server | undefined;
afterEach(() => {
  open?.close();
  open = undefined;
});

describe('Pop3Client', () => {
  for (const trickle of [false, true]) {
    it(`reads multi-line replies whole and undoes dot-stuffing${trickle ? ', a byte at a time' : ''}`, async () => {
      const { server, port, commands } = await scriptedServer((command) => {
        if (command === 'CAPA') return '+OK\r\nTOP\r\nUIDL\r\n.\r\n';
        if (command === 'UIDL') return '+OK\r\n1 abc\r\n2 def\r\n.\r\n';
        if (command.startsWith('TOP 1')) return `+OK\r\n${MESSAGE}`;
        if (command.startsWith('TOP 2')) return '+OK\r\n.\r\n';
        return '+OK\r\n';
      }, trickle);
      open = server;
      const client = await Pop3Client.connect({ host: '127.0.0.1', port, secure: false });
      expect(await client.capabilities()).toEqual(new Set(['TOP', 'UIDL']));
      await client.login('me', 'pw');
      expect(await client.uidl()).toEqual(
        new Map([
          [1, 'abc'],
          [2, 'def'],
        ]),
      );
      expect((await client.top(1, 99)).toString('latin1')).toBe('Subject: dots\r\n\r\n.leading dot\r\n');
      expect((await client.top(2, 0)).length).toBe(0);
      await client.quit();
      expect(commands).toEqual(['CAPA', 'USER me', 'PASS pw', 'UIDL', 'TOP 1 99', 'TOP 2 0', 'QUIT']);
      expect(commands.some((command) => command.startsWith('DELE'))).toBe(false);
    });
  }

  it('fails a refused command with the server words and without the password', async () => {
    const { server, port } = await scriptedServer((command) =>
      command.startsWith('PASS') ? '-ERR [AUTH] Authentication failed.\r\n' : '+OK\r\n',
    );
    open = server;
    const client = await Pop3Client.connect({ host: '127.0.0.1', port, secure: false });
    const failure = await client.login('me', 'hunter2').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(Pop3Error);
    expect((failure as Error).message).toMatch(/PASS was refused: -ERR \[AUTH\]/);
    expect((failure as Error).message).not.toContain('hunter2');
    await client.quit();
  });

  it('fails a reply cut off by the server closing the connection', async () => {
    const { server, port } = await scriptedServer((command) =>
      command === 'UIDL' ? 'CLOSE:+OK\r\n1 abc\r\n' : '+OK\r\n',
    );
    open = server;
    const client = await Pop3Client.connect({ host: '127.0.0.1', port, secure: false });
    await expect(client.uidl()).rejects.toThrow(/closed the connection/);
    await client.quit();
  });
});
