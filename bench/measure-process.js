/**
 * Runs a Node script (the CLI's bin/run.js) in this process and, when the
 * process exits however it exits, writes what it used to the file named by
 * LISTMINER_BENCH_USAGE: peak resident set size (worker threads included;
 * child processes such as git are not), CPU seconds, and, where Linux's
 * /proc tells, the CPU seconds of the main thread alone: the thread that
 * reads the archive and writes the store, which a busy machine slows
 * less than it slows the wall clock.
 *
 *   LISTMINER_BENCH_USAGE=usage.json node bench/measure-process.js bin/run.js fetch --db …
 */
import { readFileSync, writeFileSync } from 'node:fs';
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
        mainThreadSeconds: mainThreadSeconds(),
      }),
    );
  });
}
/** utime + stime of the thread whose id is the process's (proc(5): fields 14 and 15, in clock ticks of 1/100 s). */
function mainThreadSeconds() {
  try {
    const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces; the fields after it are plain.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

// The script sees the command line it would have seen run directly.
process.argv.splice(1, 1);
await import(pathToFileURL(resolve(process.argv[1])).href);
