import { selectLists, type ListSelection } from '../registry/select-lists.js';
import type { ReportScope } from '../store/report-records.js';
import type { Store } from '../store/store.js';
import type { Systems } from '../systems/load-systems.js';
import { MIRROR_CLASSES } from '../classify/envelope.js';
import { projectionPolicyOf } from '../project/project-lists.js';
import { trackerKeyOf } from '../project/tracker-key.js';
import { judgeBranches, requiredGaps, type CoverageBranch } from './coverage-branches.js';
import { expectedClasses, type ExpectOverrides } from './expected-classes.js';
import { judgeMergedMessages } from './merged-messages.js';
import { judgeInvariants, type InvariantResult } from './store-invariants.js';

export interface VerifyResult {
  /** Lists verified. */
  lists: number;
  branches: CoverageBranch[];
  invariants: InvariantResult[];
  /** Required branches left empty and broken invariants: what `--strict` fails on. */
  failing: string[];
  ok: boolean;
}

/**
 * The coverage harness and the integrity check over the lists selected
 * (every list without a selection). Read-only: it can run beside any stage,
 * and then counts mail still on its way as pending. Which classes are
 * required follows from the systems of the lists (expectedClasses).
 */
export async function verifyStore(
  store: Store,
  systems: Systems,
  selection: ListSelection = {},
  overrides: ExpectOverrides = {},
): Promise<VerifyResult> {
  const lists = await selectLists(store, selection);
  const expected = expectedClasses(lists, systems, overrides);
  const scope: ReportScope = selection.names?.length || selection.system ? lists.map((list) => list.id) : undefined;
  const reports = store.reports;
  const figures = await reports.lists(scope);

  const backendOf = (system: string) => systems.systems.get(system)?.backend ?? 'unknown';
  const backends = new Map<string, number>();
  for (const list of figures)
    backends.set(backendOf(list.system), (backends.get(backendOf(list.system)) ?? 0) + list.stored);
  // A list is projected as its rules system says: an mbox list given Apache rules is projected as Apache lists are.
  const policies = new Map(lists.map((list) => [list.id, projectionPolicyOf(systems, list)]));
  const withPolicy = (policy: string) => figures.filter((list) => policies.get(list.id) === policy).map((l) => l.id);
  const nonePolicyLists = withPolicy('none');
  const cleanFitLists = withPolicy('clean_fit');

  const branches = judgeBranches({
    lists: figures.length,
    backends,
    classes: await reports.classCounts(scope),
    routing: await reports.routingCounts(scope),
    mail: await reports.mail(scope),
    prEquivalents: await reports.prEquivalents(nonePolicyLists),
    expected,
  });
  const invariants = judgeInvariants({
    lists: figures,
    drainedWithoutRow: await reports.drainedWithoutRow(scope),
    storedWithoutStaged: await reports.storedWithoutStaged(scope),
    duplicateContent: await reports.duplicateContent(scope),
    nearDuplicates: await reports.nearDuplicates(scope),
    missingBodies: await reports.missingBodies(scope),
    unprojected: await reports.unprojectedInProjectedLists(scope),
    neverProjected: await reports.neverProjectedLists(cleanFitLists),
    stuck: await reports.stuckMail(scope),
    stale: await reports.staleDerivations(
      scope,
      lists.filter((list) => policies.get(list.id) === 'clean_fit').map((list) => list.id),
      MIRROR_CLASSES,
      (captures) => trackerKeyOf(captures) !== null,
    ),
    integrity: await store.checkIntegrity(),
    failedLists: await reports.failedListCheckpoints(scope),
    gaps: await store.fetchState.gaps(scope),
  });
  const listNames = new Map(figures.map((list) => [list.id, `${list.system} ${list.name}`]));
  invariants.push(
    judgeMergedMessages(await reports.bodiesWithFromLines(scope), (id) => listNames.get(id) ?? `list ${id}`),
  );
  const failing = [
    ...requiredGaps(branches),
    ...invariants.filter((invariant) => !invariant.ok).map((invariant) => invariant.name),
  ];
  return { lists: figures.length, branches, invariants, failing, ok: failing.length === 0 };
}
