// Classify micro benchmark: `npm run bench:classify` (builds first). Prints medians of
// several runs of each step, measured in the same process, and the ratios
// between them. Not a test: numbers depend on the machine.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { cpus } from 'node:os';
import { generateMbox } from './generate-mbox.js';

const dist = new URL('../dist/', import.meta.url);
const { parseEnvelope, parseEnvelopeWithMailparser, readerCounts } = await import(
  new URL('core/classify/parse-envelope.js', dist)
);
const { classifyMessages } = await import(new URL('core/classify/classify-message.js', dist));
const { loadRuleBook } = await import(new URL('core/classify/rule-set.js', dist));
const { loadSystems } = await import(new URL('core/systems/load-systems.js', dist));
const { splitMboxBuffer } = await import(new URL('core/archive/mbox-reader.js', dist));

const COUNT = Number(process.env.BENCH_MESSAGES ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function measure(name, fn) {
  const rates = [];
  for (let run = 0; run < RUNS; run++) {
    const began = process.hrtime.bigint();
    const outcome = await fn();
    // A step may time only part of its work and say so: { done, seconds }.
    const seconds = typeof outcome === 'number' ? Number(process.hrtime.bigint() - began) / 1e9 : outcome.seconds;
    rates.push((typeof outcome === 'number' ? outcome : outcome.done) / seconds);
  }
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)];
  console.log(`${name.padEnd(48)} ${Math.round(median).toLocaleString('en-US').padStart(9)} msg/s`);
  return median;
}

console.log(
  `listminer classify benchmark: ${COUNT.toLocaleString('en-US')} synthetic messages, median of ${RUNS} runs, ${cpus().length} CPUs, Node ${process.version}\n`,
);
const mbox = generateMbox(COUNT);
const mboxBytes = Buffer.from(mbox);
const messages = splitMboxBuffer(mboxBytes);
const rules = loadRuleBook(loadSystems()).rulesOf('apache_ponymail');

const splitRate = await measure('split mbox (mbox reader)', () => splitMboxBuffer(mboxBytes).length);
const mailparserRate = await measure('envelope, mailparser only', async () => {
  for (const raw of messages) await parseEnvelopeWithMailparser(raw);
  return messages.length;
});
const envelopeRate = await measure('envelope, own reader + mailparser for MIME', async () => {
  for (const raw of messages) await parseEnvelope(raw);
  return messages.length;
});
// Which reader took each message of one pass, and why the rest went to mailparser.
const readers = readerCounts();
const fallbacks = Object.entries(readers.mailparser)
  .filter(([, count]) => count > 0)
  .map(([reason, count]) => `${reason} ${count / RUNS}`);
console.log(
  `${'  read by our reader'.padEnd(48)} ${((100 * readers.common) / RUNS / messages.length).toFixed(1).padStart(9)} %${fallbacks.length > 0 ? ` (mailparser: ${fallbacks.join(', ')})` : ''}`,
);
const classifyRate = await measure('envelope + rules (one thread)', async () => {
  // In batches of 500, as the stage does: the rules of a batch run in one timed call (match-within-budget.ts).
  for (let i = 0; i < messages.length; i += 500) await classifyMessages(messages.slice(i, i + 500), rules);
  return messages.length;
});

// The stage runs in a fresh process each time, cold as the CLI runs, so
// the main thread is not favoured by the warm-up the steps above gave it.
const stageRates = {};
for (const workers of [1, 2]) {
  stageRates[workers] = await measure(
    `classify stage into SQLite, ${workers === 1 ? 'main thread only' : `${workers} workers`}`,
    () => {
      const out = execFileSync(
        process.execPath,
        [fileURLToPath(new URL('stage.js', import.meta.url)), String(workers)],
        { env: { ...process.env, BENCH_MESSAGES: String(COUNT) } },
      );
      return JSON.parse(out.toString());
    },
  );
}

console.log('\nratios');
console.log(`  own reader vs mailparser only:       ${(envelopeRate / mailparserRate).toFixed(2)}x`);
console.log(`  rules cost (envelope → +rules):      ${(classifyRate / envelopeRate).toFixed(2)}x`);
console.log(`  stage, 2 workers vs main thread:             ${(stageRates[2] / stageRates[1]).toFixed(2)}x`);
console.log(`  split vs classify stage (2 workers): ${(splitRate / stageRates[2]).toFixed(1)}x`);
