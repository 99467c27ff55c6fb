/**
 * Real list mail for the benchmark: the messages of the corpus's mbox files
 * that hold two or more messages, cycled until there are as many as asked
 * for. Each cycle gives every Message-ID, In-Reply-To and References id a
 * prefix of its own (the same within a cycle, so threads stay threads) and
 * each message a Date spread evenly over the archive's 24 months.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { mailDate } from './mail-encoding.js';
import { ARCHIVE_END, ARCHIVE_START } from './synthetic-archive.js';

const SHARED = fileURLToPath(new URL('../../shared/corpus', import.meta.url));
const FETCHED = fileURLToPath(new URL('../.corpus', import.meta.url));
/** Expected outputs, indexes and licences in the corpus, not mail. */
const NOT_MAIL =
  /\.(?:json|yaml|yml|verify|html?|zip|gz|py|md|js|ts|rs|expected|out)$|(?:^|\/)(?:COPYING|LICENSE[^/]*|README[^/]*|MANIFEST\.md)$/i;

/** LISTMINER_CORPUS, else the corpus beside the project, else the copy `npm run corpus` fetched. */
export function corpusDirectory() {
  return process.env.LISTMINER_CORPUS ?? (existsSync(SHARED) || !existsSync(FETCHED) ? SHARED : FETCHED);
}

/** Why the corpus cannot be used, or undefined when it can. */
export function corpusMissing(dir = corpusDirectory()) {
  return existsSync(dir) ? undefined : `the mail corpus is not at ${dir} (set LISTMINER_CORPUS, or run npm run corpus)`;
}

/** The corpus's mail, file by file: only files listminer's mbox reader splits into two or more messages. */
export async function loadCorpusMail(dir = corpusDirectory()) {
  const { MboxSplitter } = await import(new URL('../dist/core/archive/mbox-reader.js', import.meta.url).href);
  const files = [];
  const walk = (folder) => {
    for (const name of readdirSync(folder).sort()) {
      const path = join(folder, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (!NOT_MAIL.test(path)) {
        const splitter = new MboxSplitter(true);
        const entries = [...splitter.push(readFileSync(path)), ...splitter.end()].filter(
          (entry) => entry.raw.length > 0,
        );
        if (entries.length >= 2)
          files.push(entries.map((entry) => ({ raw: entry.raw, sender: envelopeSender(entry.fromLine) })));
      }
    }
  };
  walk(dir);
  return files;
}

/** The corpus cycled to `messages` messages, in the shape the synthetic archive yields. */
export async function corpusArchive({ messages, corpusDir }) {
  const files = await loadCorpusMail(corpusDir);
  if (files.length === 0)
    throw new Error(`no mbox file with two or more messages under ${corpusDir ?? corpusDirectory()}`);
  return cycleCorpus(files, messages);
}

export function* cycleCorpus(files, messages) {
  const step = (ARCHIVE_END - ARCHIVE_START) / messages;
  let index = 0;
  for (let cycle = 0; ; cycle++) {
    for (let file = 0; file < files.length; file++) {
      const taken = new Set();
      for (const { raw, sender } of files[file]) {
        if (index === messages) return;
        const arrived = new Date(ARCHIVE_START + Math.floor((index + 0.5) * step));
        yield { raw: renamed(raw, `c${cycle}f${file}`, arrived, taken, index), arrived, sender };
        index++;
      }
    }
  }
}

/**
 * The message with its ids prefixed and its Date replaced. A Message-ID the
 * file used before (corpora hold deliberate duplicates) gets a suffix, so
 * every message of the archive is a new one; In-Reply-To and References keep
 * pointing at the first.
 */
function renamed(raw, prefix, arrived, taken, index) {
  const text = raw.toString('latin1');
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  const rest = split ? text.slice(split.index) : '\n';
  const eol = head.includes('\r\n') ? '\r\n' : '\n';
  const fields = [];
  for (const line of head.split(/\r?\n/)) {
    if (/^[ \t]/.test(line) && fields.length > 0) fields[fields.length - 1] += `${eol}${line}`;
    else fields.push(line);
  }
  const tag = (id) => `${prefix}.${id}`;
  let hasId = false;
  let hasDate = false;
  const out = fields.map((field) => {
    const name = field.slice(0, field.indexOf(':')).trim().toLowerCase();
    if (name === 'message-id' && !hasId) {
      hasId = true;
      const id = /<([^<>]*)>/.exec(field)?.[1] ?? (field.slice(field.indexOf(':') + 1).trim() || `none-${index}`);
      let unique = tag(id);
      while (taken.has(unique)) unique += '.again';
      taken.add(unique);
      return `Message-ID: <${unique}>`;
    }
    if (name === 'in-reply-to' || name === 'references')
      return field.replace(/<([^<>\s]+)>/g, (_, id) => `<${tag(id)}>`);
    if (name === 'date' && !hasDate) {
      hasDate = true;
      return `Date: ${mailDate(arrived)}`;
    }
    return field;
  });
  if (!hasId) out.push(`Message-ID: <${prefix}.m${index}@corpus.listminer.invalid>`);
  if (!hasDate) out.push(`Date: ${mailDate(arrived)}`);
  return Buffer.from(out.join(eol) + rest, 'latin1');
}

function envelopeSender(fromLine) {
  return fromLine?.split(/\s+/)[1] || 'MAILER-DAEMON';
}
