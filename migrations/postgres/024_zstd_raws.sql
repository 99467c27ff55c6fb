-- Raw bytes compressed with Zstandard (docs/store.md, "Raw bytes and
-- envelopes"). New rows of staged_message_raws hold raw_codec 'zstd': one
-- Zstandard frame (RFC 8878) that records its content size. Rows written
-- before keep 'deflate' (raw DEFLATE, RFC 1951), which listminer still reads.
-- This migration changes no table: it marks the store, so a listminer from
-- before it, which cannot read 'zstd', refuses the store instead of failing
-- on a row.
COMMENT ON COLUMN staged_message_raws.raw_codec IS
  'NULL: the bytes as the archive handed them over; zstd: one Zstandard frame (RFC 8878); deflate: raw DEFLATE (RFC 1951), written before migration 024';
