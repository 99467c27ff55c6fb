import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  chownSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { realSoftwareSkipReason, signalServer } from './real-software.js';

const DOVECOT = process.env.LISTMINER_DOVECOT ?? '/usr/sbin/dovecot';
/** Dovecot refuses mail access as root: the mail belongs to nobody. */
const MAIL_UID = 65534;
const MAIL_GID = 65534;

function probeDovecot(): string | undefined {
  const probe = spawnSync(DOVECOT, ['--version'], { encoding: 'utf8' });
  if (probe.error)
    return `${DOVECOT} cannot be run (${probe.error.message}); apt-get install dovecot-imapd dovecot-pop3d`;
  for (const protocol of ['imap', 'pop3']) {
    if (!existsSync(`/usr/lib/dovecot/${protocol}`))
      return `Dovecot's ${protocol} server is not installed (apt-get install dovecot-${protocol}d)`;
  }
  return undefined;
}

/** Why the real-Dovecot suites cannot run here, or undefined. Under CI=true a missing Dovecot is an error: .ci/run installs it. */
export const dovecotSkipReason = realSoftwareSkipReason(probeDovecot);

export interface DovecotServer {
  host: string;
  /** Plain IMAP and POP3. */
  imapPort: number;
  pop3Port: number;
  /** IMAP and POP3 over TLS, with a self-signed certificate for `localhost`. */
  imapsPort: number;
  pop3sPort: number;
  /** The self-signed certificate (PEM file), to trust as a CA. */
  caFile: string;
  password: string;
  /** Adds a user with an empty INBOX; resolves once Dovecot takes the user's login. */
  addUser(user: string): Promise<void>;
  /** Writes a message into the user's INBOX as a Maildir file (new/), as a delivery agent would. */
  deliver(user: string, raw: string | Buffer): void;
  /** Throws the user's INBOX away (UIDs, UIDVALIDITY, flags) and writes these messages anew: a recreated mailbox. */
  recreateInbox(user: string, messages: ReadonlyArray<string | Buffer>): void;
  /** Stops every Dovecot process (SIGSTOP): connections stay open, and nothing answers, a greeting included. */
  pause(): void;
  /** Lets the processes `pause` stopped go on (SIGCONT). */
  resume(): void;
  close(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Whether Dovecot takes this login over IMAP: 'OK', or the line it refused
 * LOGIN with. No mailbox is opened (a POP3 login would open the maildrop and
 * move mail from new/ to cur/ while the test writes it), and the answer comes
 * once Dovecot has closed the connection after LOGOUT.
 */
function imapLogin(port: number, user: string, password: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let buffered = '';
    let answer: string | undefined;
    let greeted = false;
    socket.setEncoding('utf8');
    socket.setTimeout(10_000, () => socket.destroy(new Error('no answer from Dovecot over IMAP in 10 s')));
    socket.on('data', (chunk: string) => {
      buffered += chunk;
      for (let end = buffered.indexOf('\r\n'); end >= 0; end = buffered.indexOf('\r\n')) {
        const line = buffered.slice(0, end);
        buffered = buffered.slice(end + 2);
        if (!greeted && line.startsWith('* OK')) {
          greeted = true;
          socket.write(`a LOGIN "${user}" "${password}"\r\n`);
        }
        if (line.startsWith('a ')) {
          answer = line.startsWith('a OK') ? 'OK' : line;
          socket.write('b LOGOUT\r\n');
        }
      }
    });
    socket.once('close', () =>
      answer === undefined ? reject(new Error('Dovecot closed the IMAP connection')) : resolve(answer),
    );
    socket.once('error', (error) => answer === undefined && reject(error));
  });
}

function reachable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * Starts Dovecot in the foreground with a configuration of its own in a
 * temporary folder: users from a passwd-file (one password for all),
 * Maildirs in the folder, IMAP, POP3 and their TLS forms on free ports of
 * 127.0.0.1. Nothing of the system's Dovecot is used or touched. POP3's
 * UIDLs are Dovecot's default of a message's IMAP UID and UIDVALIDITY, which
 * change when a maildrop is recreated, unless `pop3UidlFormat` says otherwise
 * (`%u`: the UID alone, numbered again from 1).
 */
