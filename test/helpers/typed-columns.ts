import type { TableShape } from '../../src/core/store/sql-driver.js';

/** A column of each type `append` writes but text and bytes: the probe tables of its tests. */
export const TYPED_COLUMNS: TableShape['columns'] = [
  ['id', 'bigint'],
  ['count', 'integer'],
  ['flag', 'boolean'],
  ['at', 'timestamptz'],
  ['doc', 'jsonb'],
];
