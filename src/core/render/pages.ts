import type { RenderDetail, RenderSeries } from '../store/render-records.js';
import { monthsBetween } from '../archive/month.js';
import { sparkline, stackedChart, type MonthClassCount } from './charts.js';
import { html, outLink, page, showDate, type Html } from './html.js';
import { renderBody } from './message-body.js';
import type { ListSummary } from './site-writer.js';
import { paths, UNDATED, type Item, type Thread, type ThreadLink } from './thread-model.js';

const sender = (item: Item) => item.fromName || item.fromAddress || '(unknown sender)';

/** The page of the person behind a sender, from the site's root; undefined for bots and list addresses. */
export type PersonPage = (senderId: number | null) => string | undefined;

/** A sender's name, linked to its person's page when it has one. */
function senderLink(item: Item, up: string, personPage: PersonPage): Html {
  const href = personPage(item.senderId);
  return href
    ? html`<a class="who" href="${up}${href}">${sender(item)}</a>`
    : html`<span class="who">${sender(item)}</span>`;
}
const subjectOf = (item: Pick<Item, 'subject'>) => item.subject || '(no subject)';

/** The front page: every list of the site. */
export function frontPage(lists: readonly ListSummary[]): string {
  const rows = lists.map(
    (l) =>
      html`<tr><td><a href="lists/${l.slug}/index.html">${l.name}</a></td><td>${l.system}</td><td>${outLink(l.repoUrl, l.repoUrl ?? '')}</td><td>${l.firstMonth ?? ''}</td><td>${l.lastMonth ?? ''}</td><td class="n">${l.messages}</td><td>${sparkline(fillMonths(l.monthly))}</td></tr>`,
  );
  return page({
    title: 'Mailing lists',
    root: '',
    body: html`<h1>Mailing lists</h1>
<table><thead><tr><th>list</th><th>system</th><th>repository</th><th>first month</th><th>last month</th><th>messages</th><th>per month</th></tr></thead>
<tbody>${rows}</tbody></table>`,
  });
}

function fillMonths(monthly: ReadonlyArray<{ month: string; count: number }>): Array<{ month: string; count: number }> {
  if (monthly.length === 0) return [];
  const byMonth = new Map(monthly.map((m) => [m.month, m.count]));
  return monthsBetween(monthly[0]!.month, monthly.at(-1)!.month).map((month) => ({
    month,
    count: byMonth.get(month) ?? 0,
  }));
}

export interface ListOverview {
  summary: ListSummary;
  counts: MonthClassCount[];
  classes: string[];
  posters: Array<{ name: string; address: string; count: number; person?: string }>;
  waiting: Array<{ series: RenderSeries; page: string }>;
  seriesCount: number;
  months: Array<{ month: string; messages: number; threads: number }>;
}

/** A list's overview: chart, top posters, series waiting for review, its months. */
export function listPage(o: ListOverview): string {
  const s = o.summary;
  const dated = s.monthly.length ? monthsBetween(s.monthly[0]!.month, s.monthly.at(-1)!.month) : [];
  const posters = o.posters.map(
    (p) =>
      html`<tr><td>${p.person ? html`<a href="../../${p.person}">${p.name || p.address}</a>` : p.name}</td><td>${p.address}</td><td class="n">${p.count}</td></tr>`,
  );
  const waiting = o.waiting.map(
    ({ series, page: href }) =>
      html`<tr><td><a href="../../${href}">${series.title}</a></td><td>${series.authorAddress ?? ''}</td><td class="n">v${series.version}</td><td class="n">${series.patchCount}</td><td>${showDate(series.lastActivityAt)}</td></tr>`,
  );
  const months = o.months.map(
    (m) =>
      html`<tr><td><a href="${m.month}.html">${m.month}</a></td><td class="n">${m.messages}</td><td class="n">${m.threads}</td></tr>`,
  );
  return page({
    title: s.name,
    root: '../../',
    trail: [{ href: 'index.html', text: s.name }],
    body: html`<h1>${s.name}</h1>
<p>${s.system} · ${outLink(s.repoUrl, s.repoUrl ?? 'no repository')} · ${s.messages} messages${s.firstMonth ? html`, ${s.firstMonth} to ${s.lastMonth}` : ''}</p>
<p><a href="search.html">Search this list</a></p>
${stackedChart(dated, o.counts, o.classes)}
<h2>Top posters</h2>
<table><thead><tr><th>name</th><th>address</th><th>messages</th></tr></thead><tbody>${posters}</tbody></table>
${
  o.waiting.length
    ? html`<h2>Patch series waiting for review</h2>
<p>Series with no review reply, no Reviewed-by or Acked-by, and no commit notice.</p>
<table><thead><tr><th>series</th><th>author</th><th>version</th><th>patches</th><th>last activity</th></tr></thead><tbody>${waiting}</tbody></table>`
    : ''
}
${o.seriesCount ? html`<p><a href="series.html">All ${o.seriesCount} patch series</a></p>` : ''}
<h2>Months</h2>
<table><thead><tr><th>month</th><th>messages</th><th>threads</th></tr></thead><tbody>${months}</tbody></table>`,
  });
}

