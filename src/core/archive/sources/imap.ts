import { ImapFlow } from 'imapflow';
import { ArchiveError } from '../../errors.js';
import type { ArchiveSource, Month, SourceContext } from '../archive-source.js';
import {
  builtOnce,
  mailboxError,
  mailboxMonths,
  messageFacts,
  openMailbox,
  type Mailbox,
  type MailboxMonths,
  type MessageFacts,
} from '../mailbox.js';
import { monthOf } from '../month.js';
import { DEFAULT_MAIL_TIMEOUT_MS } from '../../net/mail-timeout.js';

/** Messages asked for in one FETCH. */
const FETCH_BATCH = 100;

/** The folder as it was when it was indexed: its UIDVALIDITY and the list's messages by month. */
interface ImapIndex extends MailboxMonths {
  uidValidity: string;
}

/**
 * A folder of an IMAP mailbox subscribed to lists (docs/archive-backends.md).
 * The folder is opened with EXAMINE and read with BODY.PEEK[], so no flag
 * or message changes. A message's month is its Date, else its INTERNALDATE;
 * each month's fingerprint is the UIDVALIDITY and the month's UIDs, so new
 * mail, expunged mail and a recreated folder read their months again, and
 * the message identity keeps anything from being stored twice.
 */
export function createSource(): ArchiveSource {
  let client: ImapFlow | undefined;
  let mailbox: Mailbox | undefined;

  async function connect(context: SourceContext): Promise<{ client: ImapFlow; mailbox: Mailbox; uidValidity: string }> {
    mailbox ??= openMailbox(context, 'imap');
    const box = mailbox;
    // A connection the server dropped, or that went silent, is opened again: the next command would only fail.
    if (client && !client.usable) {
      client.close();
      client = undefined;
    }
    if (!client) {
      const silenceMs = context.mailTimeoutMs ?? DEFAULT_MAIL_TIMEOUT_MS;
      const fresh = new ImapFlow({
        host: box.host,
        port: box.port,
        secure: box.secure,
        doSTARTTLS: box.secure ? undefined : false,
        auth: { user: box.user, pass: box.password },
        tls: box.ca ? { ca: [box.ca] } : undefined,
        logger: false,
        disableAutoIdle: true,
        connectionTimeout: silenceMs,
        greetingTimeout: silenceMs,
        socketTimeout: silenceMs,
      });
      silenceLimit.set(fresh, silenceMs);
      // A dropped connection fails the command waiting on it; a silent one says only "Connection not available" there.
      fresh.on('error', (error: { code?: string }) => {
        if (error.code === 'ETIMEOUT') wentSilent.add(fresh);
      });
      try {
        await fresh.connect();
        await fresh.mailboxOpen(box.folder, { readOnly: true });
      } catch (error) {
        fresh.close();
        throw folderRefused(box, error) ?? mailboxError(box, imapReason(fresh, error), `opening ${box.folder}`);
      }
      client = fresh;
    }
    const opened = client.mailbox;
    if (!opened) throw new ArchiveError(`${box.label}: the folder was closed by the server.`, 'transient');
    return { client, mailbox: box, uidValidity: String(opened.uidValidity) };
  }

  const folderIndex = builtOnce(async (context: SourceContext): Promise<ImapIndex> => {
    const { client, mailbox, uidValidity } = await connect(context);
    try {
      const uids = (await client.search({ all: true }, { uid: true })) || [];
      const months = await mailboxMonths(context, mailbox, uidValidity, uids.map(String), async (names) => {
        const facts = new Map<string, MessageFacts>();
        for await (const message of client.fetch(
          uidRanges(names.map(Number)),
          { uid: true, internalDate: true, headers: ['date', 'list-id'] },
          { uid: true },
        )) {
          const arrived = message.internalDate instanceof Date ? message.internalDate : new Date();
          facts.set(String(message.uid), messageFacts(message.headers ?? Buffer.alloc(0), monthOf(arrived)));
        }
        return facts;
      });
      return { ...months, uidValidity };
    } catch (error) {
      throw mailboxError(mailbox, imapReason(client, error), 'reading the headers');
    }
  });

  return {
    name: 'imap',

    async firstMonth(context) {
      return [...(await folderIndex(context)).months.keys()].sort()[0];
    },

    async monthFingerprints(context) {
      return (await folderIndex(context)).fingerprints;
    },

    async *fetchMonth(context, month: Month) {
      const known = await folderIndex(context);
      const uids = known.months.get(month);
      if (!uids?.length) return;
      const { client, mailbox, uidValidity } = await connect(context);
      if (uidValidity !== known.uidValidity) {
        throw new ArchiveError(
          `${mailbox.label}: the folder was recreated while it was read (UIDVALIDITY ${known.uidValidity} → ${uidValidity}).`,
          'transient',
        );
      }
      // A FETCH of a few messages at a time, handed on once it is over: no command runs on the connection while one streams, and a month is never held whole.
      for (let start = 0; start < uids.length; start += FETCH_BATCH) {
        const messages: Array<{ uid: number; source: Buffer }> = [];
        try {
          for await (const message of client.fetch(
            uidRanges(uids.slice(start, start + FETCH_BATCH).map(Number)),
            { uid: true, source: true },
            { uid: true },
          )) {
            if (message.source) messages.push({ uid: message.uid, source: message.source });
          }
        } catch (error) {
          throw mailboxError(mailbox, imapReason(client, error), `reading ${month}`);
        }
        for (const message of messages) {
          context.signal?.throwIfAborted();
          yield { raw: message.source, sourceRef: `${mailbox.label};UIDVALIDITY=${uidValidity};UID=${message.uid}` };
        }
      }
    },

    async close() {
      const open = client;
      client = undefined;
      folderIndex.forget();
      if (open) await open.logout().catch(() => open.close());
    },
  };
}

