import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import MiniSearch, { type Options } from 'minisearch';
import { splitBody } from './message-body.js';
import { WorkerLink } from './worker-link.js';

/**
 * A list's search index (docs/render.md): one MiniSearch index a month,
 * built at render time and written as a script that hands it to the search
 * page, because a page opened from disk cannot fetch a JSON file. A month's
 * index changes only when that month's mail does, so `--since` rewrites
 * only the months it renders.
 */

export interface SearchDocument {
  id: string;
  subject: string;
  sender: string;
  text: string;
  /** The message's page, from the site's root. */
  href: string;
  date: string;
}

/** What is indexed and what a hit shows; the search page loads the index with the same options. */
export const SEARCH_OPTIONS: Options<SearchDocument> = {
  fields: ['subject', 'sender', 'text'],
  storeFields: ['subject', 'sender', 'href', 'date'],
};

/** How much of one message's own text is indexed: patches and long mails are cut, so no month's index balloons. */
const TEXT_LIMIT = 20_000;

/** A message's own words: its text and patches, without quoted text and signature. */
export function searchableText(body: string | null): string {
  if (!body) return '';
  const own = splitBody(body)
    .filter((block) => block.kind === 'text' || block.kind === 'diff')
    .map((block) => block.lines.join('\n'))
    .join('\n');
  return own.length > TEXT_LIMIT ? own.slice(0, TEXT_LIMIT) : own;
}

/**
 * The indexes of one list's months, filled as its threads render. A month's
 * index is written and let go as soon as its last thread is read, so memory
 * holds the months still open, not the whole list.
 */
export class MonthIndexes {
  private readonly months = new Map<string, MiniSearch<SearchDocument>>();

  add(month: string, document: SearchDocument): void {
    let index = this.months.get(month);
    if (!index) {
      index = new MiniSearch<SearchDocument>(SEARCH_OPTIONS);
      this.months.set(month, index);
    }
    index.add(document);
  }

  /** The month's index as the script the search page loads (`search/<month>.js`), forgotten here. */
  take(month: string): string | undefined {
    const index = this.months.get(month);
    this.months.delete(month);
    return index && `listminerSearch(${JSON.stringify(month)}, ${scriptSafe(JSON.stringify(index))});\n`;
  }
}

/** What the search thread is asked: documents to add, or a month's script to hand back. */
export type SearchRequest = { add: Array<[month: string, document: SearchDocument]> } | { take: string };

const SEARCH_WORKER = fileURLToPath(new URL('./search-worker.js', import.meta.url));
/** Documents held here before they go to the search thread in one message. */
const HAND_OVER = 500;
/**
 * Requests the search thread may have waiting when the render waits for
 * it (settle): at most 16 batches of 500 documents. Room for a few lets the pages run
 * ahead while the thread catches up: an incremental render of 100,000
 * messages took 3.3 s with 16 where it took 4.0–4.8 s with 4.
 */
const ROOM = 16;

/**
 * A list's month indexes (MonthIndexes), built on a thread of their own when
 * one is asked for and the compiled worker exists, else on this one: the
 * same documents in the same order give the same scripts either way.
 * Indexing is a third of a whole render's CPU (docs/performance.md), and
 * needs nothing the pages need.
 */
export class MonthSearch {
  private held: Array<[string, SearchDocument]> = [];
  /** Months asked for and not yet handed over. */
  private taken: Array<Promise<void>> = [];

  private constructor(
    private readonly link: WorkerLink<SearchRequest, string | undefined> | undefined,
    private readonly local: MonthIndexes,
  ) {}

  static start(thread: boolean): MonthSearch {
    const link = thread ? WorkerLink.start<SearchRequest, string | undefined>(SEARCH_WORKER) : undefined;
    return new MonthSearch(link, new MonthIndexes());
  }

  add(month: string, document: SearchDocument): void {
    if (!this.link) return this.local.add(month, document);
    this.held.push([month, document]);
    if (this.held.length >= HAND_OVER) this.handOver();
  }

  /**
   * Hands the month's script (take() of MonthIndexes), once every document
   * added before is indexed, to `use`: at once on this thread, else when the
   * search thread answers (finish() waits for every answer).
   */
  take(month: string, use: (script: string) => void): void {
    if (!this.link) {
      const script = this.local.take(month);
      if (script) use(script);
      return;
    }
    this.handOver();
    const taken = this.link.request({ take: month }).then((script) => {
      if (script) use(script);
    });
    taken.catch(() => undefined); // the link fails with it, and finish() or settle() throws it
    this.taken.push(taken);
  }

  /** Waits until every month asked for is handed over. */
  async finish(): Promise<void> {
    const taken = this.taken;
    this.taken = [];
    await Promise.all(taken);
  }

  /** Hands over what is held and waits until the thread has few requests left. */
  async settle(): Promise<void> {
    if (!this.link) return;
    this.handOver();
    await this.link.settle(ROOM);
  }

  async close(): Promise<void> {
    await this.link?.close();
  }

  private handOver(): void {
    if (this.held.length === 0) return;
    this.link!.post({ add: this.held });
    this.held = [];
  }
}

/** JSON that cannot end a script element or a line of JavaScript. */
export function scriptSafe(json: string): string {
  return json
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** MiniSearch's browser build (UMD: it sets the global MiniSearch), copied into the site as it ships. */
export function miniSearchScript(): string {
  const main = createRequire(import.meta.url).resolve('minisearch');
  return readFileSync(join(dirname(main), '..', 'umd', 'index.js'), 'utf8');
}

/** The search page's script: loads every month's index of the list (script files, so it works from disk) and searches them all. */
export const SEARCH_SCRIPT = `'use strict';
(function () {
  var form = document.getElementById('search');
  var input = document.getElementById('query');
  var result = document.getElementById('result');
  var hits = document.getElementById('hits');
  var months = (form.getAttribute('data-months') || '').split(' ').filter(Boolean);
  var options = ${JSON.stringify(SEARCH_OPTIONS)};
  var indexes = [];
  var pending = months.length;
  var asked = null;
  window.listminerSearch = function (month, index) { indexes.push(MiniSearch.loadJS(index, options)); };
  function loaded() { pending--; if (pending === 0 && asked !== null) run(asked); }
  months.forEach(function (month) {
    var script = document.createElement('script');
    script.src = 'search/' + month + '.js';
    script.onload = loaded;
    script.onerror = loaded;
    document.head.appendChild(script);
  });
  function run(query) {
    asked = query;
    if (pending > 0) { result.textContent = 'Loading the index…'; return; }
    var found = [];
    indexes.forEach(function (index) { found = found.concat(index.search(query, { prefix: true, fuzzy: 0.2, boost: { subject: 2, sender: 1.5 } })); });
    found.sort(function (a, b) { return b.score - a.score || (a.date < b.date ? 1 : a.date > b.date ? -1 : 0); });
    hits.textContent = '';
    result.textContent = found.length === 0 ? 'No message matches.' : found.length + (found.length === 1 ? ' message' : ' messages') + (found.length > 200 ? ', the best 200 shown' : '') + '.';
    found.slice(0, 200).forEach(function (hit) {
      var li = document.createElement('li');
      var a = document.createElement('a');
      a.href = '../../' + hit.href;
      a.textContent = hit.subject || '(no subject)';
      li.appendChild(a);
      li.appendChild(document.createTextNode(' ' + hit.sender + ' ' + hit.date));
      hits.appendChild(li);
    });
  }
  form.addEventListener('submit', function (event) { event.preventDefault(); run(input.value); });
  var query = new URLSearchParams(location.search).get('q');
  if (query) { input.value = query; run(query); }
})();
`;
