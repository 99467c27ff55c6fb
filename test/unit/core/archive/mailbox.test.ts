import { describe, expect, it } from 'vitest';
import type { SourceContext } from '../../../../src/core/archive/archive-source.js';
import { listIdOf, mailboxError, messageFacts, openMailbox } from '../../../../src/core/archive/mailbox.js';
import { uidRanges } from '../../../../src/core/archive/sources/imap.js';
import type { MailAccount } from '../../../../src/core/config/mail-accounts.js';
import { validateConfig } from '../../../../src/core/config/load-config.js';
import { validateSystems } from '../../../../src/core/systems/load-systems.js';

function context(baseUrl: string | undefined, mailAccounts?: MailAccount[]): SourceContext {
  return {
    list: {
      id: 1,
      name: 'dev@lists.example.org',
      listAddress: 'dev@lists.example.org',
      listId: 'dev.lists.example.org',
      baseUrl: baseUrl ?? null,
    },
    system: { name: 'imap' },
    baseUrl,
    cacheDir: '/nonexistent',
    mailAccounts,
  };
}

describe('openMailbox', () => {
  it('reads TLS, port and folder from the URL, the password from the environment', () => {
    const box = openMailbox(context('imaps://me%40example.org@IMAP.example.org/Lists/Dev'), 'imap', {
      LISTMINER_MAIL_PASSWORD: 's3cret',
    });
    expect(box).toMatchObject({
      secure: true,
      host: 'imap.example.org',
      port: 993,
      user: 'me@example.org',
      password: 's3cret',
      folder: 'Lists/Dev',
    });
    expect(box.label).not.toContain('s3cret');
  });

  it('speaks plain text only when the URL says imap:// or pop3://, on their ports, INBOX by default', () => {
    expect(openMailbox(context('imap://me@host'), 'imap', { LISTMINER_MAIL_PASSWORD: 'x' })).toMatchObject({
      secure: false,
      port: 143,
      folder: 'INBOX',
    });
    expect(openMailbox(context('pop3://me@host:1110'), 'pop3', { LISTMINER_MAIL_PASSWORD: 'x' })).toMatchObject({
      secure: false,
      port: 1110,
    });
    expect(openMailbox(context('pop3s://me@host'), 'pop3', { LISTMINER_MAIL_PASSWORD: 'x' })).toMatchObject({
      secure: true,
      port: 995,
    });
  });

  it('takes user, password and CA file from the account of the host, before the environment', () => {
    const accounts = [
      { host: 'other.example.org', user: 'no', password: 'no' },
      { host: 'imap.example.org', user: 'me', password: 'from-config' },
    ];
    expect(
      openMailbox(context('imaps://imap.example.org', accounts), 'imap', { LISTMINER_MAIL_PASSWORD: 'from-env' }),
    ).toMatchObject({ user: 'me', password: 'from-config' });
    expect(() =>
      openMailbox(
        context('imaps://imap.example.org', [{ host: 'imap.example.org', user: 'me', caFile: '/nonexistent/ca.pem' }]),
        'imap',
        { LISTMINER_MAIL_PASSWORD: 'x' },
      ),
    ).toThrow(/ca_file/);
  });

  it('refuses a password in the URL, a missing login or password, and another protocol, naming no secret', () => {
    expect(() => openMailbox(context('imaps://me:hunter2@host'), 'imap', {})).toThrow(/holds a password/);
    try {
      openMailbox(context('imaps://me:hunter2@host'), 'imap', {});
    } catch (error) {
      expect((error as Error).message).not.toContain('hunter2');
    }
    expect(() => openMailbox(context('imaps://host'), 'imap', { LISTMINER_MAIL_PASSWORD: 'x' })).toThrow(/No login/);
    expect(() => openMailbox(context('imaps://me@host'), 'imap', {})).toThrow(/No password .*LISTMINER_MAIL_PASSWORD/);
    expect(() => openMailbox(context('pop3s://me@host'), 'imap', { LISTMINER_MAIL_PASSWORD: 'x' })).toThrow(
      /not pop3s/,
    );
    expect(() => openMailbox(context(undefined), 'imap', {})).toThrow(/no mailbox URL/);
  });

  it('counts a refused login as permanent and a dropped connection as transient', () => {
    const box = openMailbox(context('imaps://me@host'), 'imap', { LISTMINER_MAIL_PASSWORD: 'x' });
    expect(mailboxError(box, new Error('PASS was refused: -ERR [AUTH] Authentication failed.'), 'login').kind).toBe(
      'permanent',
    );
    expect(mailboxError(box, new Error('the server closed the connection'), 'reading').kind).toBe('transient');
  });
});

describe('what a mailbox message tells', () => {
  it('reads the List-Id inside angle brackets, lower-cased', () => {
    expect(listIdOf('The Dev List <Dev.Lists.Example.org>')).toBe('dev.lists.example.org');
    expect(listIdOf('dev.lists.example.org')).toBe('dev.lists.example.org');
    expect(listIdOf(undefined)).toBeNull();
  });

  it('files a message by its Date, else the fallback month', () => {
    expect(
      messageFacts(Buffer.from('Date: Tue, 05 Mar 2024 10:00:00 +0000\r\nList-Id: <a.b>\r\n\r\n'), '2020-01'),
    ).toEqual(['2024-03', 'a.b']);
    expect(messageFacts(Buffer.from('Subject: no date\r\n'), '2020-01')).toEqual(['2020-01', null]);
  });

  it('writes UIDs as IMAP sequence sets', () => {
    expect(uidRanges([9, 1, 2, 3, 7, 10])).toBe('1:3,7,9:10');
    expect(uidRanges([5])).toBe('5');
  });
});

describe('mail_accounts in the config file', () => {
  it('takes accounts and makes a ca_file relative to the config file absolute', () => {
    const result = validateConfig(
      '/etc/lm/listminer.yaml',
      'mail_accounts:\n  - host: IMAP.example.org\n    user: me\n    password: pw\n    ca_file: ca.pem\n',
    );
    expect(result.errors).toEqual([]);
    expect(result.value?.mailAccounts).toEqual([
      { host: 'imap.example.org', user: 'me', password: 'pw', caFile: '/etc/lm/ca.pem' },
    ]);
  });

  it('refuses an account without a host or with an unknown field', () => {
    expect(validateConfig('/x.yaml', 'mail_accounts:\n  - user: me\n').errors[0]?.message).toMatch(/needs a host/);
    expect(validateConfig('/x.yaml', 'mail_accounts:\n  - host: h\n    pasword: pw\n').errors[0]?.message).toMatch(
      /unknown field "pasword"/,
    );
  });
});

describe("a systems.yaml of the user's own", () => {
  it('takes a mailbox URL as the base_url of an imap or pop3 system', () => {
    const text =
      'systems:\n  lists_pop:\n    backend: pop3\n    base_url: pop3s://me@pop.example.org\n  lists_imap:\n    backend: imap\n    base_url: imaps://me@imap.example.org/Lists\n';
    const result = validateSystems('/x/systems.yaml', text);
    expect(result.errors).toEqual([]);
    expect(result.value?.systems.get('lists_pop')?.baseUrl).toBe('pop3s://me@pop.example.org');
  });
});
