import { Writable } from 'node:stream';
import { ProcessOutput } from 'listr2';
import { describe, expect, it } from 'vitest';
import { chooseProgressMode, runWithProgress } from '../../../src/cli/progress-view.js';
import type { ProgressListener } from '../../../src/core/progress.js';

interface ListrEvent {
  event: string;
  data: unknown;
  task: { title?: string; path: Array<string | null> };
}

/** Runs `work` under the terminal view with listr2's test renderer, which writes each task event as a JSON line. */
async function runOnTerminal<T>(
  work: (progress: ProgressListener) => Promise<T>,
  signal?: AbortSignal,
): Promise<{ result?: T; error?: unknown; events: ListrEvent[] }> {
  let text = '';
  const sink = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  const outcome: { result?: T; error?: unknown } = {};
  try {
    outcome.result = await runWithProgress('fetch', 'tty', work, {
      listr: { renderer: 'test', output: new ProcessOutput(sink as NodeJS.WriteStream, sink as NodeJS.WriteStream) },
      signal,
    });
  } catch (error) {
    outcome.error = error;
  }
  const events = text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ListrEvent);
  return { ...outcome, events };
}

/** The rows listr2 drew for lists (titled tasks below the stage), with their last title and final state. */
function rows(events: ListrEvent[]): Array<{ title: string; state: string; error?: unknown }> {
  const out: Array<{ title: string; state: string; error?: unknown }> = [];
  for (const { event, data, task } of events) {
    if (task.path.length < 2 || !task.title) continue;
    if (event === 'STATE' && data === 'STARTED') out.push({ title: task.title, state: 'STARTED' });
    const row = out.find((r) => r.title === task.path.at(-1) || r.title === task.title);
    if (!row) continue;
    if (event === 'TITLE') row.title = data as string;
    if (event === 'STATE') row.state = data as string;
    if (event === 'MESSAGE' && (data as { error?: string }).error) row.error = (data as { error: string }).error;
  }
  return out;
}

describe('progress view', () => {
  it('stays silent under --quiet and --json', () => {
    expect(chooseProgressMode({ quiet: true })).toBe('silent');
    expect(chooseProgressMode({ json: true })).toBe('silent');
  });

  it('writes timestamped lines when stderr is not a terminal, and throttles updates', async () => {
    const lines: string[] = [];
    const result = await runWithProgress(
      'fetch',
      'plain',
      async (progress) => {
        progress({ type: 'start', task: 'dev', title: 'dev@kafka.apache.org', total: 3 });
        progress({ type: 'update', task: 'dev', done: 1 });
        progress({ type: 'update', task: 'dev', done: 2 });
        progress({ type: 'log', level: 'warn', message: 'slow archive' });
        progress({ type: 'end', task: 'dev', status: 'done', detail: '120 staged' });
        return 42;
      },
      { plainEveryMs: 60_000, write: (line) => lines.push(line) },
    );
    expect(result).toBe(42);
    expect(lines.map((l) => l.replace(/^\S+Z /, ''))).toEqual([
      'fetch: dev@kafka.apache.org  0/3 (started)',
      'fetch: warning: slow archive',
      'fetch: dev@kafka.apache.org  2/3  120 staged (done)',
    ]);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ /);
  });

  it('on a terminal draws one listr2 task per list as the core starts it, retitles it on update, and ends it done, failed or skipped', async () => {
    const run = await runOnTerminal(async (progress) => {
      progress({ type: 'start', task: 'lkml', title: 'public_inbox lkml', total: 2 });
      progress({ type: 'start', task: 'netdev', title: 'public_inbox netdev' });
      progress({ type: 'update', task: 'lkml', done: 1, detail: '2024-01  10 staged' });
      progress({ type: 'end', task: 'netdev', status: 'failed', detail: 'connection reset' });
      progress({ type: 'start', task: 'bpf', title: 'public_inbox bpf' });
      progress({ type: 'end', task: 'bpf', status: 'skipped', detail: 'interrupted after 0 months' });
      progress({ type: 'update', task: 'lkml', done: 2 });
      progress({ type: 'end', task: 'lkml', status: 'done', detail: '2 months, 20 staged' });
      return 42;
    });
    expect(run.result).toBe(42);
    expect(rows(run.events)).toEqual([
      { title: 'public_inbox lkml  2/2  2 months, 20 staged', state: 'COMPLETED' },
      { title: 'public_inbox netdev', state: 'FAILED', error: 'connection reset' },
      { title: 'public_inbox bpf  interrupted after 0 months', state: 'SKIPPED' },
    ]);
  });

  it('on a terminal shows log lines under the stage title', async () => {
    const run = await runOnTerminal(async (progress) => {
      progress({ type: 'log', level: 'warn', message: 'lore.kernel.org failed 10 times in a row' });
      progress({ type: 'log', level: 'info', message: 'netdev was not fetched: not due' });
    });
    const output = run.events.filter((e) => e.event === 'OUTPUT');
    expect(output.map((e) => [e.task.title, e.data])).toEqual([
      ['fetch', '⚠ lore.kernel.org failed 10 times in a row'],
      ['fetch', 'netdev was not fetched: not due'],
    ]);
  });

  it('on a terminal ends the rows the work left open, and passes on the error the work threw', async () => {
    const run = await runOnTerminal(async (progress) => {
      progress({ type: 'start', task: 'lkml', title: 'public_inbox lkml' });
      throw new Error('database gone');
    });
    expect(run.error).toMatchObject({ message: 'database gone' });
    expect(rows(run.events)).toEqual([{ title: 'public_inbox lkml', state: 'FAILED', error: 'stopped' }]);
  });
});

describe('progress view: the stage row', () => {
  const stageState = (events: ListrEvent[]) =>
    events.filter((e) => e.task.path.length === 1 && e.event === 'STATE').at(-1)?.data;

  it('ends failed, not ✔, when one of its lists failed', async () => {
    const run = await runOnTerminal(async (progress) => {
      progress({ type: 'start', task: 'lkml', title: 'public_inbox lkml' });
      progress({ type: 'start', task: 'netdev', title: 'public_inbox netdev' });
      progress({ type: 'end', task: 'netdev', status: 'failed', detail: 'connection reset' });
      progress({ type: 'end', task: 'lkml', status: 'done' });
      return 42;
    });
    expect(run.result).toBe(42);
    expect(stageState(run.events)).toBe('FAILED');
  });

  it('ends skipped, not ✔, when a signal stopped the run', async () => {
    const stop = new AbortController();
    const run = await runOnTerminal(async (progress) => {
      progress({ type: 'start', task: 'lkml', title: 'public_inbox lkml' });
      stop.abort();
      progress({ type: 'end', task: 'lkml', status: 'skipped', detail: 'interrupted after 1 months' });
      return 42;
    }, stop.signal);
    expect(run.result).toBe(42);
    expect(stageState(run.events)).toBe('SKIPPED');
  });

  it('ends done when every list went through', async () => {
    const run = await runOnTerminal(async (progress) => {
      progress({ type: 'start', task: 'lkml', title: 'public_inbox lkml' });
      progress({ type: 'end', task: 'lkml', status: 'done' });
    });
    expect(stageState(run.events)).toBe('COMPLETED');
  });
});
