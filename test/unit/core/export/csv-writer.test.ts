import { describe, expect, it } from 'vitest';
import { csvField, csvRecord } from '../../../../src/core/export/csv-writer.js';

describe('csvField', () => {
  it('leaves plain text, numbers and booleans unquoted', () => {
    expect([
      csvField('abc'),
      csvField(42),
      csvField(-7),
      csvField(true),
      csvField(false),
      csvField('café 日本'),
    ]).toEqual(['abc', '42', '-7', 'true', 'false', 'café 日本']);
  });

  it('quotes a field holding a comma, a quote, CR or LF, and doubles its quotes', () => {
    expect(csvField('a,b')).toBe('"a,b"');
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField('one\ntwo')).toBe('"one\ntwo"');
    expect(csvField('one\r\ntwo')).toBe('"one\r\ntwo"');
  });

  it('writes NULL as an empty field and the empty string as a quoted empty field', () => {
    expect(csvField(null)).toBe('');
    expect(csvField('')).toBe('""');
  });
});

describe('csvRecord', () => {
  it('joins fields with commas and ends the record with CRLF', () => {
    expect(csvRecord([1, null, 'x,y', ''])).toBe('1,,"x,y",""\r\n');
  });
});