/** UIDs as IMAP sequence sets: 1:3,7,9:10. */
export function uidRanges(uids: readonly number[]): string {
  const sorted = [...uids].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : `${sorted[i]}:${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(',');
}

/** RFC 5530's response codes of a refusal that may pass: the folder is busy, or the server is. */
const PASSING_REFUSALS = new Set(['UNAVAILABLE', 'INUSE', 'LIMIT', 'SERVERBUG']);

/**
 * EXAMINE answered NO: the folder does not exist, or its name is one the
 * server does not take (a `/` where its folders are separated by `.`), or
 * the login may not read it. Asking again would get the same answer, so the
 * list fails as permanent, unless the answer says it may pass.
 */
function folderRefused(mailbox: Mailbox, error: unknown): ArchiveError | undefined {
  const refusal = error as {
    responseStatus?: string;
    responseText?: string;
    serverResponseCode?: string;
    mailboxMissing?: boolean;
  };
  if (refusal.responseStatus !== 'NO' || PASSING_REFUSALS.has(refusal.serverResponseCode ?? '')) return undefined;
  const answer = refusal.mailboxMissing ? `has no folder ${mailbox.folder}` : `refused to open ${mailbox.folder}`;
  return new ArchiveError(
    `${mailbox.label}: the server ${answer}: ${refusal.responseText ?? String(error)}`,
    'permanent',
  );
}

/** How long each connection lets the server stay silent. */
const silenceLimit = new WeakMap<ImapFlow, number>();
/** Connections given up for silence: imapflow says so on the connection, and the command it failed says only "Connection not available". */
const wentSilent = new WeakSet<ImapFlow>();
/** imapflow's codes for no connection, no greeting, and no answer in time. */
const SILENCE_CODES = new Set(['CONNECT_TIMEOUT', 'GREETING_TIMEOUT', 'ETIMEOUT']);

/** imapflow's errors say "Command failed" and keep the server's words apart; a silent server's are put in one sentence. */
function imapReason(client: ImapFlow, error: unknown): unknown {
  if (wentSilent.has(client) || SILENCE_CODES.has((error as { code?: string }).code ?? ''))
    return new Error(`no answer for ${Math.round((silenceLimit.get(client) ?? DEFAULT_MAIL_TIMEOUT_MS) / 1000)} s`);
  const detail = (error as { responseText?: string }).responseText;
  return detail && error instanceof Error ? new Error(`${error.message}: ${detail}`) : error;
}
