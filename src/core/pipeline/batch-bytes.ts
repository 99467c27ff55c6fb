/**
 * The most raw mail one batch of a stage holds (fetch, classify, drain): one
 * transaction's worth. Memory follows it, not the size of the messages; a
 * single message larger than it goes in a batch of its own.
 */
export const BATCH_BYTES = 16 * 1024 * 1024;