export async function startDovecot(options: { pop3UidlFormat?: string } = {}): Promise<DovecotServer> {
  const dir = mkdtempSync(join(tmpdir(), 'listminer-dovecot-'));
  const [imapPort, pop3Port, imapsPort, pop3sPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const password = 'listminer-test-secret';
  chmodSync(dir, 0o755);
  const mailRoot = join(dir, 'mail');
  mkdirSync(mailRoot, { recursive: true });
  chownSync(mailRoot, MAIL_UID, MAIL_GID);
  const passwd = join(dir, 'passwd');
  writeFileSync(passwd, '');
  const caFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-subj',
      '/CN=localhost',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      caFile,
    ],
    { stdio: 'ignore' },
  );
  const config = join(dir, 'dovecot.conf');
  writeFileSync(
    config,
    `base_dir = ${dir}/run
state_dir = ${dir}/state
log_path = ${dir}/dovecot.log
protocols = imap pop3
listen = 127.0.0.1
ssl = yes
ssl_cert = <${caFile}
ssl_key = <${keyFile}
disable_plaintext_auth = no
auth_mechanisms = plain login
mail_location = maildir:${mailRoot}/%u
first_valid_uid = ${MAIL_UID}
default_internal_user = dovecot
default_login_user = dovenull
pop3_uidl_format = ${options.pop3UidlFormat ?? '%08Xu%08Xv'}
passdb {
  driver = passwd-file
  args = scheme=PLAIN username_format=%u ${passwd}
}
userdb {
  driver = static
  args = uid=${MAIL_UID} gid=${MAIL_GID} home=${mailRoot}/%u
}
service imap-login {
  inet_listener imap {
    address = 127.0.0.1
    port = ${imapPort}
  }
  inet_listener imaps {
    address = 127.0.0.1
    port = ${imapsPort}
    ssl = yes
  }
}
service pop3-login {
  inet_listener pop3 {
    address = 127.0.0.1
    port = ${pop3Port}
  }
  inet_listener pop3s {
    address = 127.0.0.1
    port = ${pop3sPort}
    ssl = yes
  }
}
service stats {
  unix_listener stats-reader {
    mode = 0666
  }
  unix_listener stats-writer {
    mode = 0666
  }
}
`,
  );
  const child: ChildProcess = spawn(DOVECOT, ['-F', '-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const log = () =>
    `${output}${existsSync(join(dir, 'dovecot.log')) ? readFileSync(join(dir, 'dovecot.log'), 'utf8') : ''}`;
  for (let attempt = 0; ; attempt++) {
    if (child.exitCode !== null) throw new Error(`Dovecot exited with ${child.exitCode}:\n${log()}`);
    if ((await reachable(imapPort)) && (await reachable(pop3Port))) break;
    if (attempt > 200) throw new Error(`Dovecot did not listen on ${imapPort} and ${pop3Port}:\n${log()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  let counter = 0;
  const maildir = (user: string) => join(mailRoot, user);
  const makeMaildir = (user: string) => {
    for (const folder of ['', 'cur', 'new', 'tmp']) {
      mkdirSync(join(maildir(user), folder), { recursive: true });
      chownSync(join(maildir(user), folder), MAIL_UID, MAIL_GID);
    }
  };
  const deliver = (user: string, raw: string | Buffer) => {
    counter++;
    const file = join(maildir(user), 'new', `${1_700_000_000 + counter}.M${counter}P${process.pid}.listminer-test`);
    writeFileSync(file, raw);
    chownSync(file, MAIL_UID, MAIL_GID);
  };
  return {
    host: '127.0.0.1',
    imapPort,
    pop3Port,
    imapsPort,
    pop3sPort,
    caFile,
    password,
    async addUser(user) {
      // Written whole and renamed into place, so Dovecot never reads a file cut halfway. Dovecot looks at the
      // file again at most once a second, and a login refused now and then right after a user was added
      // (fetch failing with "PASS was refused"): the user is ready once a login of its own is taken.
      writeFileSync(`${passwd}.new`, `${readFileSync(passwd, 'utf8')}${user}:{PLAIN}${password}\n`);
      renameSync(`${passwd}.new`, passwd);
      makeMaildir(user);
      let answer = '';
      for (let attempt = 0; attempt < 10; attempt++) {
        answer = await imapLogin(imapPort, user, password);
        if (answer === 'OK') return;
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      throw new Error(`Dovecot refused the login of ${user} it was given: ${answer}\n${log()}`);
    },
    deliver,
    recreateInbox(user, messages) {
      rmSync(maildir(user), { recursive: true, force: true });
      makeMaildir(user);
      for (const raw of messages) deliver(user, raw);
    },
    pause() {
      signalServer(child.pid!, 'SIGSTOP');
    },
    resume() {
      signalServer(child.pid!, 'SIGCONT');
    },
    async close() {
      if (child.exitCode === null) {
        signalServer(child.pid!, 'SIGCONT'); // a paused Dovecot would not see the SIGTERM
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
