// libmime 5.x ships no types; this is the part listminer uses.
declare module 'libmime' {
  /** Decodes every RFC 2047 encoded word in a header value into text. */
  export function decodeWords(value: string): string;
  const libmime: { decodeWords: typeof decodeWords };
  export default libmime;
}
