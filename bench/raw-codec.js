// Raw-codec micro benchmark: `npm run bench:raw-codec` (builds first). Compresses and
// decompresses each message of an archive one at a time, as fetch stores it
// and classify, drain and render read it, with listminer's codec
// (src/core/store/raw-codec.ts) and the candidates beside it, in interleaved
// rounds of the same process. Prints the median of each and its ratio to
// listminer's. Not a test: numbers depend on the machine.
//
//   node bench/raw-codec.js [--messages N] [--source corpus|synthetic] [--rounds N]
import { parseArgs } from 'node:util';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { Compressor, Decompressor } from 'zstd-napi';
import { corpusMissing } from './corpus-archive.js';
import { archiveMessages } from './write-archive.js';

const { values } = parseArgs({
  options: {
    messages: { type: 'string', default: '30000' },
    source: { type: 'string', default: 'corpus' },
    rounds: { type: 'string', default: '3' },
  },
});
if (values.source === 'corpus' && corpusMissing()) {
  console.error(`${corpusMissing()}; try --source synthetic`);
  process.exit(2);
}
const { encodeRaw, decodeRaw } = await import(new URL('../dist/core/store/raw-codec.js', import.meta.url));

function zstdAt(level) {
  const compressor = new Compressor();
  compressor.setParameters({ compressionLevel: level });
  const decompressor = new Decompressor();
  return { encode: (raw) => compressor.compress(raw), decode: (bytes) => decompressor.decompress(bytes) };
}

const codecs = {
  listminer: {
    encode: (raw) => encodeRaw(raw),
    decode: (stored) => decodeRaw(stored.bytes, stored.codec),
    size: (stored) => stored.bytes.length,
  },
  'deflate level 1 (before migration 024)': {
    encode: (raw) => deflateRawSync(raw, { level: 1, chunkSize: Math.max(64, Math.ceil(raw.length / 2)) }),
    decode: (bytes) => inflateRawSync(bytes),
  },
  'zstd level 1': zstdAt(1),
  'zstd level 2': zstdAt(2),
  'zstd level 3 (zstd default)': zstdAt(3),
};

const messages = [];
for (const item of await archiveMessages({ source: values.source, messages: Number(values.messages) }))
  messages.push(item.raw);
const rawBytes = messages.reduce((sum, raw) => sum + raw.length, 0);

const timings = Object.fromEntries(Object.keys(codecs).map((name) => [name, { encode: [], decode: [], stored: 0 }]));
for (let round = 0; round < Number(values.rounds); round++) {
  for (const [name, codec] of Object.entries(codecs)) {
    const stored = new Array(messages.length);
    let began = process.hrtime.bigint();
    for (let i = 0; i < messages.length; i++) stored[i] = codec.encode(messages[i]);
    timings[name].encode.push(Number(process.hrtime.bigint() - began) / 1e9);
    began = process.hrtime.bigint();
    for (const form of stored) codec.decode(form);
    timings[name].decode.push(Number(process.hrtime.bigint() - began) / 1e9);
    timings[name].stored = stored.reduce((sum, form) => sum + (codec.size ? codec.size(form) : form.length), 0);
  }
}

const median = (seconds) => [...seconds].sort((a, b) => a - b)[Math.floor(seconds.length / 2)];
const ours = timings.listminer;
console.log(
  `raw codecs: ${messages.length.toLocaleString('en-US')} ${values.source} messages (${(rawBytes / 1e6).toFixed(1)} MB), one at a time, median of ${values.rounds} interleaved rounds, Node ${process.version}\n`,
);
console.log(
  `${'codec'.padEnd(40)} ${'stored'.padStart(7)} ${'compress MB/s'.padStart(14)} ${'× ours'.padStart(7)} ${'decompress MB/s'.padStart(16)} ${'× ours'.padStart(7)}`,
);
for (const [name, timing] of Object.entries(timings)) {
  const encode = median(timing.encode);
  const decode = median(timing.decode);
  console.log(
    `${name.padEnd(40)} ${(timing.stored / rawBytes).toFixed(4).padStart(7)} ${(rawBytes / 1e6 / encode).toFixed(0).padStart(14)} ${(median(ours.encode) / encode).toFixed(2).padStart(7)} ${(rawBytes / 1e6 / decode).toFixed(0).padStart(16)} ${(median(ours.decode) / decode).toFixed(2).padStart(7)}`,
  );
}
