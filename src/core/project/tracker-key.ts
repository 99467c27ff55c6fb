import { normalizeIssueKey, trackerTitle } from './issue-key.js';

/**
 * Issue keys of the trackers besides Jira (docs/project.md). Jira's key
 * (`KAFKA-7`) names its project and so its tracker; a Bugzilla, Debian BTS
 * or Request Tracker number does not, so their key names the tracker too:
 * `bugzilla:bz.apache.org/bugzilla#64321`, `debbugs:bugs.debian.org#510516`,
 * `rt:rt.cpan.org#12345`. The rules (systems.yaml) capture `tracker`,
 * `number` and where the tracker lives: `tracker_url` (Bugzilla's link up to
 * show_bug.cgi) or `tracker_host`. Mail that names no tracker address gets no
 * key of its own; it can still belong to an issue through its thread.
 */
const TRACKERS = new Set(['bugzilla', 'debbugs', 'rt']);
const NUMBERED_KEY = /^(bugzilla|debbugs|rt):([^#\s]+)#(\d+)$/;

type Captures = Record<string, string> | null | undefined;

/** The issue key of tracker mail's captures: a Jira key, upper-cased, or a numbered tracker's key; null when the mail names none. */
export function trackerKeyOf(captures: Captures): string | null {
  const jira = normalizeIssueKey(captures?.external_key);
  if (jira) return jira;
  const tracker = captures?.tracker;
  const number = captures?.number;
  if (!tracker || !TRACKERS.has(tracker) || !number || !/^\d+$/.test(number)) return null;
  const place = trackerPlace(captures.tracker_url ?? captures.tracker_host);
  // The digits as written, less leading zeros: a number past 2^53 would lose digits as a float, and two bugs would share a key.
  return place ? `${tracker}:${place}#${number.replace(/^0+(?=\d)/, '')}` : null;
}

/** `https://bz.apache.org/bugzilla/` → `bz.apache.org/bugzilla`; `RT.CPAN.org` → `rt.cpan.org`. */
function trackerPlace(value: string | undefined): string | null {
  const place = (value ?? '')
    .trim()
    .toLowerCase()
    .replace(/^[a-z][a-z0-9+.-]*:\/\//, '')
    .replace(/\/+$/, '')
    .replace(/\s+/g, '-');
  return place && !place.includes('#') ? place : null;
}

/**
 * What a notification did, in Jira's words (issue-state.ts sets the state
 * from them): the rule's `action`, else what the numbered tracker's mail
 * says. Bugzilla's changes table gives the new `status` (NEW, ASSIGNED,
 * RESOLVED, VERIFIED, CLOSED, REOPENED …); debbugs and RT say it in the
 * subject (`event`: `Acknowledgement`, `marked as done`; `Resolved`).
 */
export function trackerAction(captures: Captures): string | undefined {
  if (captures?.action) return captures.action;
  const status = captures?.status?.toUpperCase();
  if (status) {
    if (status === 'RESOLVED' || status === 'VERIFIED') return 'resolved';
    if (status === 'CLOSED') return 'closed';
    return 'reopened';
  }
  const event = captures?.event?.toLowerCase().replace(/\s+/g, ' ');
  if (event === 'acknowledgement') return 'created';
  if (event === 'marked as done' || event === 'resolved' || event === 'rejected') return 'closed';
  if (event === 'marked as reopened') return 'reopened';
  return event ? 'commented' : undefined;
}

/**
 * The issue's title as a notification of its key gives it: Jira's after
 * `(KEY-1)`; Bugzilla's after `[Bug 1]` and `New:`; debbugs' after
 * `Bug#1:`, or in the parentheses of the tracker's own notes
 * (`Bug#1: marked as done (title)`); RT's after `[host #1]` and its
 * template's word (`Resolved:`).
 */
export function issueTitleOf(subject: string | null, key: string): string | null {
  const match = NUMBERED_KEY.exec(key);
  if (!match) return trackerTitle(subject, key);
  if (!subject) return null;
  const [, tracker, , number] = match;
  const patterns: Record<string, RegExp> = {
    bugzilla: new RegExp(`\\[bug\\s+${number}\\]\\s*(?:new\\s*:)?(.*)$`, 'i'),
    debbugs: new RegExp(
      `\\bbug#${number}\\b:?\\s*(?:(?:acknowledgement|marked as done|marked as forwarded|info received)\\s*\\((.*)\\)\\s*$|(.*)$)`,
      'i',
    ),
    rt: new RegExp(
      `\\[[^\\[\\]]*#${number}\\]\\s*(?:(?:autoreply|resolved|rejected|comment|correspondence)\\s*:)?(.*)$`,
      'i',
    ),
  };
  const found = patterns[tracker!]!.exec(subject);
  const title = (found ? (found[1] ?? found[2] ?? '') : subject).replace(/\s+/g, ' ').trim();
  return title || null;
}
