import type { ListrTask, ProcessOutput } from 'listr2';
import type { ProgressEvent, ProgressListener } from '../core/progress.js';

export type ProgressMode = 'tty' | 'plain' | 'silent';

/** Bars on a terminal, timestamped lines in cron and CI, nothing under --quiet or --json. */
export function chooseProgressMode(options: {
  quiet?: boolean;
  json?: boolean;
  stream?: NodeJS.WriteStream;
}): ProgressMode {
  if (options.quiet || options.json) return 'silent';
  return (options.stream ?? process.stderr).isTTY ? 'tty' : 'plain';
}

interface TaskLine {
  title: string;
  done?: number;
  total?: number;
  detail?: string;
  lastPrinted?: number;
}

type StartEvent = Extract<ProgressEvent, { type: 'start' }>;
type UpdateEvent = Extract<ProgressEvent, { type: 'update' }>;
type EndEvent = Extract<ProgressEvent, { type: 'end' }>;

function describe(line: TaskLine): string {
  const count = line.total ? `${line.done ?? 0}/${line.total}` : line.done !== undefined ? `${line.done}` : '';
  return [line.title, count, line.detail].filter(Boolean).join('  ');
}

function applyUpdate(line: TaskLine, event: UpdateEvent): void {
  if (event.done !== undefined) line.done = event.done;
  if (event.total !== undefined) line.total = event.total;
  if (event.detail !== undefined) line.detail = event.detail;
}

/**
 * Runs `work`, showing the events it emits. On a terminal each unit of work
 * (a list) is a listr2 task; elsewhere each start, end and log is one
 * timestamped line on stderr, and updates at most every `plainEveryMs`.
 */
export async function runWithProgress<T>(
  title: string,
  mode: ProgressMode,
  work: (progress: ProgressListener) => Promise<T>,
  options: {
    plainEveryMs?: number;
    write?: (line: string) => void;
    listr?: ListrViewOptions;
    signal?: AbortSignal;
  } = {},
): Promise<T> {
  switch (mode) {
    case 'silent':
      return work(() => {});
    case 'plain':
      return runWithPlainLines(title, work, options);
    case 'tty':
      return runWithListr(title, work, options.listr, options.signal);
  }
}

function runWithPlainLines<T>(
  title: string,
  work: (progress: ProgressListener) => Promise<T>,
  options: { plainEveryMs?: number; write?: (line: string) => void },
): Promise<T> {
  const lines = new Map<string, TaskLine>();
  const write = options.write ?? ((text: string) => process.stderr.write(`${text}\n`));
  const every = options.plainEveryMs ?? 10_000;
  const stamp = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
  return work((event) => {
    if (event.type === 'log')
      return write(`${stamp()} ${title}: ${event.level === 'warn' ? 'warning: ' : ''}${event.message}`);
    const line = lines.get(event.task) ?? { title: event.task };
    lines.set(event.task, line);
    if (event.type === 'start') Object.assign(line, { title: event.title, total: event.total });
    if (event.type === 'update') applyUpdate(line, event);
    if (event.type === 'end') line.detail = event.detail ?? line.detail;
    const now = Date.now();
    if (event.type === 'update' && line.lastPrinted !== undefined && now - line.lastPrinted < every) return;
    line.lastPrinted = now;
    const state = event.type === 'start' ? 'started' : event.type === 'end' ? event.status : '';
    write(`${stamp()} ${title}: ${describe(line)}${state ? ` (${state})` : ''}`);
  });
}

/** For tests: listr2's test renderer and where it writes, in place of the terminal. */
export interface ListrViewOptions {
  renderer?: 'default' | 'test';
  output?: ProcessOutput;
}

/** What the listener knows of one task; its listr2 row draws it once running. */
interface Row {
  line: TaskLine;
  ended: Promise<EndEvent>;
  end(event: EndEvent): void;
  draw?(): void;
}

/**
 * One listr2 task per unit of work, made when the core emits its `start`,
 * retitled on `update`, and completed, failed or skipped on `end`.
 *
 * A Listr runs the tasks it holds when it starts, so rows that appear later
 * come from a chain of untitled tasks: each waits for the next `start` and
 * returns a concurrent sub-list of [that row, the next waiting task]. The
 * default renderer draws an untitled task's subtasks at its own level, so the
 * rows line up under the stage title however long the chain grows.
 */
