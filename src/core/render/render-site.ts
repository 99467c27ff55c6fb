import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isMonth } from '../archive/month.js';
import { refuseVirtualFolder } from '../config/refuse-virtual-folder.js';
import { InputError } from '../errors.js';
import { explainWriteFailure } from '../explain-write-failure.js';
import type { ProgressListener } from '../progress.js';
import { selectLists, type ListSelection } from '../registry/select-lists.js';
import type { ListRecord } from '../store/list-records.js';
import type {
  RenderMonthClass,
  RenderMail,
  RenderMonthThreads,
  RenderRecords,
  RenderSenderCount,
  RenderSeries,
  RenderSeriesMark,
} from '../store/render-records.js';
import type { Store } from '../store/store.js';
import { callNumber, listKey, listSlug } from './call-number.js';
import {
  FAVICON,
  frontPage,
  idShard,
  idShardName,
  listPage,
  type ListOverview,
  LOOKUP_SCRIPT,
  lookupPage,
  readIdShard,
  messagePage,
  monthPage,
  searchPage,
  seriesListPage,
  seriesPage,
  type SeriesThread,
  type SeriesView,
  STYLE,
  threadPage,
} from './pages.js';
import { SitePeople } from './person-pages.js';
import { miniSearchScript, MonthSearch, SEARCH_SCRIPT, searchableText } from './search-index.js';
import { compareText, type ListSummary, SiteOutput } from './site-writer.js';
import {
  buildThreads,
  earlierFirst,
  paths,
  threadRootId,
  toMbox,
  UNDATED,
  type Thread,
  type ThreadLink,
} from './thread-model.js';
import { addToGroup } from '../add-to-group.js';

export interface RenderOptions {
  outDir: string;
  selection: ListSelection;
  /** Only months from this one (YYYY-MM) on get their month and thread pages written; overviews are always whole. */
  since?: string;
  /** Threads that make the site, this one included: 1 alone; 2 hands the writing of files to a thread; 3 (the default) the search indexes too. */
  workers?: number;
  signal?: AbortSignal;
}

export interface RenderResult {
  outDir: string;
  lists: Array<{ system: string; name: string; path: string; messages: number; threads: number }>;
  /** Files whose content changed (or that were missing), and files left as they were. */
  written: number;
  skipped: number;
  manifest: string;
  interrupted: boolean;
}

/** A render that stops keeps what it wrote: the manifest is written last, so the next render writes those pages again. */
const RENDER = {
  name: 'render',
  leaves: 'and kept the pages it wrote; the next render writes them again and the rest',
} as const;

/** How many messages' texts and raw bytes one read brings (a thread is read whole). */
const DETAIL_BATCH = 400;
const TOP_POSTERS = 15;

/**
 * Writes the static archive of the selected lists into `outDir` (docs/render.md).
 * Reads the store only, all of it from one snapshot. Every address is derived from a list's key and a
 * message's key, never from row ids, so both engines and every machine write
 * the same bytes for the same mail.
 */
export async function renderSite(
  store: Store,
  options: RenderOptions,
  progress: ProgressListener,
): Promise<RenderResult> {
  if (options.since !== undefined && !isMonth(options.since)) {
    throw new InputError(`--since ${options.since} is not a month.`, 'Give a month as YYYY-MM, e.g. 2024-03.');
  }
  refuseVirtualFolder(options.outDir, '--out');
  // One snapshot for the whole site: pages read while another process writes are of one moment.
  return store.readSnapshot((snapshot) => renderSnapshot(snapshot, options, progress));
}

async function renderSnapshot(store: Store, options: RenderOptions, progress: ProgressListener): Promise<RenderResult> {
  const lists = await selectLists(store, options.selection);
  const workers = options.workers ?? 3;
  const writer = await SiteOutput.open(options.outDir, workers >= 2, ID_SHARDS).catch((error: unknown) => {
    throw explainWriteFailure(error, options.outDir, RENDER);
  });
  const search = MonthSearch.start(workers >= 3);
  try {
    return await renderInto(store, options, progress, lists, writer, search);
  } catch (error) {
    await writer.abandon();
    throw explainWriteFailure(error, options.outDir, RENDER);
  } finally {
    await search.close();
  }
}

