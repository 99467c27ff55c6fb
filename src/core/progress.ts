/**
 * How the pipeline reports progress without knowing about terminals: a stage
 * emits events, and the command turns them into progress bars or log lines.
 * A task is one unit a user follows, usually one list.
 */
export type ProgressEvent =
  | { type: 'start'; task: string; title: string; total?: number }
  | { type: 'update'; task: string; done?: number; total?: number; detail?: string }
  | { type: 'end'; task: string; status: 'done' | 'failed' | 'skipped'; detail?: string }
  | { type: 'log'; level: 'info' | 'warn'; message: string };

export type ProgressListener = (event: ProgressEvent) => void;

export const silentProgress: ProgressListener = () => {};
