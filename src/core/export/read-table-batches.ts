import type { ExportRow, MailScope, RepoScope } from '../store/export-records.js';
import type { Store } from '../store/store.js';
import { withCaptureColumns } from './export-cells.js';
import type { TableName } from './export-columns.js';

/** Raw bytes of mail one batch holds with --with-bodies, unless its first message alone is larger. */
const BODY_BATCH_BYTES = 4 * 1024 * 1024;

/** Below every id the store holds: synthetic issue ids go down to -(2^53 - 1). */
const BEFORE_EVERY_ID = -(2 ** 53);

/** What one exported file covers. */
export interface TableScope {
  mail: MailScope;
  /** Lists whose threads are read, one list after another. */
  threadListIds: readonly number[];
  repos: RepoScope;
  withBodies: boolean;
  batchSize: number;
}

/**
 * A table's rows in batches, so memory holds one batch whatever the store's
 * size: mail, issues, pull requests and threads read after the last key of
 * the batch before (keyset pagination); senders and pr_equivalents streamed
 * from one grouped query. The order is the table's key: id; threads by list
 * then root id; senders contributors by id, then bots by address.
 */
export async function* readTableBatches(
  store: Store,
  table: TableName,
  scope: TableScope,
): AsyncGenerator<ExportRow[]> {
  const records = store.exports;
  const { mail, batchSize: limit } = scope;
  switch (table) {
    case 'email_messages':
      yield* byId(
        (after) => records.emailMessages(mail, after, limit, scope.withBodies, BODY_BATCH_BYTES),
        'id',
        (rows) => rows.map(withCaptureColumns),
      );
      return;
    case 'threads':
      for (const listId of scope.threadListIds) {
        let after = BEFORE_EVERY_ID;
        for (;;) {
          const roots = await records.threadRootIds(listId, after, limit);
          if (roots.length === 0) break;
          const upTo = roots[roots.length - 1]!;
          const rows = await records.threads(listId, mail, after, upTo);
          if (rows.length > 0) yield rows;
          after = upTo;
        }
      }
      return;
    case 'senders':
      yield* records.contributorSenders(mail, limit);
      yield* records.botSenders(mail, limit);
      return;
    case 'issues':
      yield* byId((after) => records.issues(scope.repos, mail, after, limit), 'id');
      return;
    case 'pull_requests':
      yield* byId((after) => records.pullRequests(scope.repos, mail, after, limit), 'id');
      return;
    case 'pr_equivalents':
      yield* records.prEquivalents(mail, limit);
      return;
    case 'people':
      yield* records.people(mail, limit);
      return;
    case 'identities':
      yield* records.identities(mail, limit);
      return;
  }
}

async function* byId(
  read: (after: number) => Promise<ExportRow[]>,
  key: string,
  map: (rows: ExportRow[]) => ExportRow[] = (rows) => rows,
): AsyncGenerator<ExportRow[]> {
  let after = BEFORE_EVERY_ID;
  for (;;) {
    const rows = await read(after);
    if (rows.length === 0) return;
    yield map(rows);
    after = Number(rows[rows.length - 1]![key]);
  }
}