async function renderInto(
  store: Store,
  options: RenderOptions,
  progress: ProgressListener,
  lists: ListRecord[],
  writer: SiteOutput,
  search: MonthSearch,
): Promise<RenderResult> {
  const records = store.render;
  const ids: IdShards = new Map();
  /** Under --since, the threads read whole. */
  const rendered: Thread[] = [];
  const people = new SitePeople();
  /** The lists of the site by id: those rendered now and those rendered into the folder before. */
  const site = new Map<number, { key: string; summary: ListSummary }>();
  const result: RenderResult = {
    outDir: options.outDir,
    lists: [],
    written: 0,
    skipped: 0,
    manifest: '',
    interrupted: false,
  };

  for (const list of lists) {
    if (options.signal?.aborted) {
      result.interrupted = true;
      break;
    }
    const task = `${list.system} ${list.name}`;
    progress({ type: 'start', task, title: task });
    const { summary, threads, threadCount } = await renderList(
      records,
      writer,
      search,
      list,
      options,
      progress,
      task,
      people,
    );
    site.set(list.id, { key: listKey(list), summary });
    if (options.since === undefined) {
      people.addList(summary, threads);
      for (const thread of threads)
        for (const { item } of thread.tree) if (item.messageId) addId(ids, item.messageId, item.call);
    } else for (const thread of threads) rendered.push(thread); // not spread: a long list's threads would pass the limit on arguments
    result.lists.push({
      system: list.system,
      name: list.name,
      path: `lists/${summary.slug}/index.html`,
      messages: summary.messages,
      threads: threadCount,
    });
    progress({
      type: 'end',
      task,
      // A list cut short by a stop is not done: its pages are written again by the next render.
      status: options.signal?.aborted ? 'skipped' : 'done',
      detail: `${summary.messages} messages, ${threadCount} threads`,
    });
  }
  if (options.signal?.aborted) result.interrupted = true;

  if (!result.interrupted) {
    // Lists rendered into this folder before and not chosen now keep their place on the front page and in the Message-ID map.
    const chosen = new Set(lists.map((l) => l.id));
    const others: number[] = [];
    const known = await writer.lists();
    for (const list of await store.lists.all({})) {
      if (chosen.has(list.id) || !known[listSlug(list)]) continue;
      const summary = summarize(list, await records.monthClasses(list.id));
      writer.setList(summary);
      site.set(list.id, { key: listKey(list), summary });
      others.push(list.id);
    }
    const { since } = options;
    const shards =
      since === undefined
        ? await idsOfWholeSite(records, others, site, people, ids)
        : await idsSince(records, since, rendered, readIdShards(options.outDir, await writer.found()), site, people);
    for (const [path, content] of people.pages()) writer.write(path, content);
    for (const [name, shard] of [...shards].sort(([a], [b]) => compareText(a, b))) {
      const sorted = new Map(
        [...shard].sort(([a], [b]) => compareText(a, b)).map(([id, hrefs]) => [id, hrefs.sort(compareText)]),
      );
      writer.write(`${ID_SHARDS}${name}.js`, idShard(sorted));
    }
    // The search thread indexed the last months while people and the Message-ID map were made.
    await search.finish();
    writer.write('style.css', STYLE);
    writer.write('favicon.svg', FAVICON);
    writer.write('lookup.js', LOOKUP_SCRIPT);
    writer.write('search.js', SEARCH_SCRIPT);
    writer.write('minisearch.js', miniSearchScript());
    writer.write('lookup.html', lookupPage());
    const summaries = Object.values(await writer.lists()).sort(
      (a, b) => compareText(a.name, b.name) || compareText(a.system, b.system),
    );
    writer.write('index.html', frontPage(summaries));
  }
  const figures = result.interrupted ? await writer.abandon() : await writer.close();
  return { ...result, ...figures };
}

