// libmime 5.x ships no types; this is the part listminer uses.
declare module 'libmime' {
  /** Decodes every RFC 2047 encoded word in a header value into text. */
  export function decodeWords(value: string): string;
  /** A structured header value (`text/plain; charset=utf-8`): the value and its parameters, RFC 2231 continuations joined and decoded, names lower-cased. */
  export function parseHeaderValue(value: string): { value: string; params: Record<string, string> };
  /** The MIME type a file extension (no dot) names, application/octet-stream when unknown. */
  export function detectMimeType(extension: string): string;
  /** Undoes format=flowed (RFC 3676) on text held one character a byte; `delSp` for DelSp=yes. */
  export function decodeFlowed(text: string, delSp?: boolean): string;
  const libmime: {
    decodeWords: typeof decodeWords;
    parseHeaderValue: typeof parseHeaderValue;
    detectMimeType: typeof detectMimeType;
    decodeFlowed: typeof decodeFlowed;
  };
  export default libmime;
}
