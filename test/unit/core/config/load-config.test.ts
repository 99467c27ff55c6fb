import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../../../src/core/config/load-config.js';

describe('validateConfig', () => {
  it('reads every setting and fills defaults', () => {
    const { value, errors } = validateConfig(
      '/etc/lm.yaml',
      'database: x.db\ncontact_email: me@example.org\nworkers: 4\nsystems: ./s.yaml\n',
    );
    expect(errors).toEqual([]);
    expect(value).toMatchObject({
      database: 'x.db',
      contactEmail: 'me@example.org',
      workers: 4,
      mirrorHandling: 'metadata_only',
      cadenceDays: 30,
      systems: '/etc/s.yaml',
    });
  });

  it('names the line and the setting of each error', () => {
    const { value, errors } = validateConfig(
      'c.yaml',
      'workers: 2\nmirror_handling: everything\ncontact_email: nobody\n',
    );
    expect(value).toBeUndefined();
    expect(errors.map((e) => [e.line, e.path])).toEqual([
      [2, 'mirror_handling'],
      [3, 'contact_email'],
    ]);
  });

  it('reads max_message_bytes, 64 MiB by default, within 1 KiB to 256 MiB', () => {
    expect(validateConfig('c.yaml', 'workers: 2\n').value?.maxMessageBytes).toBe(64 * 1024 * 1024);
    expect(validateConfig('c.yaml', 'max_message_bytes: 1048576\n').value?.maxMessageBytes).toBe(1048576);
    for (const bad of ['0', '-5', '1.5', 'big', String(1024 * 1024 * 1024)]) {
      expect(
        validateConfig('c.yaml', `max_message_bytes: ${bad}\n`).errors.map((e) => e.path),
        bad,
      ).toEqual(['max_message_bytes']);
    }
  });

  it('reads mail_timeout_seconds, 60 by default, within 1 to 3600', () => {
    expect(validateConfig('c.yaml', 'workers: 2\n').value?.mailTimeoutSeconds).toBe(60);
    expect(validateConfig('c.yaml', 'mail_timeout_seconds: 5\n').value?.mailTimeoutSeconds).toBe(5);
    for (const bad of ['0', '-5', '1.5', 'long', '3601']) {
      expect(
        validateConfig('c.yaml', `mail_timeout_seconds: ${bad}\n`).errors.map((e) => e.message),
        bad,
      ).toEqual(['mail_timeout_seconds must be a whole number of seconds from 1 to 3600']);
    }
  });

  it('reads backfill_months within 1 to 1200, the bound of --months', () => {
    expect(validateConfig('c.yaml', 'backfill_months: 1200\n').value?.backfillMonths).toBe(1200);
    for (const bad of ['0', '1201', '99999999999999999999']) {
      expect(
        validateConfig('c.yaml', `backfill_months: ${bad}\n`).errors.map((e) => e.message),
        bad,
      ).toEqual(['backfill_months must be a whole number of months from 1 to 1200']);
    }
  });

  it('warns about an unknown setting without refusing the file', () => {
    const { value, warnings } = validateConfig('c.yaml', 'wrokers: 2\n');
    expect(value).toBeDefined();
    expect(warnings[0]).toMatchObject({ line: 1, message: expect.stringContaining('unknown setting "wrokers"') });
  });

  it('refuses YAML that does not parse, with its line', () => {
    const { value, errors } = validateConfig('c.yaml', 'workers: 2\nbad: [1, 2\nx: 3\n');
    expect(value).toBeUndefined();
    expect(errors[0]).toMatchObject({ line: 3, message: expect.stringContaining('Flow sequence') });
  });

  it('reads verify_expects as classes per system, and refuses any other shape', () => {
    const { value, errors } = validateConfig(
      'c.yaml',
      'verify_expects:\n  mbox: [patch_submission, review]\n  apache_ponymail: []\n',
    );
    expect(errors).toEqual([]);
    expect(value?.verifyExpects).toEqual({ mbox: ['patch_submission', 'review'], apache_ponymail: [] });
    for (const bad of ['[review]', '{ mbox: review }', '{ mbox: [1] }']) {
      expect(
        validateConfig('c.yaml', `verify_expects: ${bad}\n`).errors.map((e) => e.path),
        bad,
      ).toEqual(['verify_expects']);
    }
  });
});