/** The Message-ID map by shard (idShardName): each Message-ID with the pages of its messages. */
type IdShards = Map<string, Map<string, string[]>>;

function addId(ids: IdShards, messageId: string, call: string): void {
  const name = idShardName(messageId);
  const shard = ids.get(name) ?? new Map<string, string[]>();
  ids.set(name, shard);
  const href = paths.message(call);
  const hrefs = shard.get(messageId);
  if (!hrefs) shard.set(messageId, [href]);
  else if (!hrefs.includes(href)) hrefs.push(href);
}

/**
 * A whole render's Message-ID map: `ids` holds those of the lists it
 * rendered; those of the lists rendered into the folder before (`others`)
 * are read, and their mail added to the pages of its senders.
 */
async function idsOfWholeSite(
  records: RenderRecords,
  others: readonly number[],
  site: ReadonlyMap<number, { key: string; summary: ListSummary }>,
  people: SitePeople,
  ids: IdShards,
): Promise<IdShards> {
  const mail = await records.mail(others);
  await people.learn(
    records,
    mail.map((m) => m.senderId),
  );
  addMail(mail, site, people, ids);
  return ids;
}

/**
 * The shards of the Message-ID map an update from `since` on changes, and
 * the pages of the people with mail from then on in the lists rendered now
 * (all that mail is in the threads read whole). The map is the one on disk
 * with the Message-IDs of the threads read whole added, whose pages are
 * written now; when it cannot be read as render wrote it (a folder never
 * rendered whole, a shard missing or edited by hand), it is made again from
 * every Message-ID of the site.
 */
async function idsSince(
  records: RenderRecords,
  since: string,
  rendered: readonly Thread[],
  onDisk: IdShards | undefined,
  site: ReadonlyMap<number, { key: string; summary: ListSummary }>,
  people: SitePeople,
): Promise<IdShards> {
  const shards: IdShards = new Map();
  const senders = new Set<number>();
  for (const thread of rendered)
    for (const { item } of thread.tree) {
      // Every message of a thread read whole has its page written now, a late one dated before the month too.
      if (onDisk && item.messageId) {
        const name = idShardName(item.messageId);
        if (!shards.has(name)) shards.set(name, onDisk.get(name) ?? new Map<string, string[]>());
        addId(shards, item.messageId, item.call);
      }
      if (item.senderId !== null && (!item.sentAt || item.sentAt.slice(0, 7) >= since)) senders.add(item.senderId);
    }
  await people.learn(records, senders);
  const mail = onDisk ? await records.mailOf([...senders], [...site.keys()]) : await records.mail([...site.keys()]);
  addMail(mail, site, people, onDisk ? undefined : shards, senders);
  return shards;
}

/** Adds mail to the Message-ID map (when given) and to the pages of its senders (of `senders`, when given; else of every sender learnt). */
function addMail(
  mail: readonly RenderMail[],
  site: ReadonlyMap<number, { key: string; summary: ListSummary }>,
  people: SitePeople,
  ids: IdShards | undefined,
  senders?: ReadonlySet<number>,
): void {
  for (const message of mail) {
    const { key, summary } = site.get(message.listId)!;
    const call = callNumber(key, message.messageKey);
    if (ids && message.messageId) addId(ids, message.messageId, call);
    if (message.senderId !== null && (!senders || senders.has(message.senderId)))
      people.addMessage(message.senderId, { list: summary, call, subject: message.subject, sentAt: message.sentAt });
  }
}

/** Where the Message-ID map's shards are, in the site. */
const ID_SHARDS = 'ids/';

/**
 * The Message-ID map's shards in the folder, by name: those the manifest
 * holds (`known`), each of which must be there, and any other a render
 * stopped before its manifest left. Undefined when there are none, or one is
 * missing or not as idShard() writes it.
 */
