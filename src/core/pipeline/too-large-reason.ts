/**
 * Why a message was shunted unparsed: larger than max_message_bytes. Fetch
 * stages such a message with its bytes and this reason; classify shunts any
 * row over the cap with it too, without reading its bytes (docs/fetch.md).
 */
export function tooLargeReason(size: number, maxBytes: number): string {
  return `too large to parse: ${size} bytes, over max_message_bytes (${maxBytes}); its raw bytes are kept`;
}
