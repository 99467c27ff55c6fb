import { describe, expect, it } from 'vitest';
import { canonicalJson, toCells, withCaptureColumns } from '../../../../src/core/export/export-cells.js';
import type { Column } from '../../../../src/core/export/export-columns.js';

const COLUMNS: Column[] = [
  { name: 'id', type: 'BIGINT' },
  { name: 'is_bot', type: 'BOOLEAN' },
  { name: 'sent_at', type: 'TIMESTAMPTZ' },
  { name: 'captures', type: 'VARCHAR' },
  { name: 'subject', type: 'VARCHAR' },
];

describe('toCells', () => {
  it('gives the same cells for a SQLite row and a PostgreSQL row of the same message', () => {
    const sqlite = {
      id: 7,
      is_bot: 1,
      sent_at: '2024-03-05T09:00:00.000Z',
      captures: '{"repo":"kafka","action":"opened"}',
      subject: 's',
    };
    const postgres = {
      id: 7,
      is_bot: true,
      sent_at: '2024-03-05T09:00:00.000Z',
      captures: { action: 'opened', repo: 'kafka' },
      subject: 's',
    };
    expect(toCells(sqlite, COLUMNS)).toEqual(toCells(postgres, COLUMNS));
    expect(toCells(sqlite, COLUMNS)).toEqual([
      7,
      true,
      '2024-03-05T09:00:00.000Z',
      '{"action":"opened","repo":"kafka"}',
      's',
    ]);
  });

  it('keeps NULL as null in every type', () => {
    expect(toCells({ id: null, is_bot: null, sent_at: null, captures: null, subject: null }, COLUMNS)).toEqual([
      null,
      null,
      null,
      null,
      null,
    ]);
  });
});

describe('canonicalJson', () => {
  it('sorts object keys at every depth and keeps array order', () => {
    expect(canonicalJson('[{"name":"A","kind":"Acked-by"},{"b":{"z":1,"a":2}}]')).toBe(
      '[{"kind":"Acked-by","name":"A"},{"b":{"a":2,"z":1}}]',
    );
  });
});

describe('withCaptureColumns', () => {
  it('lifts external_key, repo, number and action out of the captures', () => {
    const row = withCaptureColumns({
      captures: '{"external_key":"QUARRY-1","repo":"quarry","number":"101","action":"opened","actor":"x"}',
    });
    expect(row).toMatchObject({ external_key: 'QUARRY-1', captured_repo: 'quarry', number: 101, action: 'opened' });
  });

  it('leaves the columns null when the captures lack them or the number is not all digits', () => {
    expect(withCaptureColumns({ captures: { number: '12a' } })).toMatchObject({
      external_key: null,
      captured_repo: null,
      number: null,
      action: null,
    });
    expect(withCaptureColumns({ captures: null })).toMatchObject({ external_key: null, number: null });
  });

  it('leaves the number column null for a number a 64-bit column or a double cannot hold exactly; captures keep it', () => {
    for (const number of ['99999999999999999999999999', '9007199254740993']) {
      const row = withCaptureColumns({ captures: { number } });
      expect(row.number).toBeNull();
      expect(row.captures).toEqual({ number });
    }
    expect(withCaptureColumns({ captures: { number: '9007199254740991' } }).number).toBe(9007199254740991);
  });
});