function readIdShards(outDir: string, known: readonly string[]): IdShards | undefined {
  const folder = join(outDir, ID_SHARDS);
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => /^[0-9a-f]{2}\.js$/.test(name));
  } catch {
    return undefined;
  }
  const present = new Set(names);
  if (names.length === 0 || known.some((path) => !present.has(path.slice(ID_SHARDS.length)))) return undefined;
  const shards: IdShards = new Map();
  for (const name of names) {
    const shard = readIdShard(readFileSync(join(folder, name), 'utf8'));
    if (!shard) return undefined;
    shards.set(name.slice(0, 2), shard);
  }
  return shards;
}

/**
 * The address of a thread not read whole, from its root's key: made when
 * first asked for, since placing a thread needs it only to order threads
 * that started at the same moment, and only the neighbours of the threads
 * rendered link to it (a hash per thread of a long list otherwise).
 */
class RootLink implements ThreadLink {
  private made: string | undefined;
  readonly root: { subject: string | null };

  constructor(
    private readonly key: string,
    private readonly rootKey: string,
    subject: string | null,
  ) {
    this.root = { subject };
  }

  get call(): string {
    return (this.made ??= callNumber(this.key, this.rootKey));
  }
}

/** A list's threads in order, each with its page's address and subject; the threads read whole carry their messages. */
interface PlacedThread {
  link: ThreadLink;
  startedAt: string | null;
  thread?: Thread;
  /** Under --since, the thread's id in the store (threads() gives it). */
  rootId?: number;
}

/** Every thread of a list, read whole. */
async function allThreads(
  records: RenderRecords,
  list: ListRecord,
): Promise<{ placed: PlacedThread[]; neighbours: Set<number>; marks: RenderSeriesMark[] }> {
  const threads = buildThreads(listKey(list), await records.heads(list.id));
  return {
    placed: threads.map((thread) => ({ link: thread, startedAt: thread.startedAt, thread })),
    neighbours: new Set(),
    marks: [],
  };
}

/**
 * The threads an update from `since` on needs, read whole: those with mail
 * since then (or with no date), and their neighbours in the list's order
 * (whose previous and next links may have changed). The others are placed in
 * order from one row each, without their messages; of those holding mail of
 * a patch series (whose pages show every version) a few columns of each
 * message are read.
 */
async function threadsSince(
  records: RenderRecords,
  list: ListRecord,
  since: string,
): Promise<{ placed: PlacedThread[]; neighbours: Set<number>; marks: RenderSeriesMark[] }> {
  const key = listKey(list);
  const entries = await records.threads(list.id, since);
  const byRoot = new Map<number, Thread>();
  const load = async (rootIds: number[]) => {
    if (rootIds.length === 0) return;
    for (const thread of buildThreads(key, await records.threadHeads(list.id, rootIds)))
      byRoot.set(threadRootId(thread), thread);
  };
  // A thread whose root is not one of its own messages takes its address from its earliest message: read it to know it.
  await load(entries.filter((e) => e.fresh || e.rootKey === null).map((e) => e.rootId));
  const placed = entries.map((entry): PlacedThread & { rootId: number; fresh: boolean } => {
    const thread = byRoot.get(entry.rootId);
    const link = thread ?? new RootLink(key, entry.rootKey!, entry.rootSubject);
    return {
      link,
      startedAt: thread ? thread.startedAt : entry.startedAt,
      thread,
      rootId: entry.rootId,
      fresh: entry.fresh,
    };
  });
  placed.sort((a, b) => earlierFirst(a.startedAt, a.link.call, b.startedAt, b.link.call));
  const neighbours = new Set<number>();
  for (const [index, entry] of placed.entries()) {
    if (!entry.fresh) continue;
    for (const at of [index - 1, index + 1]) if (placed[at]?.fresh === false) neighbours.add(at);
  }
  await load([...neighbours].filter((at) => !placed[at]!.thread).map((at) => placed[at]!.rootId));
  for (const at of neighbours) placed[at]!.thread = byRoot.get(placed[at]!.rootId);
  // A patch series' page shows each of its threads' figures: those not read whole are counted from a few columns.
  const inSeries = new Set(entries.filter((e) => e.inSeries).map((e) => e.rootId));
  const marks = await records.seriesMarks(
    list.id,
    placed.filter((p) => !p.thread && inSeries.has(p.rootId)).map((p) => p.rootId),
  );
  return { placed, neighbours, marks };
}

