/**
 * Two end-to-end benchmark results side by side (docs/performance.md):
 *
 *   node bench/compare.js bench/results/BEFORE.json bench/results/AFTER.json
 *
 * For each engine, worker count and stage found in both: wall seconds, CPU
 * seconds, peak RSS and store bytes, before → after, with after ÷ before.
 * The Python baseline of each run is shown too: when it moved, the machine
 * was busier or quieter, and wall-clock ratios carry that with them.
 */
import { readFileSync } from 'node:fs';
import Table from 'cli-table3';

const [beforePath, afterPath] = process.argv.slice(2);
if (!beforePath || !afterPath) {
  console.error('usage: node bench/compare.js BEFORE.json AFTER.json');
  process.exit(2);
}
const before = JSON.parse(readFileSync(beforePath, 'utf8'));
const after = JSON.parse(readFileSync(afterPath, 'utf8'));

for (const [name, report] of [
  ['before', before],
  ['after', after],
]) {
  const o = report.options;
  console.log(
    `${name}: commit ${report.machine.commit}${report.machine.dirty ? '+' : ''}, ${o.messages} ${o.source} messages as ${o.format}, ${(report.archive.mboxBytes / 1e6).toFixed(1)} MB, load ${report.machine.loadAverage.join(' ')}`,
  );
}
if (JSON.stringify(shape(before)) !== JSON.stringify(shape(after)))
  console.log('note: the two runs measured different archives; compare with care');

if (!before.baseline?.skipped && !after.baseline?.skipped) {
  console.log(
    `Python baseline: ${Math.round(before.baseline.msgPerSec)} → ${Math.round(after.baseline.msgPerSec)} msg/s (${ratio(after.baseline.msgPerSec, before.baseline.msgPerSec)})`,
  );
}

for (const run of after.runs) {
  const old = before.runs.find((r) => r.engine === run.engine && r.workers === run.workers);
  if (!old) continue;
  const table = new Table({
    head: [
      'stage',
      'wall s',
      'after/before',
      'CPU s',
      'after/before',
      'main CPU s',
      'after/before',
      'peak RSS MB',
      'store MB',
    ],
    colAligns: ['left', 'right', 'right', 'right', 'right', 'right', 'right', 'right', 'right'],
    style: { head: [], border: [], compact: true },
  });
  const pairs = [
    ...run.stages.map((stage) => [stage, old.stages.find((s) => s.stage === stage.stage)]),
    [run.sync, old.sync],
    [run.verify, old.verify],
  ];
  for (const [now, was] of pairs) {
    if (!now || !was) continue;
    table.push([
      now.stage,
      `${was.wallSeconds.toFixed(1)} → ${now.wallSeconds.toFixed(1)}`,
      ratio(now.wallSeconds, was.wallSeconds),
      `${was.cpuSeconds.toFixed(1)} → ${now.cpuSeconds.toFixed(1)}`,
      ratio(now.cpuSeconds, was.cpuSeconds),
      // Runs written before the main thread's CPU was measured have none.
      now.mainCpuSeconds !== undefined && was.mainCpuSeconds !== undefined
        ? `${was.mainCpuSeconds.toFixed(1)} → ${now.mainCpuSeconds.toFixed(1)}`
        : '',
      now.mainCpuSeconds !== undefined && was.mainCpuSeconds !== undefined
        ? ratio(now.mainCpuSeconds, was.mainCpuSeconds)
        : '',
      `${mb(was.maxRssBytes)} → ${mb(now.maxRssBytes)}`,
      `${mb(was.storeBytes)} → ${mb(now.storeBytes)}`,
    ]);
  }
  console.log(`\n${run.engine}, --workers ${run.workers}`);
  console.log(table.toString());
}

function shape(report) {
  const { messages, source, format, seed } = report.options;
  return {
    messages,
    source,
    format,
    seed: source === 'synthetic' ? seed : undefined,
    mboxBytes: report.archive.mboxBytes,
  };
}

function ratio(now, was) {
  return `${(now / was).toFixed(2)}x`;
}

function mb(bytes) {
  return (bytes / 1e6).toFixed(0);
}
