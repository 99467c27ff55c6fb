import { setFlagsFromString } from 'node:v8';

/**
 * How far V8's heap may grow past what was alive after its last full
 * collection before it collects again, in percent (100: to twice the live
 * size). Left to itself, V8 picks a factor of up to 4 on a machine with
 * plenty of memory; a stage's live data is 20–50 MB, but each batch it
 * carries across a database round trip survives into the old generation and
 * dies there, so `sync` peaked at 270–330 MB of which a third was garbage.
 * At 100 the same runs peak at 200–220 MB; the extra collections cost
 * PostgreSQL `sync` of 100,000 messages 7–11% of its time and SQLite none
 * measurable (docs/performance.md, "V8's heap growth capped").
 */
export const HEAP_GROWING_PERCENT = 100;

const FLAG = '--heap-growing-percent';

/**
 * Sets V8's heap growing factor for this process and the worker threads it
 * starts, unless node was started with one (`node --heap-growing-percent=300
 * bin/run.js …`), which then stands. NODE_OPTIONS cannot carry the flag:
 * node refuses it there.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): void {
  const chosen = execArgv.some((arg) => arg.replaceAll('_', '-').startsWith(FLAG));
  if (!chosen) setFlagsFromString(`${FLAG}=${HEAP_GROWING_PERCENT}`);
}
