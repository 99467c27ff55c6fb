/**
 * How long an IMAP, POP3 or news server may send nothing, while listminer
 * waits for an answer or between two commands, before its connection counts
 * as dropped: a transient error, and the month is read again on the next
 * run. The config file's `mail_timeout_seconds` changes it.
 */
export const DEFAULT_MAIL_TIMEOUT_MS = 60_000;
