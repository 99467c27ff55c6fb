import { MAX_CHUNK_ROWS } from '../store/sql-driver.js';

/**
 * The most messages one batch of a stage holds (fetch, classify, drain,
 * project): one transaction's worth. Fewer, larger transactions cost less
 * per message; classify's batches were 64 messages, and at 500 its writes
 * commit 200 times for 100,000 messages instead of 1,563 (a second faster
 * on SQLite, docs/performance.md). 512, so that a full batch is written by
 * one statement (chunkRows).
 */
export const BATCH_MESSAGES = MAX_CHUNK_ROWS;

/**
 * The most raw mail one batch of a stage holds (fetch, classify, drain): one
 * transaction's worth. Memory follows it, not the size of the messages; a
 * single message larger than it goes in a batch of its own.
 */
export const BATCH_BYTES = 16 * 1024 * 1024;