async function renderList(
  records: RenderRecords,
  writer: SiteOutput,
  search: MonthSearch,
  list: ListRecord,
  options: RenderOptions,
  progress: ProgressListener,
  task: string,
  people: SitePeople,
): Promise<{ summary: ListSummary; threads: Thread[]; threadCount: number }> {
  const { since } = options;
  const figures = await records.monthClasses(list.id);
  const summary = summarize(list, figures);
  writer.setList(summary);
  // Every sender of the list, for the overview's posters and the links of its pages to people.
  const senders = await records.senders(list.id);
  await people.learn(
    records,
    senders.map((s) => s.senderId),
  );
  const { placed, neighbours, marks } =
    since === undefined ? await allThreads(records, list) : await threadsSince(records, list, since);
  const threads = placed.flatMap(({ thread }) => (thread ? [thread] : []));
  const wanted = (month: string) => !since || month === UNDATED || month >= since;

  // A month's page lists every thread with mail in that month, so a thread of replies over a year shows in each of its months.
  const byMonth = new Map<string, Thread[]>();
  for (const thread of threads) {
    for (const month of new Set(thread.tree.map(({ item }) => monthOf(item.sentAt)))) {
      if (!wanted(month)) continue;
      addToGroup(byMonth, month, thread);
    }
  }
  const monthNames = [...new Set(figures.map((f) => f.month ?? UNDATED))].sort((a, b) =>
    a === UNDATED ? 1 : b === UNDATED ? -1 : compareText(a, b),
  );

  const series = seriesViews(listKey(list), await records.series(list.id), [
    ...threads.map((thread) => ({
      thread,
      rootVersion: thread.root.patchVersion,
      marks: thread.tree.map(({ item }) => item),
    })),
    ...seriesThreads(placed, marks),
  ]);
  const seriesOf = new Map(series.map((view) => [view.series.seriesId, view]));
  writer.write(
    `lists/${summary.slug}/index.html`,
    listPage(overview(summary, figures, await records.monthThreads(list.id), senders, series, monthNames, people)),
  );
  writer.write(`lists/${summary.slug}/search.html`, searchPage(summary, monthNames));
  if (series.length) writer.write(`lists/${summary.slug}/series.html`, seriesListPage(summary, series));
  for (const view of series) writer.write(paths.series(view.call), seriesPage(summary, view));
  for (const [index, month] of monthNames.entries()) {
    if (!wanted(month)) continue;
    writer.write(
      `lists/${summary.slug}/${month}.html`,
      monthPage(summary, month, byMonth.get(month)!, { previous: monthNames[index - 1], next: monthNames[index + 1] }),
    );
  }

  // A thread is rendered when any of its mail is in a wanted month (a reply in March changes a thread that started in January), and so are its neighbours' under --since.
  const chosen = placed.flatMap(({ thread }, index) =>
    thread && (neighbours.has(index) || thread.tree.some(({ item }) => wanted(monthOf(item.sentAt))))
      ? [{ thread, index }]
      : [],
  );
  // A month's index is whole when the last thread with mail in it is read.
  const threadsLeft = new Map(monthNames.filter(wanted).map((month) => [month, byMonth.get(month)!.length]));
  let done = 0;
  let batch: typeof chosen = [];
  let batchSize = 0;
  const flush = async () => {
    const details = await records.details(batch.flatMap(({ thread }) => thread.tree.map(({ item }) => item.id)));
    for (const { thread, index } of batch) {
      writer.write(
        paths.thread(thread.call),
        threadPage(
          summary,
          thread,
          details,
          { previous: placed[index - 1]?.link, next: placed[index + 1]?.link },
          seriesOf,
          people.pageOf,
        ),
      );
      const raws: Array<{ raw: Buffer; from: string | null; sentAt: string | null }> = [];
      for (const { item } of thread.tree) {
        const month = monthOf(item.sentAt);
        if (wanted(month)) {
          search.add(month, {
            id: item.call,
            subject: item.subject ?? '',
            sender: [item.fromName, item.fromAddress].filter(Boolean).join(' '),
            text: searchableText(details.get(item.id)?.bodyText ?? null),
            href: paths.message(item.call),
            date: item.sentAt?.slice(0, 10) ?? '',
          });
        }
        writer.write(paths.message(item.call), messagePage(item, thread));
        const raw = details.get(item.id)?.raw;
        if (raw) {
          writer.write(paths.raw(item.call), raw);
          raws.push({ raw, from: item.fromAddress, sentAt: item.sentAt });
        }
      }
      writer.write(paths.mbox(thread.call), toMbox(raws));
      for (const month of new Set(thread.tree.map(({ item }) => monthOf(item.sentAt)))) {
        const left = threadsLeft.get(month);
        if (left === undefined) continue;
        threadsLeft.set(month, left - 1);
        if (left === 1)
          search.take(month, (script) => writer.write(`lists/${summary.slug}/search/${month}.js`, script));
      }
    }
    done += batch.length;
    progress({ type: 'update', task, done, total: chosen.length });
    batch = [];
    batchSize = 0;
    await Promise.all([writer.settle(), search.settle()]);
  };
  for (const entry of chosen) {
    if (options.signal?.aborted) break;
    batch.push(entry);
    batchSize += entry.thread.messageCount;
    if (batchSize >= DETAIL_BATCH) await flush();
  }
  if (batch.length) await flush();
  return { summary, threads, threadCount: placed.length };
}

