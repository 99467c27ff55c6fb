import { currentLockOwner } from '../locks/lock-owner.js';
import { BATCH_MESSAGES } from '../pipeline/batch-bytes.js';
import { eachClaimedList, type ListStage } from '../pipeline/each-claimed-list.js';
import type { ProgressListener } from '../progress.js';
import type { ListRecord } from '../store/list-records.js';
import type { IssueLink, IssueRef, ProjectedKind, ProjectMessage, PullRequestLink } from '../store/project-records.js';
import type { Store } from '../store/store.js';
import { StoreFailure } from '../store/store-failure.js';
import type { TableStatistics } from '../store/table-statistics.js';
import type { ProjectionPolicy, Systems } from '../systems/load-systems.js';
import { backfillIssueKeys, type BackfillResult } from './backfill-keys.js';
import { syntheticIssueId } from './issue-key.js';
import { restateSyntheticIssues } from './issue-state.js';
import { githubReferencesOf, isGitHubRepo } from './github-references.js';
import { mirrorTarget } from './mirror-target.js';
import { seriesKey, seriesTitle } from './patch-title.js';
import { planTrackerTies } from './plan-tracker-ties.js';
import { addToGroup } from '../add-to-group.js';

export interface ProjectOptions {
  /** Only these lists (ids); every list with mail to project when absent. */
  listIds?: number[];
  /** Lists projected at once; never one list twice. */
  workers?: number;
  systems: Systems;
  /** Messages without an outcome taken per transaction (with the rest of their threads). */
  batchSize?: number;
  /** First fill native issues' external_key from `[KEY-N]` title prefixes and report the conflicts. */
  backfillKeys?: boolean;
  /** Aborting stops the run after the batch being written; locks are released. */
  signal?: AbortSignal;
}

export type ListProjectStatus = 'projected' | 'busy' | 'failed' | 'interrupted';

export interface ProjectCounts {
  /** Messages whose outcome this run worked out: mail without one, and the rest of its threads. */
  examined: number;
  /** Messages that got this outcome in this run (a message that already had it is not counted). */
  linked: number;
  created: number;
  inherited: number;
  mirror: number;
  none: number;
  /** Synthetic issues this run made. */
  issuesCreated: number;
}

export interface ListProjectResult extends ProjectCounts {
  listId: number;
  system: string;
  name: string;
  /** The projection policy of the list's rules system. */
  policy: ProjectionPolicy;
  /** projected; busy: another process holds the list; failed: see error. */
  status: ListProjectStatus;
  error?: string;
  /** Threads that could not be written, alone either, with the error (kept in project_failures; tried again on every run). */
  failedThreads: ThreadFailure[];
}

export interface ThreadFailure {
  /** email_messages.id of the thread's root, and its Message-ID. */
  rootId: number;
  messageId: string | null;
  error: string;
}

export interface ProjectResult extends ProjectCounts {
  lists: ListProjectResult[];
  /** With backfillKeys: what the backfill filled and the keys it found taken. */
  backfill?: BackfillResult;
  /** A signal stopped the run before it ran out of lists. */
  interrupted: boolean;
  /** Threads of all lists that could not be written (see ListProjectResult.failedThreads). */
  threadsFailed: number;
}

const COUNTS = ['examined', 'linked', 'created', 'inherited', 'mirror', 'none', 'issuesCreated'] as const;
/** A GitHub login: what an actor captured from mirror mail usually is. */
const LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/;
const BOT_ACTOR = /\[bot\]$|-bot$|^(?:github|gitbox|asf github bot)$/i;
const MERGE_BOTS = new Set(['pr-tracker-bot', 'patchwork-bot']);

/**
 * The project stage: every drained message of a list gets an outcome
 * (projected_kind), one writer per list. Tracker mail of a `clean_fit` list
 * becomes the mail of an issue, linked or synthesized; mirror mail links to
 * the pull request or issue it echoes; patch threads of a `none` list are
 * grouped into series for pr_equivalents. docs/project.md says why.
 */
