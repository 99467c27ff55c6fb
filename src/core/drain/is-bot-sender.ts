/**
 * Bots and relays send much of a project's list traffic (Jira, GitBox, CI,
 * GitHub notifications). Counting them as people would swamp every
 * participation figure, so they never become contributors. The test is on
 * the address first (the relay's mailbox), then on the display name, which
 * is where relays put the human they speak for: "Jane Doe (via GitHub)".
 */
const BOT_MAILBOXES = new Set([
  'jira',
  'git',
  'gitbox',
  'github',
  'gitlab',
  'jenkins',
  'hudson',
  'buildbot',
  'travis',
  'travis-ci',
  'ci',
  'builds',
  'build',
  'bamboo',
  'teamcity',
  'notifications',
  'notification',
  'noreply',
  'no-reply',
  'donotreply',
  'do-not-reply',
  'mailer-daemon',
  'postmaster',
  'commits',
  'svn',
  'gerrit',
  'patchwork',
  'github-actions',
  'dependabot',
]);

/** Relay domains: every address there speaks for someone else. */
const BOT_DOMAINS = [/(^|\.)reply\.github\.com$/, /(^|\.)noreply\.github\.com$/, /^notifications\.github\.com$/];

const BOT_LOCAL_PATTERNS = [
  /(^|[-_.+])(no-?reply|do-?not-?reply)([-_.+]|$)/,
  /(^|[-_.])(bot|robot)$/,
  /^buildbot[-_.]/,
];

const BOT_NAMES = [
  /\(via GitHub\)/i,
  /\bvia RT\b/i,
  /^(GitBox|Jenkins|Buildbot|Travis CI|Hudson|GitHub|GitLab|Gerrit|Patchwork)$/i,
  /^ASF (GitHub Bot|subversion and git services|Jenkins|Jira|Infrastructure)/i,
  /^Apache Jenkins Server$/i,
  // A name ending in Bot, or saying robot or [bot]; not a person whose name starts with Bot.
  /\[bot\]|\brobot\b|\bbot$/i,
  /\(Jira\)$/i,
];

export function isBotSender(name: string | null, address: string | null): boolean {
  if (address) {
    const at = address.lastIndexOf('@');
    const local = (at === -1 ? address : address.slice(0, at)).toLowerCase();
    const domain = at === -1 ? '' : address.slice(at + 1).toLowerCase();
    if (BOT_DOMAINS.some((pattern) => pattern.test(domain))) return true;
    // A +tag names one of the bot's feeds (patchwork-bot+netdevbpf@kernel.org): the mailbox before it is the bot.
    for (const mailbox of new Set([local, local.split('+')[0]!])) {
      if (BOT_MAILBOXES.has(mailbox)) return true;
      if (BOT_LOCAL_PATTERNS.some((pattern) => pattern.test(mailbox))) return true;
    }
  }
  if (name && BOT_NAMES.some((pattern) => pattern.test(name.trim()))) return true;
  return false;
}
