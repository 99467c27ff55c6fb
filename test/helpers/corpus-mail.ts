import { corpusFiles, corpusPath } from './corpus.js';
import { messagesOf } from './mail-files.js';

/** Files in the corpus that are expected outputs, indexes or licences, not mail. */
const NOT_MAIL =
  /\.(?:json|yaml|yml|verify|html?|zip|gz|py|md|js|ts|rs|expected|out)$|(?:^|\/)(?:COPYING|LICENSE[^/]*|README[^/]*|MANIFEST\.md)$/i;

export function isMailFile(path: string): boolean {
  return !NOT_MAIL.test(path);
}

/** Every message of one corpus file. */
export function corpusMessages(file: string): Buffer[] {
  return messagesOf(corpusPath(file));
}

/** Every mail file of a corpus folder (or the whole corpus). */
export function corpusMailFiles(folder = ''): string[] {
  return corpusFiles(folder).filter(isMailFile);
}
