import { hash } from 'node:crypto';
import { basename } from 'node:path';
import { BACKENDS, isBackendName } from '../systems/backend-names.js';

/** RFC 4648 base32, lower-cased: letters and digits only, safe in any file system and URL. */
const ALPHABET = 'abcdefghijklmnopqrstuvwxyz234567';

/** Length of a call number: 10 base32 characters are 50 bits, so a million messages of one site collide with odds under one in a billion. */
export const CALL_NUMBER_LENGTH = 10;

function base32(bytes: Uint8Array, length: number): string {
  let out = '';
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5 && out.length < length) {
      out += ALPHABET[(buffer >>> (bits - 5)) & 31];
      bits -= 5;
    }
    buffer &= (1 << bits) - 1;
    if (out.length >= length) break;
  }
  return out;
}

/**
 * The name a list is known by on every machine: its address or inbox name,
 * or, for a local mbox or Maildir (registered by absolute path), the file or
 * folder's own name, so a copy of the archive elsewhere renders the same
 * addresses.
 */
export function listKey(list: { system: string; name: string }): string {
  const local = isBackendName(list.system) && BACKENDS[list.system].locator === 'path';
  return local ? basename(list.name) : list.name;
}

/** A message's call number: base32 of SHA-256 over its list's key and its message key (`hash`, not a Hash object: a few times less CPU for one short text, and every render makes one per message). */
export function callNumber(listKeyText: string, messageKey: string): string {
  return base32(hash('sha256', `${listKeyText}\n${messageKey}`, 'buffer'), CALL_NUMBER_LENGTH);
}

/** The folder name of a list's pages: its key made safe for a path, and a short hash that keeps two lists of one name apart. */
export function listSlug(list: { system: string; name: string }): string {
  const key = listKey(list);
  const readable =
    key
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 48) || 'list';
  return `${readable}-${base32(hash('sha256', `${list.system}\n${key}`, 'buffer'), 4)}`;
}

/** The shard folder of a call number: its first two characters (1,024 folders), so no folder grows past a few thousand files. */
export function shard(call: string): string {
  return call.slice(0, 2);
}
