/**
 * The declared schema of the exported tables. Every format writes these
 * columns in this order with these types, from either engine; the manifest
 * lists them. Types are DuckDB's names (what the Parquet files carry):
 * BIGINT for every integer, TIMESTAMPTZ for UTC instants.
 */
export type ColumnType = 'BIGINT' | 'VARCHAR' | 'BOOLEAN' | 'TIMESTAMPTZ';

export interface Column {
  name: string;
  type: ColumnType;
}

/** A cell as the writers get it: timestamps are ISO-8601 UTC text, JSON is canonical JSON text. */
export type Cell = string | number | boolean | null;

export const TABLE_NAMES = [
  'email_messages',
  'threads',
  'senders',
  'issues',
  'pull_requests',
  'pr_equivalents',
  'people',
  'identities',
] as const;
export type TableName = (typeof TABLE_NAMES)[number];

const bigint = (name: string): Column => ({ name, type: 'BIGINT' });
const text = (name: string): Column => ({ name, type: 'VARCHAR' });
const bool = (name: string): Column => ({ name, type: 'BOOLEAN' });
const time = (name: string): Column => ({ name, type: 'TIMESTAMPTZ' });

/** Columns whose stored value is JSON; exported as JSON text with object keys sorted, so both engines write the same text. */
export const JSON_COLUMNS = new Set(['references_ids', 'captures', 'trailers']);

const EMAIL_MESSAGES: Column[] = [
  bigint('id'),
  bigint('list_id'),
  text('list_system'),
  text('list_name'),
  text('message_key'),
  text('message_id'),
  bigint('repo_id'),
  text('repo_url'),
  bigint('sender_id'),
  text('from_name'),
  text('from_address'),
  bool('is_bot'),
  text('subject'),
  time('sent_at'),
  bigint('sent_at_offset'),
  text('in_reply_to'),
  text('references_ids'),
  text('thread_root_key'),
  bigint('thread_root_id'),
  text('msg_class'),
  text('class_source'),
  text('external_key'),
  text('captured_repo'),
  bigint('number'),
  text('action'),
  text('captures'),
  bool('has_patch'),
  bigint('patch_version'),
  bigint('patch_index'),
  bigint('patch_total'),
  bool('is_rfc'),
  bool('is_resend'),
  bigint('patch_series_id'),
  text('trailers'),
  bigint('size'),
  bool('body_stored'),
  text('signaled_repo_url'),
  bigint('signaled_repo_id'),
  text('projected_kind'),
  time('drained_at'),
  text('rules_hash'),
  text('listminer_version'),
];

const THREADS: Column[] = [
  bigint('thread_root_id'),
  bigint('list_id'),
  text('list_system'),
  text('list_name'),
  text('root_message_key'),
  text('root_subject'),
  text('root_msg_class'),
  bigint('message_count'),
  bigint('participants'),
  bigint('bot_message_count'),
  time('first_activity_at'),
  time('last_activity_at'),
];

const SENDERS: Column[] = [
  bigint('contributor_id'),
  text('address'),
  text('name'),
  text('github_login'),
  bool('is_bot'),
  bigint('message_count'),
  time('first_sent_at'),
  time('last_sent_at'),
];

/** A person (docs/people.md): what its mail in scope adds up to. */
const PEOPLE: Column[] = [
  bigint('person_id'),
  text('name'),
  text('github_login'),
  bigint('address_count'),
  bigint('message_count'),
  time('first_sent_at'),
  time('last_sent_at'),
];

/** What says who a person is: an address, a name seen with an address, a GitHub login or id; where it came from, and when. */
const IDENTITIES: Column[] = [
  bigint('id'),
  bigint('person_id'),
  text('kind'),
  text('value'),
  text('seen_with'),
  text('source'),
  time('seen_at'),
];

const ISSUES: Column[] = [
  bigint('id'),
  bigint('repo_id'),
  text('repo_url'),
  bigint('number'),
  text('external_key'),
  text('title'),
  text('state'),
  bigint('author_id'),
  text('author_login'),
  text('author_name'),
  bool('is_synthetic'),
  bigint('comment_count'),
  text('url'),
  time('created_at'),
  time('updated_at'),
  bigint('linked_mail_count'),
];

const PULL_REQUESTS: Column[] = [
  bigint('id'),
  bigint('repo_id'),
  text('repo_url'),
  bigint('number'),
  text('title'),
  text('state'),
  bigint('author_id'),
  text('author_login'),
  text('author_name'),
  text('url'),
  time('created_at'),
  time('merged_at'),
  bigint('linked_mail_count'),
];

const PR_EQUIVALENTS: Column[] = [
  bigint('series_id'),
  bigint('list_id'),
  bigint('repo_id'),
  bigint('root_message_id'),
  text('title'),
  text('author_address'),
  bigint('author_id'),
  bigint('version'),
  bigint('versions'),
  bigint('patch_count'),
  bigint('patches_announced'),
  bool('has_cover_letter'),
  bigint('reply_count'),
  bigint('reviewed_by'),
  bigint('acked_by'),
  bigint('tested_by'),
  bigint('participants'),
  time('first_activity_at'),
  time('last_activity_at'),
  bool('merged'),
  time('merged_at'),
  text('source'),
];

/** The columns of a table; email_messages gains body_text with --with-bodies. */
export function tableColumns(table: TableName, options: { withBodies: boolean }): Column[] {
  switch (table) {
    case 'email_messages':
      return options.withBodies ? [...EMAIL_MESSAGES, text('body_text')] : EMAIL_MESSAGES;
    case 'threads':
      return THREADS;
    case 'senders':
      return SENDERS;
    case 'issues':
      return ISSUES;
    case 'pull_requests':
      return PULL_REQUESTS;
    case 'pr_equivalents':
      return PR_EQUIVALENTS;
    case 'people':
      return PEOPLE;
    case 'identities':
      return IDENTITIES;
  }
}
