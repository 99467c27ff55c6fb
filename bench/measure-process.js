/**
 * Runs a Node script (the CLI's bin/run.js) in this process and, when the
 * process exits however it exits, writes what it used to the file named by
 * LISTMINER_BENCH_USAGE: peak resident set size (worker threads included;
 * child processes such as git are not) and CPU seconds.
 *
 *   LISTMINER_BENCH_USAGE=usage.json node bench/measure-process.js bin/run.js fetch --db …
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const target = process.env.LISTMINER_BENCH_USAGE;
if (target) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      target,
      JSON.stringify({
        maxRssBytes: usage.maxRSS * 1024,
        userSeconds: usage.userCPUTime / 1e6,
        systemSeconds: usage.systemCPUTime / 1e6,
      }),
    );
  });
}
// The script sees the command line it would have seen run directly.
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(process.argv[1])).href);
