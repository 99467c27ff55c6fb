import { giveRepoCommand } from '../registry/register-list.js';
import { monthsBetween } from '../archive/month.js';
import { MIRROR_CLASSES, MSG_CLASSES } from '../classify/envelope.js';
import type { ListFigures, MonthCount } from '../store/report-records.js';

/** One list's fetch state and where its mail is in the pipeline. */
export interface ListStats {
  id: number;
  system: string;
  name: string;
  repoUrl: string | null;
  monthsScanned: number;
  firstMonth: string | null;
  /** The month the scan is checkpointed at (the present, once a scan is complete). */
  lastMonth: string | null;
  /** The latest month that held mail. */
  lastMailMonth: string | null;
  scanComplete: boolean;
  failedAttempts: number;
  lastFailure: string | null;
  /** When the list is tried again after its failures. */
  retryAfter: string | null;
  sidelinedAt: string | null;
  /** Every message fetched (all rows of staged_messages) = drained + deferred + shunted + pending. */
  staged: number;
  /** Labelled by classify and waiting for drain. */
  classified: number;
  drained: number;
  deferred: number;
  shunted: number;
  /** Not drained, deferred or shunted yet: to classify, or classified and waiting for drain. */
  pending: number;
}

export interface ClassShare {
  msgClass: string;
  count: number;
  /** Of all stored mail, 0..1. */
  share: number;
}

/** A list whose mail cannot drain because it has no repo, and the command that gives it one. */
export interface StuckList {
  id: number;
  system: string;
  name: string;
  waiting: number;
  fix: string;
}

export interface MonthlyChart {
  listId: number;
  system: string;
  name: string;
  /** Every month from the first to the last with mail, empty months included. */
  months: MonthCount[];
  /** Messages with no month at all (no archive month, no usable date). */
  undated: number;
}

export function toListStats(list: ListFigures): ListStats {
  const { staged, classified, drained, deferred, shunted, other } = list.statuses;
  return {
    id: list.id,
    system: list.system,
    name: list.name,
    repoUrl: list.repoUrl,
    monthsScanned: list.monthsScanned,
    firstMonth: list.firstMonth,
    lastMonth: list.lastMonth,
    lastMailMonth: list.lastMailMonth,
    scanComplete: list.scanComplete,
    failedAttempts: list.failedAttempts,
    lastFailure: list.lastFailure,
    retryAfter: list.retryAfter,
    sidelinedAt: list.sidelinedAt,
    staged: list.total,
    classified,
    drained,
    deferred,
    shunted,
    // A row in no known status is counted as pending here; verify names it.
    pending: staged + classified + other,
  };
}

/** Each of the eleven classes (and any other the store holds) with its share of stored mail. */
export function classShares(counts: ReadonlyMap<string, number>): ClassShare[] {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const names = [
    ...MSG_CLASSES,
    ...[...counts.keys()].filter((name) => !(MSG_CLASSES as readonly string[]).includes(name)).sort(),
  ];
  return names.map((msgClass) => {
    const count = counts.get(msgClass) ?? 0;
    return { msgClass, count, share: ratio(count, total) };
  });
}

/** Mail that echoes another system (GitHub mirror and commit mail), of all stored mail. */
export function mirrorShare(counts: ReadonlyMap<string, number>): { count: number; share: number } {
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const count = MIRROR_CLASSES.reduce((sum, name) => sum + (counts.get(name) ?? 0), 0);
  return { count, share: ratio(count, total) };
}

/** Lists with no repo whose mail waits (deferred, or classified and bound to be). */
export function stuckLists(lists: readonly ListFigures[]): StuckList[] {
  return lists
    .filter((list) => list.repoId === null && list.statuses.deferred + list.statuses.classified > 0)
    .map((list) => ({
      id: list.id,
      system: list.system,
      name: list.name,
      waiting: list.statuses.deferred + list.statuses.classified,
      fix: giveRepoCommand(list),
    }));
}

/** The list's months from first to last with the empty ones filled in; mail with no month apart. */
export function monthlyChart(
  list: { id: number; system: string; name: string },
  counts: readonly MonthCount[],
): MonthlyChart {
  const dated = new Map(counts.filter((c) => c.month !== null).map((c) => [c.month as string, c.count]));
  const undated = counts.filter((c) => c.month === null).reduce((sum, c) => sum + c.count, 0);
  const known = [...dated.keys()].sort();
  const months =
    known.length === 0
      ? []
      : monthsBetween(known[0]!, known[known.length - 1]!).map((month) => ({ month, count: dated.get(month) ?? 0 }));
  return { listId: list.id, system: list.system, name: list.name, months, undated };
}

export function ratio(part: number, whole: number): number {
  return whole === 0 ? 0 : part / whole;
}

/** A name as it can be pasted into a shell. */
