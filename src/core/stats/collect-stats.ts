import { selectLists, type ListSelection } from '../registry/select-lists.js';
import type { FetchGap } from '../store/fetch-state-records.js';
import type { LabelProvenanceCount, ReportScope } from '../store/report-records.js';
import type { Store } from '../store/store.js';
import {
  classShares,
  mirrorShare,
  monthlyChart,
  ratio,
  stuckLists,
  toListStats,
  type ClassShare,
  type ListStats,
  type MonthlyChart,
  type StuckList,
} from './summarize-stats.js';

export interface UnresolvedRepo {
  url: string;
  messages: number;
  fix: string;
}

export interface StatsResult {
  lists: ListStats[];
  totals: Pick<ListStats, 'staged' | 'classified' | 'drained' | 'deferred' | 'shunted' | 'pending'> & {
    stored: number;
  };
  classes: ClassShare[];
  /** github_mirror + commit_notify of all stored mail. */
  mirror: { count: number; share: number };
  signaledRepos: { captured: number; resolved: number; capturedShare: number; resolvedShare: number };
  /** Every repository URL stored mail names that no registered repo resolves, most messages first, with the command that registers it. */
  unresolvedSignaledRepos: UnresolvedRepo[];
  senders: { humans: number; resolved: number; bots: number; resolvedShare: number };
  /** The people who sent the human mail in scope and the addresses they sent it from (docs/people.md); identities and merges store-wide. */
  people: { people: number; addresses: number; identities: number; merges: number };
  externalKeys: { issueEvents: number; withKey: number };
  stuck: StuckList[];
  /** Synthetic issues whose key a native issue's title carries as `[KEY]` (0 until project creates synthetic issues). */
  missedLinkShadows: number;
  /** Months fetch could not read run after run and went past (docs/fetch.md), by list. */
  gaps: FetchGap[];
  /** Monthly message counts of each list named with --list. */
  monthly: MonthlyChart[];
  /** Which rules (systems file sha256) and listminer versions labelled the stored mail, with message counts. */
  labelProvenance: LabelProvenanceCount[];
}

/** The coverage rollup of the lists selected; with names, each named list's months too. */
export async function collectStats(store: Store, selection: ListSelection = {}): Promise<StatsResult> {
  const selected = await selectLists(store, selection);
  const scope: ReportScope = selection.names?.length || selection.system ? selected.map((list) => list.id) : undefined;
  const reports = store.reports;
  const figures = await reports.lists(scope);
  const lists = figures.map(toListStats);
  const classes = await reports.classCounts(scope);
  const mail = await reports.mail(scope);
  const repoIds = scope && [...new Set(figures.map((list) => list.repoId).filter((id): id is number => id !== null))];

  const monthly: MonthlyChart[] = [];
  if (selection.names?.length) {
    for (const list of figures) monthly.push(monthlyChart(list, await reports.monthlyCounts(list.id)));
  }
  const sum = (key: keyof StatsResult['totals'] & keyof ListStats) =>
    lists.reduce((total, list) => total + list[key], 0);
  return {
    lists,
    totals: {
      staged: sum('staged'),
      classified: sum('classified'),
      drained: sum('drained'),
      deferred: sum('deferred'),
      shunted: sum('shunted'),
      pending: sum('pending'),
      stored: mail.total,
    },
    classes: classShares(classes),
    mirror: mirrorShare(classes),
    signaledRepos: {
      captured: mail.signaledCaptured,
      resolved: mail.signaledResolved,
      capturedShare: ratio(mail.signaledCaptured, mail.total),
      resolvedShare: ratio(mail.signaledResolved, mail.signaledCaptured),
    },
    unresolvedSignaledRepos: (await reports.unresolvedSignaledRepos(scope)).map((repo) => ({
      ...repo,
      fix: `listminer repos add ${repo.url}`,
    })),
    senders: {
      humans: mail.humans,
      resolved: mail.humansResolved,
      bots: mail.bots,
      resolvedShare: ratio(mail.humansResolved, mail.humans),
    },
    externalKeys: { issueEvents: mail.issueEvents, withKey: mail.issueEventsWithKey },
    people: await store.people.senderCounts(scope),
    stuck: stuckLists(figures),
    missedLinkShadows: await reports.missedLinkShadows(repoIds),
    gaps: await store.fetchState.gaps(scope),
    monthly,
    labelProvenance: await reports.labelProvenance(scope),
  };
}