function monthOf(sentAt: string | null): string {
  return sentAt ? sentAt.slice(0, 7) : UNDATED;
}

function summarize(list: ListRecord, figures: readonly RenderMonthClass[]): ListSummary {
  const perMonth = new Map<string, number>();
  let messages = 0;
  for (const { month, messages: count } of figures) {
    messages += count;
    if (month !== null) perMonth.set(month, (perMonth.get(month) ?? 0) + count);
  }
  const monthly = [...perMonth].sort(([a], [b]) => compareText(a, b)).map(([month, count]) => ({ month, count }));
  return {
    slug: listSlug(list),
    system: list.system,
    // A local archive is shown by its file's name: the path is of the machine that rendered it.
    name: listKey(list),
    repoUrl: list.repoUrl,
    firstMonth: monthly[0]?.month ?? null,
    lastMonth: monthly.at(-1)?.month ?? null,
    messages,
    monthly,
  };
}

/** A thread as seriesViews() reads it: its figures, its root's version, and the series and version of each message. */
interface ThreadOfSeries {
  thread: SeriesThread;
  rootVersion: number | null;
  marks: Iterable<{ patchSeriesId: number | null; patchVersion: number | null }>;
}

/**
 * A list's patch series with the thread of each version: a thread holding
 * mail of the series counts as the version its patches carry (the highest,
 * when a thread mixes them; v1 when none says).
 */
function seriesViews(key: string, rows: readonly RenderSeries[], threads: Iterable<ThreadOfSeries>): SeriesView[] {
  const found = new Map<number, Map<SeriesThread, number>>();
  for (const { thread, rootVersion, marks } of threads) {
    for (const { patchSeriesId, patchVersion } of marks) {
      if (patchSeriesId === null) continue;
      const versions = found.get(patchSeriesId) ?? new Map<SeriesThread, number>();
      found.set(patchSeriesId, versions);
      versions.set(thread, Math.max(versions.get(thread) ?? 1, patchVersion ?? rootVersion ?? 1));
    }
  }
  return rows
    .map((series) => ({
      call: callNumber(key, `series\n${series.seriesKey}`),
      series,
      versions: [...(found.get(series.seriesId) ?? [])]
        .map(([thread, version]) => ({ version, thread }))
        .sort(
          (a, b) =>
            a.version - b.version ||
            compareText(a.thread.startedAt ?? '', b.thread.startedAt ?? '') ||
            compareText(a.thread.call, b.thread.call),
        ),
    }))
    .sort(
      (a, b) =>
        compareText(b.series.lastActivityAt ?? '', a.series.lastActivityAt ?? '') || compareText(a.call, b.call),
    );
}

