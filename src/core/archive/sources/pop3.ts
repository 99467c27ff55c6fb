import { ArchiveError } from '../../errors.js';
import { Pop3Client } from '../../net/pop3-client.js';
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

/** Body lines asked of TOP to get a whole message: more than any message has. */
const WHOLE_MESSAGE_LINES = 2_147_483_647;

interface Pop3Session {
  client: Pop3Client;
  mailbox: Mailbox;
  /**
   * Each message's name in the index (its UIDL and size) → its UIDL and its
   * number in this session (numbers hold while it lasts). The size is in the name
   * because some servers number UIDLs again when a maildrop is recreated
   * (Dovecot with `pop3_uidl_format = %u`): another message under a UIDL
   * already read is then read again, not taken for the one cached.
   */
  messages: Map<string, { uidl: string; number: number }>;
  /** TOP is offered: whole messages are read with it, which no server counts as retrieving them. */
  canTop: boolean;
}

/**
 * A POP3 maildrop subscribed to lists (docs/archive-backends.md). Read
 * without DELE: each message by TOP with more lines than it has (RETR only
 * where the server lacks TOP, since some servers mark what RETR sent as
 * seen). A month's fingerprint is its messages' UIDLs and sizes, so new mail
 * reads its month again and the message identity keeps anything from being
 * stored twice.
 */
export function createSource(): ArchiveSource {
  let session: Promise<Pop3Session> | undefined;

  async function open(context: SourceContext): Promise<Pop3Session> {
    // A connection the server dropped, or that went silent, is opened again: the next command would only fail.
    if (session && (await session.catch(() => undefined))?.client.usable === false) session = undefined;
    session ??= (async () => {
      const mailbox = openMailbox(context, 'pop3');
      let client: Pop3Client | undefined;
      try {
        client = await Pop3Client.connect({
          host: mailbox.host,
          port: mailbox.port,
          secure: mailbox.secure,
          ca: mailbox.ca,
          timeoutMs: context.mailTimeoutMs,
        });
        const canTop = (await client.capabilities()).has('TOP');
        await client.login(mailbox.user, mailbox.password);
        const sizes = await client.list();
        const messages = new Map(
          [...(await client.uidl())].map(([number, uidl]) => [`${uidl} ${sizes.get(number) ?? ''}`, { uidl, number }]),
        );
        return { client, mailbox, messages, canTop };
      } catch (error) {
        await client?.quit();
        throw mailboxError(mailbox, error, 'opening the maildrop');
      }
    })();
    session.catch(() => {
      session = undefined;
    });
    return session;
  }

  const maildropIndex = builtOnce(async (context: SourceContext): Promise<MailboxMonths> => {
    const { client, mailbox, messages } = await open(context);
    const firstSeen = monthOf(new Date());
    try {
      return await mailboxMonths(context, mailbox, 'uidl-size', [...messages.keys()], async (ids) => {
        const facts = new Map<string, MessageFacts>();
        for (const id of ids) {
          context.signal?.throwIfAborted();
          // Without a usable Date, the month it was first seen in (kept in the cache).
          facts.set(id, messageFacts(await client.top(messages.get(id)!.number, 0), firstSeen));
        }
        return facts;
      });
    } catch (error) {
      throw mailboxError(mailbox, error, 'reading the headers');
    }
  });

  return {
    name: 'pop3',

    async firstMonth(context) {
      return [...(await maildropIndex(context)).months.keys()].sort()[0];
    },

    async monthFingerprints(context) {
      return (await maildropIndex(context)).fingerprints;
    },

    async *fetchMonth(context, month: Month) {
      const ids = (await maildropIndex(context)).months.get(month);
      if (!ids?.length) return;
      const { client, mailbox, messages, canTop } = await open(context);
      for (const id of ids) {
        context.signal?.throwIfAborted();
        const message = messages.get(id);
        if (!message)
          throw new ArchiveError(
            `${mailbox.label}: the message of UIDL and size ${id} is not in this session's maildrop.`,
            'transient',
          );
        const { uidl, number } = message;
        let raw: Buffer;
        try {
          raw = canTop ? await client.top(number, WHOLE_MESSAGE_LINES) : await client.retr(number);
        } catch (error) {
          throw mailboxError(mailbox, error, `reading message ${uidl}`);
        }
        yield { raw, sourceRef: `${mailbox.label};UIDL=${uidl}` };
      }
    },

    async close() {
      const open = session;
      session = undefined;
      maildropIndex.forget();
      if (open) await (await open.catch(() => undefined))?.client.quit();
    },
  };
}
