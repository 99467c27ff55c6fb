import { MSG_CLASSES } from '../classify/envelope.js';
import type { MailFigures } from '../store/report-records.js';
import type { Requirement } from './expected-classes.js';

/**
 * How much a branch matters (docs/verify.md): a required branch left empty
 * fails `verify --strict`; a cross-system branch needs data from outside the
 * mail (an issue tracker, GitHub) and is DEFER when empty; an informational
 * one is shown and never fails.
 */
export type BranchWeight = 'required' | 'cross_system' | 'informational';
export type BranchStatus = 'PASS' | 'EMPTY' | 'DEFER';

export interface CoverageBranch {
  name: string;
  weight: BranchWeight;
  status: BranchStatus;
  count: number;
  /** What the count is out of, where that says more than the count alone. */
  of?: number;
  note?: string;
  /** Why a required branch is required: `every store`, or the systems (and their lists) that expect the class. */
  why?: string;
  /** For a required class: each system that expects it, where that is written, and its lists in scope. */
  requiredBy?: Requirement[];
}

/** What the branches are judged from: figures the store gave for the lists in scope. */
export interface CoverageFigures {
  lists: number;
  /** Stored messages per backend in use (a backend whose lists hold no mail is 0). */
  backends: ReadonlyMap<string, number>;
  classes: ReadonlyMap<string, number>;
  routing: ReadonlyMap<string | null, number>;
  mail: MailFigures;
  /** Rows of pr_equivalents for lists of `none`-policy systems; undefined while the view does not exist. */
  prEquivalents: number;
  /** The classes the systems of the lists in scope expect (expectedClasses). */
  expected: ReadonlyMap<string, Requirement[]>;
}

/** What a required branch that every store must show says about why. */
const EVERY_STORE = 'every store';

/** Routing outcomes as project records them in email_messages.projected_kind. */
const ROUTES: readonly { kind: string; name: string; weight: BranchWeight }[] = [
  { kind: 'linked', name: 'routing:linked', weight: 'cross_system' },
  { kind: 'created', name: 'routing:created', weight: 'informational' },
  { kind: 'inherited', name: 'routing:inherited', weight: 'informational' },
  { kind: 'mirror', name: 'routing:mirror-linked', weight: 'cross_system' },
  { kind: 'none', name: 'routing:mailing-list-only', weight: 'required' },
];

/** Every branch of the coverage harness, in the order docs/verify.md gives them. */
export function judgeBranches(figures: CoverageFigures): CoverageBranch[] {
  const branches: CoverageBranch[] = [branch('lists', 'required', figures.lists, { why: EVERY_STORE })];
  for (const [backend, count] of [...figures.backends].sort(([a], [b]) => a.localeCompare(b))) {
    branches.push(branch(`backend:${backend}`, 'informational', count));
  }
  const withMail = [...figures.backends.values()].filter((count) => count > 0).length;
  branches.push(branch('backend-with-mail', 'required', withMail, { of: figures.backends.size, why: EVERY_STORE }));
  for (const msgClass of MSG_CLASSES) {
    const requiredBy = figures.expected.get(msgClass);
    const count = figures.classes.get(msgClass) ?? 0;
    branches.push(
      requiredBy
        ? branch(`class:${msgClass}`, 'required', count, { why: describeRequirements(requiredBy), requiredBy })
        : branch(`class:${msgClass}`, 'informational', count),
    );
  }
  for (const route of ROUTES) {
    branches.push(
      branch(
        route.name,
        route.weight,
        figures.routing.get(route.kind) ?? 0,
        route.weight === 'required' ? { why: EVERY_STORE } : {},
      ),
    );
  }
  const { mail } = figures;
  branches.push(
    branch('threading', 'required', mail.replies, {
      of: mail.total,
      note: 'messages whose thread root is another message',
      why: EVERY_STORE,
    }),
    branch('signaled-repo:captured', 'informational', mail.signaledCaptured, { of: mail.total }),
    branch('signaled-repo:resolved', 'informational', mail.signaledResolved, { of: mail.signaledCaptured }),
    branch('senders-resolved', 'cross_system', mail.humansResolved, {
      of: mail.humans,
      note: 'human mail with a contributor',
    }),
    branch('external-keys', 'cross_system', mail.issueEventsWithKey, {
      of: mail.issueEvents,
      note: 'issue_event mail with captures.external_key',
    }),
    branch('pr-equivalents', 'informational', figures.prEquivalents, {
      note: 'patch series of none-policy lists',
    }),
  );
  return branches;
}

/** `apache_ponymail (1 list)`, `mbox (config, 3 lists)`: who expects the class; `requiredBy` names the lists. */
function describeRequirements(requirements: readonly Requirement[]): string {
  return requirements
    .map(
      (r) =>
        `${r.system} (${r.source === 'config' ? 'config, ' : ''}${r.lists.length} list${r.lists.length === 1 ? '' : 's'})`,
    )
    .join(', ');
}

function branch(
  name: string,
  weight: BranchWeight,
  count: number,
  extra: Pick<CoverageBranch, 'of' | 'note' | 'why' | 'requiredBy'> = {},
): CoverageBranch {
  const status: BranchStatus = count > 0 ? 'PASS' : weight === 'cross_system' ? 'DEFER' : 'EMPTY';
  return { name, weight, status, count, ...extra };
}

/** Required branches that are empty: what fails `--strict`. */
export function requiredGaps(branches: readonly CoverageBranch[]): string[] {
  return branches.filter((b) => b.weight === 'required' && b.status !== 'PASS').map((b) => b.name);
}
