import { TRAILER_KINDS, type Trailer, type TrailerKind } from './envelope.js';

const TRAILER_LINE = new RegExp(`^(${TRAILER_KINDS.join('|')})\\s*:\\s*(.*)$`, 'i');
const CANONICAL = new Map<string, TrailerKind>(TRAILER_KINDS.map((kind) => [kind.toLowerCase(), kind]));

/**
 * The trailers a message itself gives (Reviewed-by and kin). Quoted lines
 * are the earlier author's, and anything after a "-- " signature line is
 * not part of the message, so neither counts.
 */
export function readTrailers(body: string): Trailer[] {
  const trailers: Trailer[] = [];
  for (const line of body.split('\n')) {
    const text = line.replace(/\r$/, '');
    if (text === '-- ' || text === '--') break;
    const match = TRAILER_LINE.exec(text.trim());
    if (!match || text.trimStart().startsWith('>')) continue;
    trailers.push({ kind: CANONICAL.get(match[1]!.toLowerCase())!, ...readPerson(match[2]!) });
  }
  return trailers;
}

/** `Jane Doe <Jane@Example.org>`, `jane@example.org (Jane)`, or a bare name. */
export function readPerson(text: string): { name: string | null; address: string | null } {
  const value = text.trim();
  // RFC 5322 comments may sit even inside the address: `Pete <pete(his account)@silly.test(his host)>`.
  const bracketed = /^(.*?)\s*<((?:[^<>()\s]|\((?:\\.|[^()\\])*\))+)>/.exec(value);
  if (bracketed) return { name: cleanName(bracketed[1]!), address: bracketed[2]!.replace(/\((?:\\.|[^()\\])*\)/g, '').toLowerCase() || null };
  const bare = /^([^\s<>()]+@[^\s<>()]+)\s*(?:\((.*)\))?/.exec(value);
  if (bare) return { name: cleanName(bare[2] ?? ''), address: bare[1]!.toLowerCase() };
  return { name: cleanName(value), address: null };
}

function cleanName(name: string): string | null {
  const trimmed = name.replace(/^["\s]+|["\s]+$/g, '').replace(/\\(.)/g, '$1').replace(/\s+/g, ' ');
  return trimmed.length > 0 ? trimmed : null;
}
