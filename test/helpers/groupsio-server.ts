import type { ServerResponse } from 'node:http';
import { crc32, deflateRawSync } from 'node:zlib';
import { send, startArchiveServer, type ArchiveServer } from './archive-server.js';

/** A group as the look-alike holds it: its numeric id, its messages (raw RFC 822) and whether members may download its archive. */
export interface LookalikeGroup {
  id: number;
  /** Each message's bytes; a string is taken as ASCII. */
  messages: Array<string | Buffer>;
  downloadArchives?: boolean;
}

export interface GroupsioServer extends ArchiveServer {
  /** The Authorization header of every request, in order. */
  authorizations: Array<string | undefined>;
  groups: Map<string, LookalikeGroup>;
  /** Posts a message to a group (its archive has it from the next download on). */
  post(group: string, raw: string | Buffer): void;
  /** Deletes the group's message with this Message-ID, as a moderator deleting it from the archive. */
  remove(group: string, messageId: string): void;
  /** Answers every `every`-th API request with 429 and Retry-After: 1 (0 turns it off). */
  rateLimitEvery(every: number): void;
  /** 429s answered so far. */
  rateLimited: number;
}

/**
 * The part of the groups.io API listminer reads (https://groups.io/api), on
 * 127.0.0.1: `GET /api/v1/getsubs` (the key's subscriptions, paged with
 * `limit`, `page_token`, `has_more` and `next_page_token`) and `GET
 * /api/v1/downloadarchives?group_id=N` (a zip holding the group's mbox). A
 * request without the right `Authorization: Bearer KEY` gets 401 and
 * groups.io's error object; a rate-limited one 429 with Retry-After and the
 * X-RateLimit headers.
 */
export async function startGroupsioServer(options: {
  token: string;
  groups: Record<string, LookalikeGroup>;
  pageSize?: number;
}): Promise<GroupsioServer> {
  const pageSize = options.pageSize ?? 1;
  const groups = new Map(Object.entries(options.groups));
  const authorizations: Array<string | undefined> = [];
  let every = 0;
  let count = 0;
  const server = await startArchiveServer((url, response, request) => {
    authorizations.push(request.headers.authorization);
    count++;
    if (every > 0 && count % every === 0) {
      lookalike.rateLimited++;
      return sendJson(response, { object: 'error', type: 'rate_limited' }, 429, {
        'retry-after': '1',
        'x-ratelimit-limit': '60',
        'x-ratelimit-remaining': '0',
      });
    }
    if (request.headers.authorization !== `Bearer ${options.token}`)
      return sendJson(response, { object: 'error', type: 'unauthorized' }, 401);
    if (url.pathname === '/api/v1/getsubs') {
      const start = Number(url.searchParams.get('page_token') ?? '0');
      const limit = Math.min(pageSize, Number(url.searchParams.get('limit') ?? pageSize));
      const all = [...groups].map(([name, group]) => ({
        object: 'member_info',
        id: 500_000 + group.id,
        group_id: group.id,
        group_name: name,
        status: 'normal',
        perms: { archives_visible: true, download_archives: group.downloadArchives ?? true },
      }));
      const data = all.slice(start, start + limit);
      const more = start + limit < all.length;
      return sendJson(response, {
        object: 'list',
        total_count: all.length,
        start_item: start + 1,
        end_item: start + data.length,
        has_more: more,
        next_page_token: more ? start + limit : 0,
        data,
      });
    }
    if (url.pathname === '/api/v1/downloadarchives') {
      const id = Number(url.searchParams.get('group_id'));
      const group = [...groups.values()].find((entry) => entry.id === id);
      if (!group) return sendJson(response, { object: 'error', type: 'bad_request', extra: 'group_id' }, 400);
      if (group.downloadArchives === false)
        return sendJson(response, { object: 'error', type: 'inadequate_permissions' }, 400);
      return send(response, 200, zipOf('messages.mbox', mboxOf(group.messages)), { 'content-type': 'application/zip' });
    }
    return sendJson(response, { object: 'error', type: 'bad_request' }, 400);
  });
  const lookalike: GroupsioServer = Object.assign(server, {
    authorizations,
    groups,
    rateLimited: 0,
    post: (group: string, raw: string | Buffer) => groups.get(group)!.messages.push(raw),
    remove: (group: string, messageId: string) => {
      const entry = groups.get(group)!;
      entry.messages = entry.messages.filter((raw) => !raw.includes(`Message-ID: ${messageId}`));
    },
    rateLimitEvery: (n: number) => {
      every = n;
      count = 0;
    },
  });
  return lookalike;
}

function sendJson(response: ServerResponse, body: unknown, status = 200, headers: Record<string, string> = {}): void {
  send(response, status, JSON.stringify(body), { 'content-type': 'application/json', ...headers });
}

/** The messages as an mbox (mboxrd: a body line starting with `From ` gets a `>`), byte for byte. */
function mboxOf(messages: Array<string | Buffer>): Buffer {
  const text = messages.map((raw) => (typeof raw === 'string' ? raw : raw.toString('latin1')));
  return Buffer.from(
    text
      .map(
        (raw) =>
          `From groups.io Mon Jan  1 00:00:00 2024\n${raw.replace(/^(>*From )/gm, '>$1').replace(/\n*$/, '\n')}\n`,
      )
      .join(''),
    'latin1',
  );
}

/** A zip file of one deflated entry, as a zip writer lays it out: local header, data, central directory, end record. */
export function zipOf(name: string, content: Buffer): Buffer {
  const data = deflateRawSync(content);
  const nameBytes = Buffer.from(name);
  const crc = crc32(content);
  // Offsets, widths and values of the fields each record sets (the others are zero).
  const local = record(30, [
    [0, 4, 0x04034b50],
    [4, 2, 20],
    [8, 2, 8],
    [14, 4, crc],
    [18, 4, data.length],
    [22, 4, content.length],
    [26, 2, nameBytes.length],
  ]);
  const central = record(46, [
    [0, 4, 0x02014b50],
    [4, 2, 20],
    [6, 2, 20],
    [10, 2, 8],
    [16, 4, crc],
    [20, 4, data.length],
    [24, 4, content.length],
    [28, 2, nameBytes.length],
  ]);
  const centralAt = local.length + nameBytes.length + data.length;
  const end = record(22, [
    [0, 4, 0x06054b50],
    [8, 2, 1],
    [10, 2, 1],
    [12, 4, central.length + nameBytes.length],
    [16, 4, centralAt],
  ]);
  return Buffer.concat([local, nameBytes, data, central, nameBytes, end]);
}

function record(size: number, fields: Array<[offset: number, width: 2 | 4, value: number]>): Buffer {
  const bytes = Buffer.alloc(size);
  for (const [offset, width, value] of fields) {
    if (width === 2) bytes.writeUInt16LE(value, offset);
    else bytes.writeUInt32LE(value, offset);
  }
  return bytes;
}

/** A message as groups.io delivers it to a group's members: its List-Id and list headers, dated `date`. */
export function groupsioMessage(messageId: string, date: Date, group: string): string {
  return (
    `Date: ${date.toUTCString().replace('GMT', '+0000')}\nFrom: "Jane Doe" <jane@example.org>\nTo: ${group}@groups.io\n` +
    `Subject: [${group}] about ${messageId.split('@')[0]}\nMessage-ID: <${messageId}>\nList-Id: <${group}.groups.io>\n` +
    `Mailing-List: list ${group}@groups.io; contact ${group}+owner@groups.io\nSender: ${group}@groups.io\n\n` +
    `Body of ${messageId}.\nFrom here on a line starts with From.\n`
  );
}
