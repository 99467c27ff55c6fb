import { normalizeAddress } from '../classify/header-values.js';
import { quoteExcerpt } from '../quote-excerpt.js';
import { readUserFile } from '../read-user-file.js';

/** The text of the .mailmap file the user named; a path that is no readable file is refused (exit 2). */
export function readMailmapFile(path: string): Promise<string> {
  return readUserFile(path, 'Give the path of a git .mailmap file.');
}

/** One line of a mailmap: mail from `commitEmail` is the person of `properEmail` (when given), called `properName` (when given). */
export interface MailmapEntry {
  line: number;
  properName: string | null;
  properEmail: string | null;
  commitName: string | null;
  commitEmail: string;
}

export interface MailmapReading {
  value: MailmapEntry[];
  errors: string[];
  warnings: string[];
}

/**
 * git's .mailmap (gitmailmap(5)): `Proper Name <commit@email>`,
 * `<proper@email> <commit@email>`, `Proper Name <proper@email> <commit@email>`
 * and `Proper Name <proper@email> Commit Name <commit@email>`; `#` starts a
 * comment, blank lines are ignored. Addresses come out in the one normal
 * form (normalizeAddress).
 */
export function readMailmap(text: string): MailmapReading {
  const value: MailmapEntry[] = [];
  const errors: string[] = [];
  const warnings: string[] = [];
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = withoutComment(raw).trim();
    if (!line) continue;
    const pairs = namedAddresses(line);
    if (!pairs || pairs.length === 0 || pairs.length > 2 || pairs.some((p) => !p.email.includes('@'))) {
      errors.push(
        `line ${index + 1}: ${quoteExcerpt(raw.trim())} is not Name <address>, <proper> <commit>, or Proper Name <proper> [Commit Name] <commit>`,
      );
      continue;
    }
    if (pairs.length === 1) {
      const [only] = pairs as [{ name: string | null; email: string }];
      if (!only.name) {
        warnings.push(
          `line ${index + 1}: ${quoteExcerpt(raw.trim())} names an address and nothing to map it to; skipped`,
        );
        continue;
      }
      value.push({
        line: index + 1,
        properName: only.name,
        properEmail: null,
        commitName: null,
        commitEmail: normalizeAddress(only.email),
      });
      continue;
    }
    const [proper, commit] = pairs as [{ name: string | null; email: string }, { name: string | null; email: string }];
    value.push({
      line: index + 1,
      properName: proper.name,
      properEmail: normalizeAddress(proper.email),
      commitName: commit.name,
      commitEmail: normalizeAddress(commit.email),
    });
  }
  return { value, errors, warnings };
}

/**
 * The entries a mailmap's lines come to, as git reads them (mailmap.c): a
 * line for a commit address (and commit name, when it gives one) that an
 * earlier line gave replaces that line. Without a commit name it replaces
 * what it gives, so `<proper@x> <c@x>` then `Proper Name <c@x>` maps c to
 * Proper Name <proper@x>, while `<c1@x> <dup@x>` then `<c2@x> <dup@x>` maps
 * dup to c2 alone; with a commit name it replaces the whole entry. Names
 * match without regard to case, as addresses do. Each entry keeps the line
 * of its proper address, else of its name.
 */
export function foldMailmap(entries: readonly MailmapEntry[]): MailmapEntry[] {
  const folded = new Map<string, MailmapEntry>();
  for (const entry of entries) {
    const key = `${entry.commitEmail}\n${entry.commitName?.toLowerCase() ?? ''}`;
    const before = folded.get(key);
    if (!before || entry.commitName !== null) {
      folded.set(key, entry);
      continue;
    }
    const properEmail = entry.properEmail ?? before.properEmail;
    folded.set(key, {
      ...before,
      line: entry.properEmail !== null || before.properEmail === null ? entry.line : before.line,
      properName: entry.properName ?? before.properName,
      properEmail,
    });
  }
  return [...folded.values()];
}

/**
 * The `Name <address>` pairs of a line, read in one pass (a regular
 * expression retried from every position takes minutes over one long
 * line); undefined when a bracket is unpaired or text follows the last address.
 */
function namedAddresses(line: string): Array<{ name: string | null; email: string }> | undefined {
  const pairs: Array<{ name: string | null; email: string }> = [];
  let name = 0;
  let open = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '<') {
      if (open >= 0) return undefined;
      open = i;
    } else if (c === '>') {
      if (open < 0) return undefined;
      pairs.push({ name: tidy(line.slice(name, open)), email: line.slice(open + 1, i).trim() });
      open = -1;
      name = i + 1;
    }
  }
  if (open >= 0 || line.slice(name).trim()) return undefined;
  return pairs;
}

/** A `#` outside an address starts a comment. */
function withoutComment(line: string): string {
  let inside = false;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '<') inside = true;
    else if (c === '>') inside = false;
    else if (c === '#' && !inside) return line.slice(0, i);
  }
  return line;
}

function tidy(name: string): string | null {
  const trimmed = name.replace(/\s+/g, ' ').trim();
  return trimmed || null;
}
