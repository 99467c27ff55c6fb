import { Listr, ListrLogger, ProcessOutput } from 'listr2';
import type { ProgressEvent, ProgressListener } from '../core/progress.js';

export type ProgressMode = 'tty' | 'plain' | 'silent';

/** Bars on a terminal, timestamped lines in cron and CI, nothing under --quiet or --json. */
export function chooseProgressMode(options: { quiet?: boolean; json?: boolean; stream?: NodeJS.WriteStream }): ProgressMode {
  if (options.quiet || options.json) return 'silent';
  return (options.stream ?? process.stderr).isTTY ? 'tty' : 'plain';
}

interface TaskLine {
  title: string;
  done?: number;
  total?: number;
  detail?: string;
  status?: 'done' | 'failed' | 'skipped';
  lastPrinted?: number;
}

function describe(line: TaskLine): string {
  const count = line.total ? `${line.done ?? 0}/${line.total}` : line.done !== undefined ? `${line.done}` : '';
  return [line.title, count, line.detail].filter(Boolean).join('  ');
}

const MARK = { done: '✔', failed: '✖', skipped: '↓' } as const;

/**
 * Runs `work`, showing the events it emits. On a terminal one listr2 task
 * shows a line per unit of work; elsewhere each start, end and log is one
 * timestamped line on stderr, and updates at most every `plainEveryMs`.
 */
export async function runWithProgress<T>(
  title: string,
  mode: ProgressMode,
  work: (progress: ProgressListener) => Promise<T>,
  options: { plainEveryMs?: number; write?: (line: string) => void } = {},
): Promise<T> {
  if (mode === 'silent') return work(() => {});
  const lines = new Map<string, TaskLine>();
  const apply = (event: ProgressEvent): TaskLine | undefined => {
    if (event.type === 'log') return undefined;
    const line = lines.get(event.task) ?? { title: event.task };
    if (event.type === 'start') Object.assign(line, { title: event.title, total: event.total, status: undefined });
    if (event.type === 'update') {
      if (event.done !== undefined) line.done = event.done;
      if (event.total !== undefined) line.total = event.total;
      if (event.detail !== undefined) line.detail = event.detail;
    }
    if (event.type === 'end') Object.assign(line, { status: event.status, detail: event.detail ?? line.detail });
    lines.set(event.task, line);
    return line;
  };

  if (mode === 'plain') {
    const write = options.write ?? ((text: string) => process.stderr.write(`${text}\n`));
    const every = options.plainEveryMs ?? 10_000;
    const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
    return work((event) => {
      if (event.type === 'log') return write(`${stamp()} ${title}: ${event.level === 'warn' ? 'warning: ' : ''}${event.message}`);
      const line = apply(event)!;
      const now = Date.now();
      if (event.type === 'update' && line.lastPrinted !== undefined && now - line.lastPrinted < every) return;
      line.lastPrinted = now;
      const state = event.type === 'start' ? 'started' : event.type === 'end' ? event.status : '';
      write(`${stamp()} ${title}: ${describe(line)}${state ? ` (${state})` : ''}`);
    });
  }

  let result: T | undefined;
  const logs: string[] = [];
  const output = new ProcessOutput(process.stderr, process.stderr);
  const listr = new Listr(
    [
      {
        title,
        task: async (_ctx, task) => {
          const render = () => {
            const body = [...lines.values()].map((line) => `${line.status ? MARK[line.status] : '…'} ${describe(line)}`);
            task.output = [...body, ...logs.slice(-5)].join('\n');
          };
          let timer: NodeJS.Timeout | undefined;
          result = await work((event) => {
            if (event.type === 'log') logs.push(`${event.level === 'warn' ? '⚠ ' : ''}${event.message}`);
            else apply(event);
            timer ??= setTimeout(() => {
              timer = undefined;
              render();
            }, 100);
          });
          if (timer) clearTimeout(timer);
          render();
        },
        rendererOptions: { persistentOutput: true, outputBar: 1 },
      },
    ],
    { rendererOptions: { logger: new ListrLogger({ processOutput: output }) }, exitOnError: true, registerSignalListeners: false },
  );
  await listr.run();
  return result as T;
}
