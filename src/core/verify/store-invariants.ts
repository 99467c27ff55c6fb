import { addMonths } from '../archive/month.js';
import type { FetchGap } from '../store/fetch-state-records.js';
import type { IntegrityReport } from '../store/sql-driver.js';
import type { FailedListCheckpoints, ListFigures, Offenders, StaleDerivations } from '../store/report-records.js';

/** One rule the store must keep whatever mail it holds (docs/verify.md). A broken one fails `--strict`. */
export interface InvariantResult {
  name: string;
  ok: boolean;
  /** Rows (or lists) that break it. */
  violations: number;
  /** A few of them, and for `staged-accounted` the mail still pending per list. */
  details: string[];
}

/** What the invariants are judged from: the store's answers for the lists in scope. */
export interface InvariantFigures {
  lists: readonly ListFigures[];
  drainedWithoutRow: Offenders;
  storedWithoutStaged: Offenders;
  duplicateContent: Offenders;
  nearDuplicates: Offenders;
  missingBodies: Offenders;
  unprojected: Offenders;
  /** Lists of clean_fit systems drained and never projected. */
  neverProjected?: readonly number[];
  /** Mail a finished classify left `staged`, and a finished drain left `classified`. */
  stuck?: { leftStaged: Offenders; leftClassified: Offenders };
  /** Derived rows that disagree with their inputs (a class, captures or mirror handling changed and drain/project have not caught up). */
  stale?: StaleDerivations;
  /** The engine's own integrity check. */
  integrity?: IntegrityReport;
  failedLists: readonly FailedListCheckpoints[];
  /** Months fetch went past because they failed run after run. */
  gaps?: readonly FetchGap[];
}

export function judgeInvariants(figures: InvariantFigures): InvariantResult[] {
  const names = new Map(figures.lists.map((list) => [list.id, `${list.system} ${list.name}`]));
  const name = (id: number) => names.get(id) ?? `list ${id}`;
  /** Offender labels are "listId key". */
  const named = (offenders: Offenders) =>
    offenders.examples.map((label) => {
      const space = label.indexOf(' ');
      return `${name(Number(label.slice(0, space)))}: ${label.slice(space + 1)}`;
    });
  const detailsOf = (offenders: Offenders, note = '') => {
    const rows = named(offenders).map((row) => row + note);
    return offenders.count > offenders.examples.length
      ? [...rows, `… ${offenders.count - offenders.examples.length} more`]
      : rows;
  };
  const fromOffenders = (invariant: string, offenders: Offenders): InvariantResult => ({
    name: invariant,
    ok: offenders.count === 0,
    violations: offenders.count,
    details: detailsOf(offenders),
  });
  const neverProjected = figures.neverProjected ?? [];
  const projection = fromOffenders('projection-complete', figures.unprojected);
  const stuck = figures.stuck ?? { leftStaged: { count: 0, examples: [] }, leftClassified: { count: 0, examples: [] } };
  const stuckCount = stuck.leftStaged.count + stuck.leftClassified.count;
  return [
    stagedAccounted(figures.lists),
    fromOffenders('drained-stored', figures.drainedWithoutRow),
    fromOffenders('stored-staged', figures.storedWithoutStaged),
    fromOffenders('no-duplicate-content', figures.duplicateContent),
    fromOffenders('no-near-duplicates', figures.nearDuplicates),
    fromOffenders('bodies-stored', figures.missingBodies),
    checkpointsKeptFailures(figures.lists, figures.failedLists, name, figures.gaps),
    {
      ...projection,
      ok: projection.ok && neverProjected.length === 0,
      violations: projection.violations + neverProjected.length,
      details: [
        ...neverProjected.map((id) => `${name(id)}: never projected (run listminer project)`),
        ...projection.details,
      ],
    },
    noFetchGaps(figures.gaps ?? [], name),
    {
      name: 'no-stuck-mail',
      ok: stuckCount === 0,
      violations: stuckCount,
      details: [
        ...detailsOf(stuck.leftStaged, ' left staged after classify ran over the list'),
        ...detailsOf(stuck.leftClassified, ' left classified after drain ran over the list'),
      ],
    },
    ...(figures.stale ? [derivedCurrent(figures.stale, detailsOf)] : []),
    ...(figures.integrity
      ? [
          {
            name: 'engine-integrity',
            ok: figures.integrity.problems.length === 0,
            violations: figures.integrity.problems.length,
            details: [figures.integrity.checked, ...figures.integrity.problems],
          },
        ]
      : []),
  ];
}

/**
 * What project and drain derived agrees with what it is derived from:
 * tracker mail of a clean_fit list is tied to its issue, every link is one
 * the message's outcome and class warrant, bodies are kept as the class and
 * the list's mirror handling say, and every synthetic issue has mail and
 * counts it. A violation is a store that missed a re-derivation (or was
 * edited by hand): `drain` and `project` bring it back.
 */
