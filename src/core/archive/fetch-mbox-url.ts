import { ArchiveError, PartialMonthError } from '../errors.js';
import type { HttpClient } from '../net/http-client.js';
import { type RawMessage, type SourceContext } from './archive-source.js';
import { readMboxEntries, type MboxFlavour } from './mbox-reader.js';

/**
 * Streams the messages of an mbox served over HTTP (plain or gzip). Nothing
 * there (404) is an empty month. A body that ends badly, a gzip stream that
 * breaks, or a web page or other bytes that are no mbox in its place is a
 * transient failure: the month is not complete. When whole messages came before the break, it is a
 * PartialMonthError: they are staged, and the month is still read again.
 * `flavour` is how the archive escaped `From ` lines (default mboxrd);
 * `onMissing` hears of a 404, for a caller with another URL to try.
 * `wholeEnding` says the archive ends every message with a line ending
 * (Mailman 2's month texts): a text that stops inside a line was cut inside
 * its last message, which is not handed on (PartialMonthError, as for a
 * break). A cut that falls on a line's end cannot be told from the end of a
 * message: Mailman 2.1.5 wrote no blank line after a message.
 */
export async function* fetchMboxUrl(
  client: HttpClient,
  url: string,
  signal?: AbortSignal,
  options: { flavour?: MboxFlavour; onMissing?(): void; wholeEnding?: boolean } = {},
): AsyncGenerator<RawMessage> {
  const response = await client.stream(url, signal);
  if (!response) return options.onMissing?.();
  // A proxy's error or maintenance page sent with 200 is no mbox: read as one, it would
  // become a message and the month would be checkpointed without its mail.
  if (/^(text\/html|application\/xhtml\+xml)\b/i.test(response.contentType ?? '')) {
    for await (const _chunk of response.body) break;
    throw new ArchiveError(`${url} answered with a web page (${response.contentType}), not an mbox.`, 'transient');
  }
  let read = 0;
  try {
    for await (const entry of readMboxEntries(response.body, { signal, flavour: options.flavour })) {
      // Every archive served over HTTP writes a From_ line before each message. Bytes that open without one are no
      // mbox (an error page sent as text/plain, binary): read as one, they would become one junk message and the
      // month would be checkpointed without its mail.
      if (read === 0 && entry.fromLine === undefined)
        throw new ArchiveError(
          `${url} answered with something that is not an mbox: it opens with no From_ line.`,
          'transient',
        );
      // Read while Mailman appended to it, or served short: the message is half there, and would be stored
      // again once whole, under another content hash.
      if (options.wholeEnding && entry.unterminated)
        throw new ArchiveError(`${url} ends inside a line of its last message: the text was cut`, 'transient');
      yield { raw: entry.raw, sourceRef: `${url}#${entry.offset}` };
      read++;
    }
  } catch (error) {
    if (signal?.aborted || (error instanceof ArchiveError && error.kind !== 'transient')) throw error;
    const why =
      error instanceof ArchiveError
        ? error.message
        : `The mbox at ${url} could not be read to its end: ${(error as Error).message}`;
    // Only messages followed by the next one's separator (or the body's end) are handed on, so the ones before the break are whole.
    if (read > 0)
      throw new PartialMonthError(
        `${why} (the ${read} whole messages before the break were staged; the month is read again on the next fetch)`,
      );
    throw error instanceof ArchiveError ? error : new ArchiveError(why, 'transient');
  }
}

/** The archive URL for the list: its own override, else the system's. */
export function requireBaseUrl(
  context: Pick<SourceContext, 'baseUrl' | 'system'> & { list?: SourceContext['list'] },
): string {
  const base = context.baseUrl ?? context.list?.baseUrl ?? context.system.baseUrl;
  if (!base) {
    throw new ArchiveError(
      `The ${context.system.name} system has no base URL${context.list ? ` for ${context.list.name}` : ''}; give the list one with lists add --base-url.`,
      'permanent',
    );
  }
  return base.replace(/\/+$/, '');
}

/** dev@kafka.apache.org → { local: 'dev', domain: 'kafka.apache.org' }. */
export function splitListAddress(context: SourceContext): { address: string; local: string; domain: string } {
  const address = (context.list.listAddress ?? context.list.name).toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0) throw new ArchiveError(`${context.list.name} is not a list address (list@domain).`, 'permanent');
  return { address, local: address.slice(0, at), domain: address.slice(at + 1) };
}