async function runWithListr<T>(
  title: string,
  work: (progress: ProgressListener) => Promise<T>,
  options: ListrViewOptions = {},
  signal?: AbortSignal,
): Promise<T> {
  // Loaded here, not at start: only a run drawing bars on a terminal needs it.
  const { Listr, ListrLogger, ProcessOutput } = await import('listr2');
  const open = new Map<string, Row>();
  let rowsFailed = 0;
  let stageTask: { skip(message?: string): void } | undefined;
  const waiting: Row[] = [];
  let wake: (() => void) | undefined;
  let finished = false;
  let result: T | undefined;
  // Boxed, so a work that rejects with undefined still counts as failed.
  let failure: { error: unknown } | undefined;

  const openRow = (event: StartEvent): Row => {
    let end!: (event: EndEvent) => void;
    const ended = new Promise<EndEvent>((resolve) => (end = resolve));
    const row: Row = { line: { title: event.title, total: event.total }, ended, end };
    open.set(event.task, row);
    waiting.push(row);
    wake?.();
    return row;
  };
  const nextRow = async (): Promise<Row | undefined> => {
    for (;;) {
      const row = waiting.shift();
      if (row || finished) return row;
      await new Promise<void>((resolve) => (wake = resolve));
      wake = undefined;
    }
  };

  const rowTask = (row: Row): ListrTask => ({
    title: describe(row.line),
    exitOnError: false, // a failed list is a result, not the end of the run
    task: async (_ctx, task) => {
      row.draw = () => {
        task.title = describe(row.line);
      };
      row.draw();
      const { status, detail } = await row.ended;
      if (status === 'failed') throw new Error(detail ?? 'failed');
      row.line.detail = detail ?? row.line.detail;
      task.title = describe(row.line);
      if (status === 'skipped') task.skip(task.title);
    },
  });
  const nextRowTask = (): ListrTask => ({
    task: async (_ctx, task) => {
      const row = await nextRow();
      if (!row) {
        if (failure) throw failure.error;
        // The stage's own row says how its rows went: never ✔ over a failed list or a run a signal stopped.
        if (rowsFailed) throw new Error(`${rowsFailed} failed`);
        if (signal?.aborted) stageTask?.skip(`${title}  stopped by a signal`);
        return;
      }
      return task.newListr([rowTask(row), nextRowTask()], { concurrent: true });
    },
  });

  const listr = new Listr(
    [
      {
        title,
        exitOnError: false, // a failed stage row is drawn; the work's own error is raised after the view ends
        task: (_ctx, stage) => {
          stageTask = stage;
          const listener: ProgressListener = (event) => {
            if (event.type === 'log') {
              stage.output = `${event.level === 'warn' ? '⚠ ' : ''}${event.message}`;
              return;
            }
            let row = open.get(event.task);
            if (event.type === 'start') {
              if (row) Object.assign(row.line, { title: event.title, total: event.total });
              else row = openRow(event);
            } else if (!row) {
              return; // an update or end without a start has no row to change
            } else if (event.type === 'update') {
              applyUpdate(row.line, event);
            } else {
              open.delete(event.task);
              if (event.status === 'failed') rowsFailed++;
              row.end(event);
            }
            row.draw?.();
          };
          void work(listener)
            .then(
              (value) => {
                result = value;
              },
              (error: unknown) => {
                failure = { error };
              },
            )
            .finally(() => {
              // Rows the work left open must end too, or the view would wait for them forever.
              for (const [task, row] of open) {
                open.delete(task);
                row.end({
                  type: 'end',
                  task,
                  status: failure === undefined ? 'skipped' : 'failed',
                  detail: failure === undefined ? 'not finished' : 'stopped',
                });
              }
              finished = true;
              wake?.();
            });
          return stage.newListr([nextRowTask()], { concurrent: true });
        },
        rendererOptions: { outputBar: 5, persistentOutput: true },
      },
    ],
    {
      renderer: options.renderer ?? 'default',
      rendererOptions: {
        logger: new ListrLogger({ processOutput: options.output ?? new ProcessOutput(process.stderr, process.stderr) }),
        collapseSubtasks: false, // keep every list's row on screen when the stage ends
        collapseErrors: false, // show a failed list's name, its error below it
        collapseSkips: true,
      },
      registerSignalListeners: false,
    },
  );
  await listr.run();
  if (failure) throw failure.error;
  return result as T;
}