function derivedCurrent(
  stale: StaleDerivations,
  detailsOf: (offenders: Offenders, note?: string) => string[],
): InvariantResult {
  const kinds = [stale.trackerUnlinked, stale.links, stale.bodies, stale.issues];
  const violations = kinds.reduce((sum, offenders) => sum + offenders.count, 0);
  const issueDetails =
    stale.issues.count > stale.issues.examples.length
      ? [...stale.issues.examples, `… ${stale.issues.count - stale.issues.examples.length} more`]
      : stale.issues.examples;
  return {
    name: 'derived-current',
    ok: violations === 0,
    violations,
    details: [
      ...detailsOf(stale.trackerUnlinked, ': tracker mail projected without its issue (run listminer project)'),
      ...detailsOf(stale.links, ': links disagree with its outcome or class (run listminer project)'),
      ...detailsOf(
        stale.bodies,
        ': body kept or missing against its class and the mirror handling (run listminer drain)',
      ),
      ...issueDetails,
    ],
  };
}

/**
 * No list has a month fetch went past (a gap): such a month's mail is
 * missing, or only partly staged, while the months around it are whole.
 */
function noFetchGaps(gaps: readonly FetchGap[], name: (listId: number) => string): InvariantResult {
  return {
    name: 'no-fetch-gaps',
    ok: gaps.length === 0,
    violations: gaps.length,
    details: gaps.map(
      (gap) =>
        `${name(gap.listId)}: ${gap.month}, failed ${gap.failures} runs in a row, last ${gap.lastFailedAt}: ${gap.lastError}`,
    ),
  };
}

/**
 * Per list, staged = drained + deferred + shunted + pending (staged or
 * classified, not drained yet): every staged row is in exactly one of the
 * five statuses. Pending mail is reported, not counted as a violation.
 */
function stagedAccounted(lists: readonly ListFigures[]): InvariantResult {
  const details: string[] = [];
  let violations = 0;
  for (const list of lists) {
    const { staged, classified, other } = list.statuses;
    if (other > 0) details.push(`${list.system} ${list.name}: ${other} staged rows in no known status`);
    if (staged + classified > 0)
      details.push(
        `${list.system} ${list.name}: ${staged + classified} pending (${staged} to classify, ${classified} to drain)`,
      );
    violations += other;
  }
  return { name: 'staged-accounted', ok: violations === 0, violations, details };
}

/**
 * No month checkpointed past a transient error. The store does not record
 * which month failed, so the rule reads what a fetch that stops at its first
 * failing month leaves behind (docs/verify.md, "no-checkpoint-past-failure"):
 * 1. the list's cursor (lists.last_month) is its latest checkpointed month:
 *    the two are written in one transaction;
 * 2. a failure on record means the scan is not complete (a complete scan
 *    clears the failure);
 * 3. after a failure, the first month checkpointed again is at most the month
 *    after the list's cursor at the time of the failure: a later run resumes
 *    there (the failing month), so a first checkpoint beyond it means the
 *    failing month was stepped over.
 */
export function checkpointsKeptFailures(
  lists: readonly ListFigures[],
  failedLists: readonly FailedListCheckpoints[],
  name: (listId: number) => string,
  gaps: readonly FetchGap[] = [],
): InvariantResult {
  const details: string[] = [];
  const gapMonths = new Set(gaps.map((gap) => `${gap.listId} ${gap.month}`));
  /** The first month after `month` that is not a recorded gap of the list: a retry goes past gaps (docs/fetch.md). */
  const resumeAfter = (listId: number, month: string) => {
    let next = addMonths(month, 1);
    while (gapMonths.has(`${listId} ${next}`)) next = addMonths(next, 1);
    return next;
  };
  for (const list of lists) {
    if ((list.lastMonth ?? null) !== (list.lastFetchedMonth ?? null)) {
      details.push(
        `${name(list.id)}: cursor at ${list.lastMonth ?? 'none'}, latest checkpoint ${list.lastFetchedMonth ?? 'none'}`,
      );
    }
  }
  for (const failed of failedLists) {
    if (failed.scanComplete)
      details.push(`${name(failed.listId)}: scan marked complete while the failure of ${failed.lastFailureAt} stands`);
    const resume = failed.cursorAtFailure && resumeAfter(failed.listId, failed.cursorAtFailure);
    if (resume && failed.firstMonthAfter && failed.firstMonthAfter > resume) {
      details.push(
        `${name(failed.listId)}: failed at ${failed.lastFailureAt} with its checkpoint at ${failed.cursorAtFailure}; the first month checkpointed since is ${failed.firstMonthAfter}, past ${resume} where it had to resume`,
      );
    }
  }
  return { name: 'no-checkpoint-past-failure', ok: details.length === 0, violations: details.length, details };
}
