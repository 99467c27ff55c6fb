import type { Envelope } from '../classify/envelope.js';

/**
 * The Message-IDs a message names as its ancestors, oldest first: References
 * in header order, then In-Reply-To when References did not already name it.
 * Classify normalizes both, but old mailers wrote RFC 822 forms such as
 * `In-Reply-To: Your message of "Mon, 1 Jan" <id@host>`, so any value that
 * still carries angle brackets is read for the ids inside them, and a bare
 * value is only taken when it looks like one id.
 */
const MAX_ANCESTORS = 200;

export function threadAncestors(
  envelope: Pick<Envelope, 'references' | 'inReplyTo' | 'messageId'>,
  ownKey: string,
): string[] {
  const out: string[] = [];
  const seen = new Set<string>([ownKey]);
  if (envelope.messageId) seen.add(envelope.messageId);
  const add = (value: unknown) => {
    if (typeof value !== 'string') return;
    for (const id of idsIn(value)) {
      if (seen.has(id) || out.length >= MAX_ANCESTORS) continue;
      seen.add(id);
      out.push(id);
    }
  };
  for (const reference of Array.isArray(envelope.references) ? envelope.references : []) add(reference);
  add(envelope.inReplyTo);
  return out;
}

function idsIn(value: string): string[] {
  if (value.includes('<')) {
    return [...value.matchAll(/<([^<>]+)>/g)]
      .map((m) => m[1]!.replace(/\s+/g, ''))
      .filter((id) => id.length > 0 && id.length <= 995);
  }
  const bare = value.trim();
  if (bare.length === 0 || bare.length > 995) return [];
  if (!/\s/.test(bare)) return [bare];
  // A phrase without brackets: keep only the words that look like ids.
  return bare.split(/\s+/).filter((word) => /^[^@\s"]+@[^@\s"]+$/.test(word));
}
