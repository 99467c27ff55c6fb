import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readdir, rename, rm, stat, utimes } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import StreamZip from 'node-stream-zip';
import { ArchiveError } from '../../errors.js';
import { createHttpClient, type HttpBody, type HttpClient } from '../../net/http-client.js';
import type { ArchiveSource, DiscoveredList, SourceContext } from '../archive-source.js';
import { builtOnce } from '../mailbox.js';
import { createSource as createMboxSource } from './mbox-files.js';

/** The environment variable that holds the groups.io API key when the config file gives none for the host. */
export const GROUPSIO_TOKEN_ENV = 'LISTMINER_GROUPSIO_TOKEN';

const DEFAULT_BASE_URL = 'https://groups.io';
/** Subscriptions per getsubs page (the API's largest). */
const PAGE_LIMIT = 100;

/** One entry of getsubs: the member's subscription to a group, with what the group lets the member do. */
interface Subscription {
  group_id: number;
  group_name: string;
  perms?: { download_archives?: boolean };
}

interface SubscriptionPage {
  data?: Subscription[];
  has_more?: boolean;
  next_page_token?: number | string;
}

interface Api {
  root: string;
  host: string;
  client: HttpClient;
  headers: Record<string, string>;
  signal?: AbortSignal;
}

/**
 * A group on groups.io, read through its API (docs/archive-backends.md).
 * The group's whole archive is downloaded once per fetch (downloadarchives:
 * a zip holding the group's mbox), unpacked into the cache folder and read
 * there as a local mbox: months come from the messages' own dates, each
 * month has a fingerprint of its messages, and a month is read again only
 * when its fingerprint changed. Messages are told apart by their bytes
 * (Message-ID first), never by the API's numbers; a message the group
 * deleted stays in the store.
 */
export function createSource(): ArchiveSource {
  const mbox = createMboxSource();
  const unpacked = builtOnce(downloadArchive);
  const local = async (context: SourceContext): Promise<SourceContext> => ({
    ...context,
    list: { ...context.list, name: await unpacked(context) },
  });
  return {
    name: 'groupsio',

    async firstMonth(context) {
      return mbox.firstMonth(await local(context));
    },

    async monthFingerprints(context) {
      return mbox.monthFingerprints!(await local(context));
    },

    async *fetchMonth(context, month) {
      yield* mbox.fetchMonth(await local(context), month);
    },

    async enumerateLists(context) {
      const api = openApi(context);
      const found: DiscoveredList[] = [];
      for await (const sub of subscriptions(api)) found.push({ name: sub.group_name });
      return found;
    },

    async close() {
      unpacked.forget();
    },
  };
}

