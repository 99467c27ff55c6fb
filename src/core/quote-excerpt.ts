/**
 * `text` in quotes for a sentence, its first `limit` characters only when it
 * is longer, saying so: a line of a file can be megabytes long, and an error
 * that echoes it whole buries the sentence.
 */
export function quoteExcerpt(text: string, limit = 80): string {
  if (text.length <= limit) return `"${text}"`;
  return `"${text.slice(0, limit)}…" (the first ${limit} of ${text.length.toLocaleString('en-US')} characters)`;
}
