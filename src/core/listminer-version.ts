import { readFileSync } from 'node:fs';

/** listminer's version (package.json): the User-Agent names it, and every label records it. */
export const LISTMINER_VERSION = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
