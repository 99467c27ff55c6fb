import { describe, expect, it } from 'vitest';
import { chooseProgressMode, runWithProgress } from '../../../src/cli/progress-view.js';

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
});