/** A thread as a patch series' page shows it. */
export type SeriesThread = ThreadLink & Pick<Thread, 'startedAt' | 'messageCount' | 'participants'>;

/** A patch series and the threads of its versions. */
export interface SeriesView {
  call: string;
  series: RenderSeries;
  versions: Array<{ version: number; thread: SeriesThread }>;
}

function seriesRow(view: SeriesView, up: string): Html {
  const s = view.series;
  return html`<tr><td><a href="${up}${paths.series(view.call)}">${s.title}</a></td><td>${s.authorAddress ?? ''}</td><td class="n">v${s.version}</td><td class="n">${s.patchCount}</td><td class="n">${s.replyCount}</td><td>${s.merged ? 'merged' : ''}</td><td>${showDate(s.lastActivityAt)}</td></tr>`;
}

const SERIES_HEAD = html`<thead><tr><th>series</th><th>author</th><th>version</th><th>patches</th><th>replies</th><th>merged</th><th>last activity</th></tr></thead>`;

/** Every patch series of a list, latest activity first. */
export function seriesListPage(summary: ListSummary, views: readonly SeriesView[]): string {
  return page({
    title: `${summary.name}: patch series`,
    root: '../../',
    trail: [
      { href: 'index.html', text: summary.name },
      { href: 'series.html', text: 'patch series' },
    ],
    body: html`<h1>${summary.name}: patch series</h1>
<table>${SERIES_HEAD}<tbody>${views.map((v) => seriesRow(v, '../../'))}</tbody></table>`,
  });
}

/** One patch series: its figures (pr_equivalents) and the thread of each version. */
export function seriesPage(summary: ListSummary, view: SeriesView): string {
  const s = view.series;
  const up = '../../';
  const versions = view.versions.map(
    ({ version, thread }) =>
      html`<tr><td class="n">v${version}</td><td><a href="${up}${paths.thread(thread.call)}">${subjectOf(thread.root)}</a></td><td>${showDate(thread.startedAt)}</td><td class="n">${thread.messageCount}</td><td class="n">${thread.participants}</td></tr>`,
  );
  const figures: Array<[string, string | number]> = [
    ['author', s.authorAddress ?? ''],
    ['latest version', `v${s.version}`],
    ['patches in it', s.patchCount],
    ['review replies', s.replyCount],
    ['Reviewed-by', s.reviewedBy],
    ['Acked-by', s.ackedBy],
    ['Tested-by', s.testedBy],
    ['participants', s.participants],
    ['first activity', showDate(s.firstActivityAt)],
    ['last activity', showDate(s.lastActivityAt)],
    ['merged', s.merged ? showDate(s.mergedAt) || 'yes' : 'no'],
  ];
  return page({
    title: s.title,
    root: up,
    trail: [
      { href: `${up}lists/${summary.slug}/index.html`, text: summary.name },
      { href: `${up}lists/${summary.slug}/series.html`, text: 'patch series' },
    ],
    body: html`<h1>${s.title}</h1>
<table><tbody>${figures.map(([name, value]) => html`<tr><th>${name}</th><td>${value}</td></tr>`)}</tbody></table>
<h2>Versions</h2>
<table><thead><tr><th>version</th><th>thread</th><th>started</th><th>messages</th><th>participants</th></tr></thead><tbody>${versions}</tbody></table>`,
  });
}

