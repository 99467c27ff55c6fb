import { TRAILER_KINDS, type Trailer, type TrailerKind } from './envelope.js';
import { readPerson } from './header-values.js';

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
