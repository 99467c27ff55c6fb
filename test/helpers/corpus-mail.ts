import { readFileSync } from 'node:fs';
import { corpusFiles, corpusPath } from './corpus.js';

/** Files in the corpus that are expected outputs, indexes or licences, not mail. */
const NOT_MAIL = /\.(?:json|yaml|yml|verify|html?|zip|gz|py|md|js|ts|rs|expected|out)$|(?:^|\/)(?:COPYING|LICENSE[^/]*|README[^/]*|MANIFEST\.md)$/i;

export function isMailFile(path: string): boolean {
  return !NOT_MAIL.test(path);
}

/** An mbox split on its From_ lines; a file without them is one message. */
export function splitMbox(bytes: Buffer): Buffer[] {
  const text = bytes.toString('latin1');
  if (!text.startsWith('From ')) return [bytes];
  const starts: number[] = [];
  // A From_ line ends in the year of its date; a body line that merely starts with "From " rarely does.
  for (const match of text.matchAll(/^From \S.*\b\d{4}\r?$/gm)) starts.push(match.index);
  if (starts[0] !== 0) starts.unshift(0);
  return starts.map((start, i) => {
    const bodyStart = text.indexOf('\n', start) + 1;
    const end = starts[i + 1] ?? text.length;
    return Buffer.from(text.slice(bodyStart, end).replace(/^>(>*From )/gm, '$1'), 'latin1');
  });
}

/** Every message of one corpus file. */
export function corpusMessages(file: string): Buffer[] {
  return splitMbox(readFileSync(corpusPath(file))).filter((raw) => raw.length > 0);
}

/** Every mail file of a corpus folder (or the whole corpus). */
export function corpusMailFiles(folder = ''): string[] {
  return corpusFiles(folder).filter(isMailFile);
}