/** One month of a list: the threads with mail in it, in order of their first message. */
export function monthPage(
  summary: ListSummary,
  month: string,
  threads: readonly Thread[],
  neighbours: { previous?: string; next?: string },
): string {
  const rows = threads.map(
    (t) =>
      html`<tr><td><a href="../../${paths.thread(t.call)}">${subjectOf(t.root)}</a></td><td>${sender(t.root)}</td><td class="n">${t.messageCount}</td><td class="n">${t.participants}</td><td>${t.root.msgClass}</td><td>${showDate(t.lastAt)}</td></tr>`,
  );
  const title = month === UNDATED ? 'Mail with no date' : month;
  return page({
    title: `${summary.name}: ${title}`,
    root: '../../',
    trail: [
      { href: 'index.html', text: summary.name },
      { href: `${month}.html`, text: title },
    ],
    body: html`<h1>${summary.name}: ${title}</h1>
<nav class="pager">${neighbours.previous ? html`<a rel="prev" href="${neighbours.previous}.html">← ${neighbours.previous}</a>` : ''} ${neighbours.next ? html`<a rel="next" href="${neighbours.next}.html">${neighbours.next} →</a>` : ''}</nav>
<table><thead><tr><th>subject</th><th>started by</th><th>messages</th><th>participants</th><th>class</th><th>last activity</th></tr></thead><tbody>${rows}</tbody></table>`,
  });
}

/** A thread: its reply tree, then every message in tree order. */
export function threadPage(
  summary: ListSummary,
  thread: Thread,
  details: ReadonlyMap<number, RenderDetail>,
  neighbours: { previous?: ThreadLink; next?: ThreadLink },
  seriesOf: ReadonlyMap<number, SeriesView>,
  personPage: PersonPage,
): string {
  const up = '../../';
  const series = [
    ...new Set(thread.tree.map(({ item }) => item.patchSeriesId).filter((id): id is number => id !== null)),
  ]
    .map((id) => seriesOf.get(id))
    .filter((view): view is SeriesView => view !== undefined);
  const treeItems = thread.tree.map(
    ({ item, depth }) =>
      html`<li class="d${Math.min(depth, 12)}" data-call="${item.call}" data-parent="${thread.parents.get(item.call) ?? ''}"><a href="#m-${item.call}">${subjectOf(item)}</a> <span class="who">${sender(item)}</span> <span class="when">${showDate(item.sentAt)}</span></li>`,
  );
  const messages = thread.tree.map(({ item, depth }) => {
    const detail = details.get(item.id);
    const trailers = detail?.trailers.length
      ? html`<ul class="trailers">${detail.trailers.map((t) => html`<li>${t.kind}: ${t.name ?? ''}${t.address ? html` &lt;${t.address}&gt;` : ''}</li>`)}</ul>`
      : '';
    const links = detail?.links.length
      ? html`<ul class="links">${detail.links.map((l) => html`<li>${l.kind} ${outLink(l.url, l.label)}${l.title ? html` ${l.title}` : ''} (${l.role})</li>`)}</ul>`
      : '';
    const parent = thread.parents.get(item.call);
    return html`<article id="m-${item.call}" class="message d${Math.min(depth, 12)}">
<header><h3>${subjectOf(item)}</h3>
<p>${senderLink(item, up, personPage)}${item.fromAddress && item.fromName ? html` &lt;${item.fromAddress}&gt;` : ''} · ${showDate(item.sentAt) || 'no date'} · <span class="class">${item.msgClass}</span>${item.isBot ? ' · bot' : ''}</p>
<p class="tools"><a href="${up}${paths.message(item.call)}">${item.call}</a>${item.messageId ? html` · Message-ID <code>${item.messageId}</code>` : ''}${parent ? html` · <a href="#m-${parent}">in reply to</a>` : ''}${detail?.raw ? html` · <a href="${up}${paths.raw(item.call)}" type="message/rfc822">raw</a>` : ''}</p>
${links}${trailers}</header>
${renderBody(detail?.bodyText ?? null)}</article>`;
  });
  const pager = html`<nav class="pager">${neighbours.previous ? html`<a rel="prev" href="${up}${paths.thread(neighbours.previous.call)}">← ${subjectOf(neighbours.previous.root)}</a>` : ''} ${neighbours.next ? html`<a rel="next" href="${up}${paths.thread(neighbours.next.call)}">${subjectOf(neighbours.next.root)} →</a>` : ''}</nav>`;
  return page({
    title: subjectOf(thread.root),
    root: up,
    trail: [
      { href: `${up}lists/${summary.slug}/index.html`, text: summary.name },
      { href: `${up}lists/${summary.slug}/${thread.month}.html`, text: thread.month },
    ],
    body: html`<h1>${subjectOf(thread.root)}</h1>
<p>${thread.messageCount} messages · ${thread.participants} participants · ${showDate(thread.startedAt)} to ${showDate(thread.lastAt)} · <a href="${up}${paths.mbox(thread.call)}" type="application/mbox">thread as mbox</a>${series.map((v) => html` · patch series <a href="${up}${paths.series(v.call)}">${v.series.title}</a>`)}</p>
${pager}
<h2>Replies</h2>
<ul class="tree">${treeItems}</ul>
${messages}
${pager}`,
  });
}