/** Threads of patch series read without their heads, as seriesViews() reads them. */
function seriesThreads(placed: readonly PlacedThread[], marks: readonly RenderSeriesMark[]): ThreadOfSeries[] {
  const byRoot = new Map<number, RenderSeriesMark[]>();
  for (const mark of marks) {
    addToGroup(byRoot, mark.rootId, mark);
  }
  const threads: ThreadOfSeries[] = [];
  for (const entry of placed) {
    const group = entry.thread || entry.rootId === undefined ? undefined : byRoot.get(entry.rootId);
    if (!group) continue;
    threads.push({
      thread: {
        call: entry.link.call,
        root: entry.link.root,
        startedAt: entry.startedAt,
        messageCount: group.length,
        participants: new Set(group.map((m) => (m.fromAddress ?? m.fromName ?? '').toLowerCase())).size,
      },
      rootVersion: group.find((m) => m.id === entry.rootId)?.patchVersion ?? null,
      marks: group,
    });
  }
  return threads;
}

/** A list's overview, from the store's counts per month, class and sender rather than from every message. */
function overview(
  summary: ListSummary,
  figures: readonly RenderMonthClass[],
  monthThreads: readonly RenderMonthThreads[],
  senders: readonly RenderSenderCount[],
  series: readonly SeriesView[],
  monthNames: readonly string[],
  people: SitePeople,
): ListOverview {
  const messagesInMonth = new Map<string, number>();
  for (const { month, messages } of figures)
    messagesInMonth.set(month ?? UNDATED, (messagesInMonth.get(month ?? UNDATED) ?? 0) + messages);
  const threadsInMonth = new Map(monthThreads.map(({ month, threads }) => [month ?? UNDATED, threads]));
  // A poster is an address in lower case; its name and page are those of its earliest message that has one.
  const posters = new Map<string, { name: string; address: string; count: number; person?: string }>();
  for (const sender of [...senders].sort((a, b) => a.firstId - b.firstId)) {
    const address = (sender.fromAddress ?? '').toLowerCase();
    const poster = posters.get(address) ?? { name: sender.fromName ?? '', address, count: 0 };
    poster.count += sender.messages;
    if (!poster.name && sender.fromName) poster.name = sender.fromName;
    poster.person ??= people.pageOf(sender.senderId);
    posters.set(address, poster);
  }
  return {
    summary,
    counts: figures
      .filter((f): f is RenderMonthClass & { month: string } => f.month !== null)
      .map(({ month, msgClass, messages }) => ({ month, msgClass, count: messages }))
      .sort((a, b) => compareText(a.month, b.month) || compareText(a.msgClass, b.msgClass)),
    classes: [...new Set(figures.map((f) => f.msgClass))].sort(compareText),
    posters: [...posters.values()]
      .sort((a, b) => b.count - a.count || compareText(a.address, b.address))
      .slice(0, TOP_POSTERS),
    waiting: series
      .filter(({ series: s }) => s.replyCount === 0 && s.reviewedBy === 0 && s.ackedBy === 0 && !s.merged)
      .map((view) => ({ series: view.series, page: paths.series(view.call) })),
    seriesCount: series.length,
    months: monthNames.map((month) => ({
      month,
      messages: messagesInMonth.get(month) ?? 0,
      threads: threadsInMonth.get(month) ?? 0,
    })),
  };
}
