import { describe, expect, it } from 'vitest';
import { isBotSender } from '../../../../src/core/drain/is-bot-sender.js';

describe('isBotSender', () => {
  it.each([
    ['Jane Doe (Jira)', 'jira@apache.org'],
    ['Jane Doe (via GitHub)', 'git@apache.org'],
    ['GitBox', 'git@apache.org'],
    ['Apache Jenkins Server', 'jenkins@builds.apache.org'],
    [null, 'buildbot@python.org'],
    ['Travis CI', 'builds@travis-ci.org'],
    ['Jane Doe', 'notifications@github.com'],
    ['Jane Doe', 'reply+abc@reply.github.com'],
    ['Someone', 'noreply@example.org'],
    ['Someone', 'no-reply@example.org'],
    ['Someone', 'do-not-reply@example.org'],
    ['Someone', 'build-noreply@example.org'],
    ['kernel test robot', 'lkp@intel.com'],
    ['dependabot[bot]', 'support@github.com'],
    ['ASF subversion and git services', 'svn@apache.org'],
    ['Jane (via GitHub)', 'jane@example.org'],
    ['Mergify Bot', 'mergify@example.org'],
    [null, 'patchwork-bot+netdevbpf@kernel.org'],
    [null, 'jenkins+nightly@example.org'],
  ])('calls %s <%s> a bot or relay', (name, address) => {
    expect(isBotSender(name, address)).toBe(true);
  });

  it.each([
    ['Jane Doe', 'jane@example.org'],
    ['Greg Kroah-Hartman', 'gregkh@linuxfoundation.org'],
    ['Abbot Jones', 'abbot@example.org'],
    ['Gitte Larsen', 'gitte@example.org'],
    ['Robert Botts', 'robert.botts@example.org'],
    ['Bot Pereira', 'bpereira@example.org'],
    ['Hudson Taylor', 'hudson.taylor@example.org'],
    ['Travis Smith', 'travis.smith@example.org'],
    [null, 'ci.zhang@example.org'],
    ['Jane Doe', 'jane+lists@example.org'],
    [null, null],
  ])('calls %s <%s> a person', (name, address) => {
    expect(isBotSender(name, address)).toBe(false);
  });
});