/** A message's own address: a page that forwards to its place in its thread. */
export function messagePage(item: Item, thread: Thread): string {
  const target = `../../${paths.thread(thread.call)}#m-${item.call}`;
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; base-uri 'none'">
<meta http-equiv="refresh" content="0; url=${html`${target}`}">
<title>${html`${subjectOf(item)}`}</title>
</head>
<body><p><a href="${html`${target}`}">${html`${subjectOf(item)}`}</a></p></body>
</html>
`;
}

/** A list's search page: its script loads the list's month indexes (search/<month>.js) and searches them. */
export function searchPage(summary: ListSummary, months: readonly string[]): string {
  return page({
    title: `${summary.name}: search`,
    root: '../../',
    trail: [
      { href: 'index.html', text: summary.name },
      { href: 'search.html', text: 'search' },
    ],
    scripts: ['minisearch.js', 'search.js'],
    body: html`<h1>Search ${summary.name}</h1>
<form id="search" data-months="${months.join(' ')}"><label>Words <input id="query" name="q" size="50" autofocus></label> <button type="submit">Search</button></form>
<p>Subjects, senders and the text of each message (without quoted text), words matched by their start and with a typo allowed.</p>
<p id="result" role="status"></p>
<ol id="hits"></ol>
<noscript><p>Search needs JavaScript. The months of the list are on <a href="index.html">its overview</a>.</p></noscript>`,
  });
}

/** The page that finds a message by Message-ID. */
export function lookupPage(): string {
  return page({
    title: 'Find a Message-ID',
    root: '',
    scripts: ['lookup.js'],
    body: html`<h1>Find a Message-ID</h1>
<form id="lookup"><label>Message-ID <input id="message-id" name="id" size="60" autofocus></label> <button type="submit">Find</button></form>
<p id="result" role="status"></p>
<noscript><p>This page needs JavaScript. Every message also has its own address, under m/, linked from its thread.</p></noscript>`,
  });
}

/** The lookup page's script: reads ?id= or the form, loads the id's shard (ids/XX.js) and goes to the message. */
export const LOOKUP_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('lookup');
  var input = document.getElementById('message-id');
  var result = document.getElementById('result');
  function normalize(id) { var m = /<([^<>]+)>/.exec(id); return (m ? m[1] : id).replace(/[\\s\\u0000-\\u001f\\u007f]+/g, ''); }
  function say(text) { result.textContent = text; }
  function find(id) {
    id = normalize(id);
    if (!id) return;
    var bytes = new TextEncoder().encode(id);
    var hash = 0x811c9dc5;
    for (var i = 0; i < bytes.length; i++) { hash ^= bytes[i]; hash = Math.imul(hash, 0x01000193) >>> 0; }
    var shard = ('0' + (hash & 0xff).toString(16)).slice(-2);
    {
      window.listminerIds = function (map) {
        var hits = Object.prototype.hasOwnProperty.call(map, id) ? map[id] : null;
        if (!hits) { say('No message with that Message-ID is in this archive.'); return; }
        if (hits.length === 1) { location.href = hits[0]; return; }
        result.textContent = '';
        hits.forEach(function (href) { var a = document.createElement('a'); a.href = href; a.textContent = href; result.appendChild(a); result.appendChild(document.createTextNode(' ')); });
      };
      var script = document.createElement('script');
      script.src = 'ids/' + shard + '.js';
      script.onerror = function () { say('No message with that Message-ID is in this archive.'); };
      document.head.appendChild(script);
    }
  }
  form.addEventListener('submit', function (event) { event.preventDefault(); find(input.value); });
  var asked = new URLSearchParams(location.search).get('id');
  if (asked) { input.value = asked; find(asked); }
})();
`;

/** The shard of the Message-ID map an id is in: FNV-1a (32 bits) of its UTF-8 bytes, low byte in hex; lookup.js computes the same. */
export function idShardName(id: string): string {
  let hash = 0x811c9dc5;
  // Message-IDs are ASCII nearly always: their characters are their UTF-8 bytes, with no buffer to make.
  if (/^[\x00-\x7f]*$/.test(id))
    for (let i = 0; i < id.length; i++) hash = Math.imul(hash ^ id.charCodeAt(i), 0x01000193) >>> 0;
  else for (const byte of Buffer.from(id, 'utf8')) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  return (hash & 0xff).toString(16).padStart(2, '0');
}

/**
 * A shard of the Message-ID map: a script (not JSON, which pages opened from
 * disk cannot fetch) that hands the map to the lookup page. The JSON is what
 * `JSON.stringify(Object.fromEntries(map))` gives (keys that are array
 * indexes first, in numeric order, then the others in the map's order),
 * written entry by entry: building that object of a few hundred thousand ids
 * cost several times as much.
 */
export function idShard(map: ReadonlyMap<string, string[]>): string {
  const indexes: string[] = [];
  const entries: string[] = [];
  for (const [id, hrefs] of map) {
    if (isArrayIndex(id)) indexes.push(id);
    else entries.push(`${JSON.stringify(id)}:${JSON.stringify(hrefs)}`);
  }
  const first = indexes
    .sort((a, b) => Number(a) - Number(b))
    .map((id) => `${JSON.stringify(id)}:${JSON.stringify(map.get(id))}`);
  const json = `{${[...first, ...entries].join(',')}}`;
  return `listminerIds(${json
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')});\n`;
}

/** The map of a shard as idShard() wrote it; undefined for any other text. */
export function readIdShard(text: string): Map<string, string[]> | undefined {
  const head = 'listminerIds(';
  const tail = ');\n';
  if (!text.startsWith(head) || !text.endsWith(tail)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text.slice(head.length, -tail.length));
  } catch {
    return undefined;
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  const map = new Map<string, string[]>();
  for (const [id, hrefs] of Object.entries(parsed)) {
    if (!Array.isArray(hrefs) || !hrefs.every((href) => typeof href === 'string')) return undefined;
    map.set(id, hrefs);
  }
  return map;
}

/** Whether an object key is an array index (an integer below 2^32 - 1 in its canonical form), which objects order first. */
function isArrayIndex(key: string): boolean {
  return /^(?:0|[1-9]\d{0,9})$/.test(key) && Number(key) < 4_294_967_295;
}

/** The site's icon: browsers ask for one, and a missing one is an error in their console. */
export const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#3465a4"/><path d="M3 5h10v6H3z" fill="none" stroke="#fff"/><path d="M3 5l5 4 5-4" fill="none" stroke="#fff"/></svg>
`;

export const STYLE = `body { font: 15px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 70rem; padding: 0 1rem 3rem; color: #222; }
nav.trail { padding: .6rem 0; border-bottom: 1px solid #ddd; font-size: 90%; }
table { border-collapse: collapse; margin: .5rem 0 1.5rem; }
th, td { text-align: left; padding: .2rem .6rem; border-bottom: 1px solid #eee; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
pre { white-space: pre-wrap; overflow-wrap: anywhere; margin: .4rem 0; }
pre.diff { background: #f8f8f8; padding: .4rem; white-space: pre; overflow-x: auto; }
pre.diff .add { color: #116329; background: #e6ffec; }
pre.diff .del { color: #82071e; background: #ffebe9; }
pre.diff .hunk { color: #6639ba; }
pre.diff .file { font-weight: bold; }
details.quote, details.signature { color: #666; margin: .3rem 0; }
article.message { border-top: 1px solid #ccc; padding: .5rem 0 1rem; }
article.message header p { margin: .2rem 0; font-size: 90%; }
ul.tree { list-style: none; padding: 0; }
${Array.from({ length: 13 }, (_, d) => `ul.tree li.d${d} { padding-left: ${d * 1.2}rem; }`).join('\n')}
.who { font-weight: 600; } .when, .tools { color: #666; }
ul.legend { list-style: none; padding: 0; display: flex; flex-wrap: wrap; gap: .8rem; font-size: 85%; }
nav.pager { display: flex; justify-content: space-between; margin: .5rem 0; }
.none { color: #666; font-style: italic; }
figure.chart { margin: 1rem 0; }
svg.bars { display: block; height: auto; max-width: 100%; overflow: visible; font: 10px system-ui, sans-serif; }
svg.bars text { white-space: pre; }
svg.spark { display: block; overflow: visible; }
ul.mail { list-style: none; padding: 0; }
ol#hits li { margin: .2rem 0; }
`;