/** Downloads the group's archive into the cache folder and unpacks it; the folder of its mbox files. */
async function downloadArchive(context: SourceContext): Promise<string> {
  const api = openApi(context);
  const group = context.list.name;
  const sub = await findSubscription(api, group);
  if (sub.perms?.download_archives === false) {
    throw new ArchiveError(
      `${api.host} does not let members download the archive of ${group}; its owner can allow it (download_archives).`,
      'permanent',
    );
  }
  const folder = join(context.cacheDir, 'groupsio', api.host, group);
  // One fetch at a time holds the list's lock; what a killed one left here is cleared first.
  const temporary = `${folder}.download`;
  await rm(temporary, { recursive: true, force: true });
  await mkdir(temporary, { recursive: true });
  try {
    const zip = join(temporary, 'archive.zip');
    const answer = await api.client.streamDocument(`${api.root}/downloadarchives?group_id=${sub.group_id}`, {
      headers: api.headers,
      signal: api.signal,
    });
    if (answer.status !== 200) throw await refusal(answer, group);
    await pipeline(answer.body, createWriteStream(zip));
    const unpackedTo = join(temporary, 'mbox');
    await unzip(zip, unpackedTo, group);
    await keepUnchangedTimes(unpackedTo, folder);
    await rm(folder, { recursive: true, force: true });
    await rename(unpackedTo, folder);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
  return folder;
}

/** Every file of the zip, by its base name, into `into`. */
async function unzip(zip: string, into: string, group: string): Promise<void> {
  await mkdir(into, { recursive: true });
  let archive: InstanceType<typeof StreamZip.async> | undefined;
  try {
    archive = new StreamZip.async({ file: zip });
    for (const entry of Object.values(await archive.entries())) {
      if (!entry.isFile) continue;
      await pipeline(await archive.stream(entry), createWriteStream(join(into, basename(entry.name))));
    }
  } catch (error) {
    throw new ArchiveError(
      `The archive groups.io sent for ${group} is not a readable zip file: ${(error as Error).message}`,
      'transient',
    );
  } finally {
    await archive?.close().catch(() => undefined);
  }
}

/**
 * A file unpacked with the same bytes as last time gets last time's
 * modification time, so the local mbox index cached for it stays valid and
 * the file is not scanned again.
 */
async function keepUnchangedTimes(fresh: string, previous: string): Promise<void> {
  for (const name of await readdir(fresh)) {
    const before = await stat(join(previous, name)).catch(() => undefined);
    const now = await stat(join(fresh, name));
    if (!before || before.size !== now.size) continue;
    if ((await fileDigest(join(previous, name))) === (await fileDigest(join(fresh, name))))
      await utimes(join(fresh, name), before.atime, before.mtime);
  }
}

async function fileDigest(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** The API at the list's base URL (else the system's, else groups.io), with the account's key. */
function openApi(context: Pick<SourceContext, 'baseUrl' | 'system' | 'contactEmail' | 'mailAccounts' | 'signal'>): Api {
  const base = (context.baseUrl ?? context.system.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  let host: string;
  try {
    host = new URL(base).hostname.toLowerCase();
  } catch {
    throw new ArchiveError(`"${base}" is not a groups.io base URL (https://groups.io).`, 'permanent');
  }
  const token =
    context.mailAccounts?.find((account) => account.host === host)?.password ??
    (process.env[GROUPSIO_TOKEN_ENV] || undefined);
  if (!token) {
    throw new ArchiveError(
      `No groups.io API key for ${host}: set ${GROUPSIO_TOKEN_ENV}, or give the config file a mail_accounts entry for ${host} with the key as its password.`,
      'permanent',
    );
  }
  return {
    root: `${base}/api/v1`,
    host,
    client: createHttpClient(context),
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
    signal: context.signal,
  };
}

/** The account's subscriptions, page by page (getsubs). */
async function* subscriptions(api: Api): AsyncGenerator<Subscription> {
  let token: string | undefined;
  do {
    const url = `${api.root}/getsubs?limit=${PAGE_LIMIT}${token === undefined ? '' : `&page_token=${encodeURIComponent(token)}`}`;
    const answer = await api.client.document(url, { headers: api.headers, signal: api.signal });
    if (answer.status !== 200) throw refusalOf(answer.status, answer.text, 'the list of subscriptions', api.host);
    const page = parseJson<SubscriptionPage>(answer.text, url);
    yield* page.data ?? [];
    token = page.has_more && page.next_page_token !== undefined ? String(page.next_page_token) : undefined;
  } while (token !== undefined);
}

async function findSubscription(api: Api, group: string): Promise<Subscription> {
  for await (const sub of subscriptions(api)) if (sub.group_name.toLowerCase() === group.toLowerCase()) return sub;
  throw new ArchiveError(
    `The account of the API key is not subscribed to ${group} on ${api.host}, and groups.io gives a group's archive to its members only.`,
    'permanent',
  );
}

async function refusal(answer: HttpBody, group: string): Promise<ArchiveError> {
  const chunks: Buffer[] = [];
  for await (const chunk of answer.body) chunks.push(chunk);
  return refusalOf(
    answer.status,
    Buffer.concat(chunks).toString('utf8'),
    `the archive of ${group}`,
    new URL(answer.url).hostname,
  );
}

/** groups.io answers errors with a JSON error object whose `type` says what went wrong. */
function refusalOf(status: number, text: string, what: string, host: string): ArchiveError {
  let type: string | undefined;
  try {
    type = (JSON.parse(text) as { type?: string }).type;
  } catch {
    type = undefined;
  }
  const said = type ? ` (${type})` : '';
  if (status === 401 || type === 'unauthorized' || type === 'not_logged_in' || type === 'bad_token') {
    return new ArchiveError(
      `${host} refused the API key${said}: set a valid one in ${GROUPSIO_TOKEN_ENV} or the config file's mail_accounts.`,
      'permanent',
    );
  }
  return new ArchiveError(`${host} refused ${what}: HTTP ${status}${said}.`, 'permanent');
}

function parseJson<T>(text: string, url: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ArchiveError(`${url} did not return JSON.`, 'permanent');
  }
}
