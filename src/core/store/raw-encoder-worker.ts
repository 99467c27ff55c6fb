import { parentPort } from 'node:worker_threads';
import { encodeRaw, type RawCodec } from './raw-codec.js';

/**
 * A batch of messages, end to end in one buffer, each `lengths[i]` bytes long.
 * One buffer each way, moved rather than copied: a message is often a slice
 * of a larger read buffer, and posting the slice would copy all of it.
 */
export interface PackedBatch {
  seq: number;
  packed: Uint8Array;
  lengths: number[];
}

/** The batch compressed (RawEncoder): each message's stored bytes, end to end, and its codec. */
export interface EncodeReply extends PackedBatch {
  codecs: (RawCodec | null)[];
}

/** Messages end to end in one buffer of their own, which can be moved to another thread. */
export function pack(seq: number, messages: readonly Uint8Array[]): PackedBatch {
  const packed = Buffer.allocUnsafeSlow(messages.reduce((sum, message) => sum + message.byteLength, 0));
  let at = 0;
  for (const message of messages) {
    packed.set(message, at);
    at += message.byteLength;
  }
  return { seq, packed, lengths: messages.map((message) => message.byteLength) };
}

/** The messages of a packed batch, as views of its buffer. */
export function unpack({ packed, lengths }: Pick<PackedBatch, 'packed' | 'lengths'>): Buffer[] {
  let at = packed.byteOffset;
  return lengths.map((length) => {
    const message = Buffer.from(packed.buffer, at, length);
    at += length;
    return message;
  });
}

parentPort?.on('message', ({ seq, packed, lengths }: PackedBatch) => {
  const stored = unpack({ packed, lengths }).map(encodeRaw);
  const reply: EncodeReply = { ...pack(seq, stored.map(({ bytes }) => bytes)), codecs: stored.map(({ codec }) => codec) };
  parentPort!.postMessage(reply, [reply.packed.buffer as ArrayBuffer]);
});