export async function projectLists(
  store: Store,
  options: ProjectOptions,
  progress: ProgressListener,
): Promise<ProjectResult> {
  let backfill: BackfillResult | undefined;
  if (options.backfillKeys) {
    const repoIds = options.listIds ? await repoIdsOf(store, options.listIds) : undefined;
    backfill = await backfillIssueKeys(store, repoIds);
  }
  const run = new ProjectRun(store, options, progress);
  await run.loadRepos();
  const results = await eachClaimedList(
    store,
    await store.project.listsWithWork(options.listIds),
    run,
    { owner: run.owner, workers: options.workers, signal: options.signal },
    progress,
  );
  await run.settleStatistics();
  const totals = Object.fromEntries(
    COUNTS.map((field) => [field, results.reduce((sum, r) => sum + r[field], 0)]),
  ) as unknown as ProjectCounts;
  const threadsFailed = results.reduce((sum, r) => sum + r.failedThreads.length, 0);
  return {
    lists: results,
    ...totals,
    ...(backfill ? { backfill } : {}),
    interrupted: Boolean(options.signal?.aborted),
    threadsFailed,
  };
}

async function repoIdsOf(store: Store, listIds: readonly number[]): Promise<number[]> {
  const ids = new Set<number>();
  for (const id of listIds) {
    const repoId = (await store.lists.byId(id))?.repoId;
    if (repoId !== null && repoId !== undefined) ids.add(repoId);
  }
  return [...ids];
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function emptyCounts(): ProjectCounts {
  return { examined: 0, linked: 0, created: 0, inherited: 0, mirror: 0, none: 0, issuesCreated: 0 };
}

function addCounts(into: ProjectCounts, delta: ProjectCounts): void {
  for (const field of COUNTS) into[field] += delta[field];
}

/** The policy of the system whose rules classify the list (`lists add --rules`), else of its own system. */
export function projectionPolicyOf(
  systems: Systems,
  list: Pick<ListRecord, 'system' | 'rulesSystem'>,
): ProjectionPolicy {
  const own = systems.systems.get(list.system);
  const rules = systems.systems.get(list.rulesSystem ?? own?.rulesFrom ?? list.system);
  return rules?.projectionPolicy ?? own?.projectionPolicy ?? 'none';
}

/** What one project run shares across its lists: the lock owner, the repos, the actors met. */
class ProjectRun implements ListStage<ListProjectResult> {
  readonly stage = 'project';
  readonly owner = currentLockOwner();
  private readonly repoUrls = new Map<number, string>();
  private readonly repoIdsByUrl = new Map<string, number>();
  private actorIds = new Map<string, number | null>();
  private readonly statistics: TableStatistics;

  constructor(
    private readonly store: Store,
    private readonly options: ProjectOptions,
    private readonly progress: ProgressListener,
  ) {
    this.statistics = store.project.statistics();
  }
  /** Once every list is done: the statistics of what project wrote, refreshed for what reads it next. */
  settleStatistics(): Promise<void> {
    return this.statistics.settle();
  }

  async loadRepos(): Promise<void> {
    for (const repo of await this.store.repos.all()) {
      this.repoUrls.set(repo.id, repo.url);
      this.repoIdsByUrl.set(repo.url, repo.id);
    }
  }

  start(list: ListRecord): ListProjectResult {
    return {
      listId: list.id,
      system: list.system,
      name: list.name,
      policy: this.policyOf(list),
      status: 'projected',
      ...emptyCounts(),
      failedThreads: [],
    };
  }

  /** Projects a claimed list. */
  async work(list: ListRecord, result: ListProjectResult, task: string): Promise<string> {
    await this.projectList(list, result.policy, result, task);
    if (this.options.signal?.aborted) result.status = 'interrupted';
    return describeOutcomes(result);
  }

  private policyOf(list: ListRecord): ProjectionPolicy {
    return projectionPolicyOf(this.options.systems, list);
  }

  private async projectList(
    list: ListRecord,
    policy: ProjectionPolicy,
    result: ListProjectResult,
    task: string,
  ): Promise<void> {
    const batchSize = this.options.batchSize ?? BATCH_MESSAGES;
    // Threads that failed alone before: tried again one by one, and left out of the batches.
    const failed = new Set(await this.store.project.failedRoots(list.id));
    for (const rootId of failed) {
      if (this.options.signal?.aborted) break;
      await this.projectThreads(list, policy, [rootId], result, task, failed);
    }
    // Mirror mail, or a subject's GH-N, whose pull request or issue was missing last time: an import may have brought it since.
    const retry = await this.store.project.rootsAwaitingImport(list.id);
    const pending = retry.filter((rootId) => !failed.has(rootId));
    for (let i = 0; i < pending.length; i += batchSize)
      await this.projectThreads(list, policy, pending.slice(i, i + batchSize), result, task, failed);
    let afterId = 0;
    while (!this.options.signal?.aborted) {
      const batch = await this.store.project.unprojected(list.id, afterId, batchSize);
      if (batch.length === 0) break;
      afterId = batch[batch.length - 1]!.id;
      const roots = [...new Set(batch.map((m) => m.rootId))].filter((rootId) => !failed.has(rootId));
      if (roots.length > 0) await this.projectThreads(list, policy, roots, result, task, failed);
    }
    if (policy === 'none' && !this.options.signal?.aborted)
      await this.store.transaction((tx) => this.attachMergeNotices(tx, list));
  }

  /**
   * The threads in one transaction. A batch the database keeps refusing
   * while it answers is tried thread by thread; a thread that still fails is
   * recorded in project_failures with its error (`failed` learns of it) and
   * the rest of the list goes on. The database failing stops the run.
   */
  private async projectThreads(
    list: ListRecord,
    policy: ProjectionPolicy,
    rootIds: number[],
    result: ListProjectResult,
    task: string,
    failed: Set<number>,
  ): Promise<void> {
    const examined = result.examined;
    const error = await this.tryThreads(list, policy, rootIds, result, failed);
    await this.statistics.grew(result.examined - examined);
    if (error !== undefined) {
      if (rootIds.length > 1) {
        for (const rootId of rootIds) await this.projectThreads(list, policy, [rootId], result, task, failed);
        return;
      }
      const rootId = rootIds[0]!;
      const message = errorText(error);
      await this.store.project.recordFailure(list.id, rootId, message);
      failed.add(rootId);
      const messageId =
        (await this.store.project.failures([list.id])).find((f) => f.rootId === rootId)?.messageId ?? null;
      result.failedThreads.push({ rootId, messageId, error: message });
      this.progress({
        type: 'log',
        level: 'warn',
        message: `${list.name}: the thread of ${messageId ?? `message ${rootId}`} could not be projected (${message}); kept in project_failures and tried again next run`,
      });
    }
    await this.store.locks.touch(list.id, 'project', this.owner);
    this.progress({ type: 'update', task, done: result.examined });
  }

  /** One transaction, tried again when it fails while the database answers (two processes met on one issue); the error when it kept failing. */
  private async tryThreads(
    list: ListRecord,
    policy: ProjectionPolicy,
    rootIds: number[],
    result: ListProjectResult,
    failed: Set<number>,
  ): Promise<unknown> {
    for (let attempt = 1; ; attempt++) {
      try {
        const delta = await this.store.transaction(async (tx) => {
          const delta = await this.projectInTransaction(tx, list, policy, rootIds);
          const healed = rootIds.filter((rootId) => failed.has(rootId));
          if (healed.length > 0) await tx.project.clearFailures(list.id, healed);
          return delta;
        });
        for (const rootId of rootIds) failed.delete(rootId);
        addCounts(result, delta);
        return undefined;
      } catch (error) {
        // Contributors made in a rolled-back transaction do not exist.
        this.actorIds = new Map();
        if (error instanceof StoreFailure || !(await this.store.reachable())) throw error;
        if (attempt >= 3) return error;
      }
    }
  }

  private async projectInTransaction(
    tx: Store,
    list: ListRecord,
    policy: ProjectionPolicy,
    rootIds: number[],
  ): Promise<ProjectCounts> {
    const delta = emptyCounts();
    const messages = await tx.project.threadMessages(list.id, rootIds);
    const threads = new Map<number, ProjectMessage[]>();
    for (const m of messages) addToGroup(threads, m.threadRootId ?? m.id, m);
    const kinds = new Map<number, ProjectedKind>();
    const issueLinks: IssueLink[] = [];
    const pullRequestLinks: PullRequestLink[] = [];

    if (policy === 'clean_fit') {
      const ties = [...threads.values()].flatMap((thread) => planTrackerTies(thread));
      const issues = new Map<string, IssueRef>();
      const wanted = [...new Set(ties.map((t) => `${t.message.repoId}\n${t.key}`))].sort();
      for (const pair of wanted) {
        const [repoId, key] = pair.split('\n') as [string, string];
        issues.set(pair, await this.resolveIssue(tx, Number(repoId), key, delta));
      }
      for (const tie of ties) {
        const issue = issues.get(`${tie.message.repoId}\n${tie.key}`)!;
        issueLinks.push({
          issueId: issue.id,
          emailMessageId: tie.message.id,
          role: tie.role,
          authorId: await this.authorOf(tx, tie.message),
        });
        kinds.set(tie.message.id, tie.throughThread ? 'inherited' : issue.isSynthetic ? 'created' : 'linked');
      }
    }
    for (const m of messages) {
      if (m.msgClass !== 'github_mirror') continue;
      const target = await this.mirrorLinkTarget(tx, m);
      if (!target) continue;
      const link = { emailMessageId: m.id, role: 'mirror' as const, authorId: await this.authorOf(tx, m) };
      if (target.kind === 'pull_request') pullRequestLinks.push({ pullRequestId: target.id, ...link });
      else issueLinks.push({ issueId: target.id, ...link });
      kinds.set(m.id, 'mirror');
    }
    // What is left may name an imported issue or pull request of its GitHub repo (`GH-12`, `#12`).
    for (const m of messages) {
      if (kinds.has(m.id) || !isGitHubRepo(this.repoUrls.get(m.repoId ?? 0))) continue;
      const refs = await githubReferencesOf(tx, m);
      if (refs.issueIds.length + refs.pullRequestIds.length === 0) continue;
      const link = { emailMessageId: m.id, role: 'reference' as const, authorId: await this.authorOf(tx, m) };
      for (const id of refs.pullRequestIds) pullRequestLinks.push({ pullRequestId: id, ...link });
      for (const id of refs.issueIds) issueLinks.push({ issueId: id, ...link });
      kinds.set(m.id, 'linked');
    }
    for (const m of messages) if (!kinds.has(m.id)) kinds.set(m.id, 'none');

    const messageIds = messages.map((m) => m.id);
    const touched = [
      ...new Set([...(await tx.project.linkedIssueIds(messageIds)), ...issueLinks.map((l) => l.issueId)]),
    ];
    await tx.project.lockIssues(touched);
    await tx.project.replaceLinks(messageIds, issueLinks, pullRequestLinks);
    await restateSyntheticIssues(tx, touched);
    if (policy === 'none') await this.assignSeries(tx, list, threads);
    await tx.project.setProjectedKinds(kinds);

    delta.examined = messages.length;
    for (const m of messages) {
      const kind = kinds.get(m.id)!;
      if (kind !== m.projectedKind) delta[kind]++;
    }
    return delta;
  }

  /**
   * The issue mail with this key belongs to: a native issue with the key,
   * else a native issue whose title starts with `[KEY]`, else the synthetic
   * issue of the key, made here when there is none yet.
   */
  private async resolveIssue(tx: Store, repoId: number, key: string, delta: ProjectCounts): Promise<IssueRef> {
    const byKey = await tx.project.issueByKey(repoId, key);
    if (byKey && !byKey.isSynthetic) return byKey;
    const titled = await tx.project.nativeIssueByTitleKey(repoId, key);
    if (titled) return titled;
    if (byKey) return byKey;
    const repoUrl =
      this.repoUrls.get(repoId) ?? (await this.store.repos.all()).find((r) => r.id === repoId)?.url ?? `repo:${repoId}`;
    for (let attempt = 0; attempt < 16; attempt++) {
      const id = syntheticIssueId(repoUrl, key, attempt);
      if (await tx.project.insertSyntheticIssue(id, repoId, key)) {
        delta.issuesCreated++;
        return { id, isSynthetic: true };
      }
      // Another process made it meanwhile, or another key holds this id: then the next candidate.
      const made = await tx.project.issueByKey(repoId, key);
      if (made) return made;
    }
    throw new Error(`no free synthetic issue id for ${key} after 16 candidates`);
  }

  /** The pull request or issue a mirror mail echoes, when the store has it. */
  private async mirrorLinkTarget(
    tx: Store,
    m: ProjectMessage,
  ): Promise<{ kind: 'pull_request' | 'issue'; id: number } | undefined> {
    const target = mirrorTarget(m.captures, m.messageId);
    if (!target) return undefined;
    // The repo the mail names, when registered; the list's repo when it names none.
    const repoId = m.captures?.repo
      ? m.signaledRepoUrl
        ? this.repoIdsByUrl.get(m.signaledRepoUrl)
        : undefined
      : (m.repoId ?? undefined);
    if (repoId === undefined) return undefined;
    const order = target.kind === 'issue' ? (['issue', 'pull_request'] as const) : (['pull_request', 'issue'] as const);
    for (const kind of order) {
      const id =
        kind === 'pull_request'
          ? await tx.project.pullRequestByNumber(repoId, target.number)
          : await tx.project.issueByNumber(repoId, target.number);
      if (id !== undefined) return { kind, id };
    }
    return undefined;
  }

  /**
   * Who wrote the mail: its sender when a person; for a bot's mail the actor
   * it names (a GitHub login becomes a contributor; a display name only
   * resolves to the one contributor of that name), else nobody.
   */
  private async authorOf(tx: Store, m: ProjectMessage): Promise<number | null> {
    if (!m.isBot && m.senderId !== null) return m.senderId;
    const actor = m.captures?.actor?.trim();
    if (!actor || BOT_ACTOR.test(actor)) return null;
    if (!this.actorIds.has(actor)) {
      const id = LOGIN.test(actor)
        ? await tx.contributors.ensureByLogin(actor)
        : ((await tx.contributors.idByUniqueName(actor)) ?? null);
      this.actorIds.set(actor, id);
    }
    return this.actorIds.get(actor) ?? null;
  }

  /** Patch threads of the examined mail: a thread whose root is a patch belongs to its series (same author, same title), all of it. */
  private async assignSeries(
    tx: Store,
    list: ListRecord,
    threads: ReadonlyMap<number, ProjectMessage[]>,
  ): Promise<void> {
    const changes = new Map<number, number | null>();
    for (const [rootId, thread] of threads) {
      const root = thread.find((m) => m.id === rootId);
      let seriesId: number | null = null;
      if (root?.msgClass === 'patch_submission') {
        const title = seriesTitle(root.subject);
        if (title)
          seriesId = await tx.project.ensurePatchSeries(
            list.id,
            seriesKey(root.fromAddress, title),
            title,
            root.fromAddress,
          );
      }
      for (const m of thread) if (m.patchSeriesId !== seriesId) changes.set(m.id, seriesId);
    }
    await tx.project.setPatchSeries(changes);
  }

  /**
   * A merge bot's notice outside the series' threads (its root never reached
   * the list) joins the series its subject names, when exactly one series of
   * the list has that title. Done once per run, after every thread, so the
   * answer does not depend on which came first.
   */
  private async attachMergeNotices(tx: Store, list: ListRecord): Promise<void> {
    const byTitle = new Map<string, number | null>();
    for (const series of await tx.project.patchSeriesOfList(list.id)) {
      const title = series.title.toLowerCase();
      byTitle.set(title, byTitle.has(title) ? null : series.id);
    }
    const changes = new Map<number, number | null>();
    for (const notice of await tx.project.mergeNoticesWithoutSeries(list.id)) {
      if (!MERGE_BOTS.has(notice.captures?.bot ?? '')) continue;
      const seriesId = byTitle.get(seriesTitle(notice.subject).toLowerCase());
      if (seriesId) changes.set(notice.id, seriesId);
    }
    await tx.project.setPatchSeries(changes);
    await tx.project.deleteEmptyPatchSeries(list.id);
  }
}

/** The outcomes of projected mail in words, the same in the progress view and the summary. */
export function describeOutcomes(counts: {
  linked: number;
  created: number;
  inherited: number;
  mirror: number;
  none: number;
}): string {
  return `${counts.linked} linked, ${counts.created} created, ${counts.inherited} inherited, ${counts.mirror} mirror, ${counts.none} mailing-list only`;
}
