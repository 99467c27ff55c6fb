import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { expect, it } from 'vitest';
import { describeOnDialects } from '../helpers/describe-on-dialects.js';

// A full collection on demand, so the test can tell whether anything still holds a result.
setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

async function collected(ref: WeakRef<object>): Promise<boolean> {
  for (let round = 0; round < 5 && ref.deref() !== undefined; round++) {
    // A WeakRef's target lives to the end of the job that made it: let the job end first.
    await new Promise((resolve) => setImmediate(resolve));
    collect();
  }
  return ref.deref() === undefined;
}

/**
 * A stage reads every message of a list through the store, a batch at a
 * time: a store that kept what each statement returned would grow with the
 * archive (drain of 100,000 messages on PostgreSQL once peaked at 800 MB).
 */
describeOnDialects('the store on $dialect', (getStore) => {
  // The rows are read in functions of their own, so no frame of the test holds them.
  const read = async (sql: string) => {
    const rows = await getStore().db.all(sql);
    expect(rows).toHaveLength(1);
    return new WeakRef(rows);
  };
  const readInTransaction = async (sql: string) => new WeakRef(await getStore().transaction((tx) => tx.db.all(sql)));

  it('keeps nothing a statement returned once the caller lets it go', async () => {
    const rows = await read("SELECT 'a row the caller reads and drops' AS text");
    const inTransaction = await readInTransaction("SELECT 'read inside a transaction' AS text");
    // PostgreSQL's client holds a connection's last transaction and statement until the next: one more of each.
    await getStore().transaction((tx) => tx.db.get('SELECT 1 AS one'));
    await getStore().db.get('SELECT 1 AS one');
    expect(await collected(rows)).toBe(true);
    expect(await collected(inTransaction)).toBe(true);
  });
});
