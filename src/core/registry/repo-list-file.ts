import { refuseProblems, type Problem, type Validation } from '../config/yaml-document.js';
import { readUserFile } from '../read-user-file.js';
import { readRepoUrl } from './repo-url.js';

/**
 * A file of repository URLs, one a line; blank lines and `#` comments (a
 * whole line, or after a blank) are skipped. Every line that is no
 * repository URL is an error at its line.
 */
export function parseRepoList(file: string, text: string): Validation<string[]> {
  const urls: string[] = [];
  const errors: Problem[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/(^|\s)#.*$/, '').trim();
    if (!line) return;
    const read = readRepoUrl(line);
    if ('repo' in read) urls.push(read.repo.url);
    else errors.push({ file, line: index + 1, path: '', message: read.problem });
  });
  return errors.length ? { errors, warnings: [] } : { value: urls, errors, warnings: [] };
}

/** The URLs of a `repos add --from` file; an unreadable file or a bad line is refused (exit 2) before anything is registered. */
export async function readRepoList(file: string): Promise<string[]> {
  const text = await readUserFile(file, 'Give a file of repository URLs, one a line.');
  const result = parseRepoList(file, text);
  if (!result.value)
    refuseProblems(
      result.errors,
      'Give one repository URL a line, like https://github.com/apache/kafka; # starts a comment.',
    );
  return result.value;
}
