// Writes the sample archives of examples/ (quarry-dev.mbox, kernel-net.mbox):
// invented mail for an invented Apache project and an invented kernel
// subsystem, shaped like the real thing, so the README's quick start runs the
// whole pipeline offline. Deterministic: the same bytes every time.
//
//   node examples/make-sample.mjs [folder]
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const out = process.argv[2] ?? fileURLToPath(new URL('.', import.meta.url));

/** A small seeded generator (mulberry32), so the archives never change. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad = (n) => String(n).padStart(2, '0');
const rfc2822 = (d) =>
  `${DAYS[d.getUTCDay()]}, ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} +0000`;
const asctime = (d) =>
  `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]} ${String(d.getUTCDate()).padStart(2, ' ')} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())} ${d.getUTCFullYear()}`;

/** An mbox being written: messages in the order they are added, mboxrd-quoted. */
class Mbox {
  messages = [];
  add({ from, to, subject, date, id, inReplyTo, references = [], body, extra = {} }) {
    const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
    const headers = [
      `From: ${from}`,
      `To: ${to}`,
      `Subject: ${subject}`,
      `Date: ${rfc2822(date)}`,
      `Message-ID: <${id}>`,
    ];
    if (inReplyTo) headers.push(`In-Reply-To: <${inReplyTo}>`);
    if (references.length) headers.push(`References: ${references.map((r) => `<${r}>`).join('\n ')}`);
    for (const [name, value] of Object.entries(extra)) headers.push(`${name}: ${value}`);
    headers.push('MIME-Version: 1.0', 'Content-Type: text/plain; charset=UTF-8', 'Content-Transfer-Encoding: 8bit');
    const text = body.replace(/^(>*From )/gm, '>$1');
    this.messages.push({
      date,
      text: `From ${address} ${asctime(date)}\n${headers.join('\n')}\n\n${text.trimEnd()}\n\n`,
    });
    return id;
  }
  toString() {
    return this.messages.map((m) => m.text).join('');
  }
}

function apacheList() {
  const rnd = random(20240601);
  const pick = (items) => items[Math.floor(rnd() * items.length)];
  const mbox = new Mbox();
  const LIST = 'dev@quarry.apache.org';
  const people = [
    'Ana Lima <ana@example.org>',
    'Ben Okafor <ben.okafor@example.com>',
    'Chen Wei <chenw@example.net>',
    'Dana Ivanova <dana@example.org>',
    'Emil Larsen <emil@example.com>',
    'Farah Haddad <farah@example.net>',
  ];
  const topics = [
    'Scanner drops the last row of a split',
    'Compaction stalls under heavy writes',
    'Add a metric for queued flushes',
    'NPE when the catalog is empty',
    'Support zstd for segment files',
    'Client retries forever on auth failure',
    'Document the tiered storage settings',
    'Upgrade the build to Java 21',
    'Snapshot restore ignores the target path',
    'Race between close() and flush()',
    'Expose the planner cost in EXPLAIN',
    'Flaky test: ReplicationIT.testFailover',
  ];
  for (const area of ['writer', 'reader', 'catalog', 'planner', 'replication', 'CLI']) {
    for (const trouble of ['leaks file handles on error', 'logs at the wrong level', 'ignores the timeout setting'])
      topics.push(`The ${area} ${trouble}`);
  }
  let clock = Date.UTC(2023, 0, 9, 8, 0, 0);
  const tick = (hours) => new Date((clock += Math.round(hours * 3600_000 * (0.5 + rnd()))));
  let n = 0;
  const id = (what) => `${what}.${++n}@quarry.example.org`;
  const jiraFrom = (person) => `${person.replace(/ <.*/, '')} (Jira) <jira@apache.org>`;

  let pr = 100;
  topics.forEach((title, index) => {
    const key = `QUARRY-${201 + index}`;
    const reporter = pick(people);
    const created = mbox.add({
      from: jiraFrom(reporter),
      to: LIST,
      subject: `[jira] [Created] (${key}) ${title}`,
      date: tick(300),
      id: id('jira'),
      body: `${reporter.replace(/ <.*/, '')} created ${key}:\n-----------------------------------\n\n  Summary: ${title}\n  Key: ${key}\n  URL: https://issues.apache.org/jira/browse/${key}\n  Project: Apache Quarry\n  Issue Type: Bug\n\nSeen on the 1.1 line; steps to reproduce in the description.\n\n--\nThis message was sent by Atlassian Jira\n(v8.20.10#820010)\n`,
    });
    // A person answers the notification on the list: the reply belongs to the issue.
    const replier = pick(people.filter((p) => p !== reporter));
    mbox.add({
      from: replier,
      to: LIST,
      subject: `Re: [jira] [Created] (${key}) ${title}`,
      date: tick(6),
      id: id('reply'),
      inReplyTo: created,
      references: [created],
      body: `I can reproduce this on main as well. It looks related to the change in the\nwriter last month; happy to take it.\n\n> ${title}\n`,
    });
    const comments = 1 + Math.floor(rnd() * 3);
    for (let c = 0; c < comments; c++) {
      const who = pick(people);
      mbox.add({
        from: jiraFrom(who),
        to: LIST,
        subject: `[jira] [Commented] (${key}) ${title}`,
        date: tick(20),
        id: id('jira'),
        body: `    [ https://issues.apache.org/jira/browse/${key}?focusedCommentId=${17000 + n} ]\n\n${who.replace(/ <.*/, '')} commented on ${key}:\n--------------------------------\n\nPatch attached; the test now covers the empty split.\n\n--\nThis message was sent by Atlassian Jira\n`,
      });
    }
    // Most issues get a pull request, mirrored to the list by GitBox in the form of its era.
    if (index % 4 !== 3) {
      pr++;
      const author = pick(people).replace(/ <.*/, '').split(' ')[0].toLowerCase();
      const reviewer = pick(people).replace(/ <.*/, '').split(' ')[0].toLowerCase();
      const modern = index >= 6;
      const prTitle = `${key}: ${title}`;
      const opened = modern
        ? mbox.add({
            from: `"${author} (via GitHub)" <git@apache.org>`,
            to: LIST,
            subject: `[PR] ${prTitle} (quarry)`,
            date: tick(12),
            id: id('gh-pr'),
            body: `${author} opened a new pull request, #${pr}:\nURL: https://github.com/apache/quarry/pull/${pr}\n\n   Fixes ${key}.\n\n\n--\nThis is an automated message from the Apache Git Service.\n`,
          })
        : mbox.add({
            from: 'GitBox <git@apache.org>',
            to: LIST,
            subject: `[GitHub] [quarry] ${author} opened a new pull request #${pr}: ${prTitle}`,
            date: tick(12),
            id: id('gh-pr'),
            body: `${author} opened a new pull request #${pr}: ${prTitle}\nURL: https://github.com/apache/quarry/pull/${pr}\n\n   Fixes ${key}.\n\n\n----------------------------------------------------------------\nThis is an automated message from the Apache Git Service.\n`,
          });
      mbox.add(
        modern
          ? {
              from: `"${reviewer} (via GitHub)" <git@apache.org>`,
              to: LIST,
              subject: `Re: [PR] ${prTitle} (quarry)`,
              date: tick(10),
              id: id('gh-comment'),
              inReplyTo: opened,
              references: [opened],
              body: `${reviewer} commented on code in PR #${pr}:\nURL: https://github.com/apache/quarry/pull/${pr}#discussion_r${1400000 + n}\n\n   Could this use the existing helper?\n\n--\nThis is an automated message from the Apache Git Service.\n`,
            }
          : {
              from: 'GitBox <git@apache.org>',
              to: LIST,
              subject: `[GitHub] [quarry] ${reviewer} commented on pull request #${pr}: ${prTitle}`,
              date: tick(10),
              id: id('gh-comment'),
              body: `${reviewer} commented on pull request #${pr}:\nURL: https://github.com/apache/quarry/pull/${pr}#issuecomment-${900000 + n}\n\n   LGTM once the test is in.\n\n----------------------------------------------------------------\nThis is an automated message from the Apache Git Service.\n`,
            },
      );
      mbox.add({
        from: 'GitBox <git@apache.org>',
        to: LIST,
        subject: `(quarry) branch main updated: ${prTitle} (#${pr})`,
        date: tick(8),
        id: id('commit'),
        body: `This is an automated email from the ASF dual-hosted git repository.\n\n${author} pushed a commit to branch main\nin repository https://gitbox.apache.org/repos/asf/quarry.git\n\n\nThe following commit(s) were added to refs/heads/main by this push:\n     new ${(0x1a2b3c + n * 7919).toString(16)}  ${prTitle} (#${pr})\n`,
      });
    }
    const resolved = mbox.add({
      from: jiraFrom(pick(people)),
      to: LIST,
      subject: `[jira] [Resolved] (${key}) ${title}`,
      date: tick(30),
      id: id('jira'),
      body: `     [ https://issues.apache.org/jira/browse/${key}?page=com.atlassian.jira.plugin.system.issuetabpanels:all-tabpanel ]\n\nResolution: Fixed\n    Fix Version/s: 1.2.0\n        Status: Resolved  (was: Open)\n\n--\nThis message was sent by Atlassian Jira\n`,
    });
    if (index % 5 === 2) {
      mbox.add({
        from: jiraFrom(pick(people)),
        to: LIST,
        subject: `[jira] [Reopened] (${key}) ${title}`,
        date: tick(30),
        id: id('jira'),
        inReplyTo: resolved,
        body: `Reopening: the fix does not cover the compressed path.\n\n--\nThis message was sent by Atlassian Jira\n`,
      });
    } else if (index % 3 === 0) {
      mbox.add({
        from: jiraFrom(pick(people)),
        to: LIST,
        subject: `[jira] [Closed] (${key}) ${title}`,
        date: tick(60),
        id: id('jira'),
        body: `        Status: Closed  (was: Resolved)\n\n--\nThis message was sent by Atlassian Jira\n`,
      });
    }
  });

  // Discussion, untagged and tagged, with replies.
  const discussions = [
    '[DISCUSS] Drop Java 11 support in 2.0',
    'Question about the segment format version',
    '[DISCUSS] KIP-style proposals for Quarry',
    'Nightly builds are red again',
    'Welcome our new committer!',
    'Proposal: move the website to the new template',
    '[DISCUSS] Deprecate the legacy REST endpoint',
    'Benchmark results for the 1.2 release candidate',
    'Help wanted: reviewing the planner patches',
    'Roadmap for 2.0',
  ];
  for (const subject of discussions) {
    const root = mbox.add({
      from: pick(people),
      to: LIST,
      subject,
      date: tick(30),
      id: id('discuss'),
      body: `Hi all,\n\nI would like to start a conversation about this. Thoughts?\n\nThanks\n`,
    });
    const refs = [root];
    const replies = 2 + Math.floor(rnd() * 4);
    for (let r = 0; r < replies; r++) {
      const reply = mbox.add({
        from: pick(people),
        to: LIST,
        subject: `Re: ${subject}`,
        date: tick(5),
        id: id('discuss'),
        inReplyTo: refs[refs.length - 1],
        references: [...refs],
        body: `${pick(['+1 from me.', 'I have concerns about the timing.', 'Agreed, with one caveat below.', 'Could we start with a vote?'])}\n\n> Thoughts?\n`,
      });
      refs.push(reply);
    }
  }

  // A release: vote, replies, result, announcement.
  for (const version of ['1.2.0', '1.3.0']) {
    const vote = mbox.add({
      from: people[0],
      to: LIST,
      subject: `[VOTE] Release Apache Quarry ${version} (RC1)`,
      date: tick(40),
      id: id('vote'),
      body: `Hi everyone,\n\nPlease vote on releasing Apache Quarry ${version} from RC1.\nThe vote is open for at least 72 hours.\n\n[ ] +1 Release\n[ ] -1 Do not release (please say why)\n`,
    });
    for (const voter of people.slice(1, 5)) {
      mbox.add({
        from: voter,
        to: LIST,
        subject: `Re: [VOTE] Release Apache Quarry ${version} (RC1)`,
        date: tick(8),
        id: id('vote'),
        inReplyTo: vote,
        references: [vote],
        body: `+1 (binding)\n\nChecked signatures, built from source, ran the tests.\n`,
      });
    }
    mbox.add({
      from: people[0],
      to: LIST,
      subject: `[RESULT][VOTE] Release Apache Quarry ${version} (RC1)`,
      date: tick(30),
      id: id('result'),
      inReplyTo: vote,
      references: [vote],
      body: `The vote passes with 4 binding +1 and no -1.\n`,
    });
    mbox.add({
      from: people[0],
      to: 'announce@apache.org',
      extra: { Cc: LIST },
      subject: `[ANNOUNCE] Apache Quarry ${version} released`,
      date: tick(24),
      id: id('announce'),
      body: `The Apache Quarry team is pleased to announce the release of Apache Quarry ${version}.\n\nDownload: https://quarry.apache.org/downloads\n`,
    });
  }
  return mbox;
}

function kernelList() {
  const rnd = random(61009);
  const pick = (items) => items[Math.floor(rnd() * items.length)];
  const mbox = new Mbox();
  const LIST = 'netdev@vger.kernel.org';
  const maintainers = [
    'Jakub Nowak <kuba@example.org>',
    'Paola Abeni <pabeni@example.com>',
    'Eric Dumont <edumont@example.net>',
  ];
  const contributors = [
    'Ravi Shankar <ravi.s@example.com>',
    'Mia Keller <mia.keller@example.org>',
    'Tomasz Zielinski <tz@example.net>',
    'Yuki Sato <yuki@example.com>',
  ];
  let clock = Date.UTC(2024, 1, 5, 9, 0, 0);
  const tick = (hours) => new Date((clock += Math.round(hours * 3600_000 * (0.5 + rnd()))));
  let n = 0;
  const id = (author) => `20240205${pad(++n)}.${author.slice(0, 4).toLowerCase()}@example.invalid`;
  const diff = (file, line) =>
    `---\n ${file} | 2 +-\n 1 file changed, 1 insertion(+), 1 deletion(-)\n\ndiff --git a/${file} b/${file}\nindex 3f2a1b0..9c8d7e6 100644\n--- a/${file}\n+++ b/${file}\n@@ -${line},7 +${line},7 @@ static int foo_probe(struct platform_device *pdev)\n \tint err;\n \n-\terr = foo_init(priv, 0);\n+\terr = foo_init(priv, FOO_F_RESET);\n \tif (err)\n \t\treturn err;\n \n--\n2.43.0\n`;

  /** A series: cover letter and patches, each patch answering the cover letter. */
  const series = ({ author, tree, version, title, patches, reviewers, trailers, applied }) => {
    const tag = `PATCH ${tree}${version > 1 ? ` v${version}` : ''}`;
    const cover = mbox.add({
      from: author,
      to: LIST,
      subject: `[${tag} 0/${patches.length}] ${title}`,
      date: tick(48),
      id: id(author.replace(/ .*/, '')),
      body: `This series ${title.replace(/^[a-z]+: [a-z]+: /, '')}.\n\n${version > 1 ? `Changes in v${version}:\n- address review comments from v${version - 1}\n\n` : ''}${author.replace(/ <.*/, '')} (${patches.length}):\n${patches.map((p) => `  ${p}`).join('\n')}\n`,
    });
    const ids = [];
    patches.forEach((patch, i) => {
      ids.push(
        mbox.add({
          from: author,
          to: LIST,
          subject: `[${tag} ${i + 1}/${patches.length}] ${patch}`,
          date: tick(0.05),
          id: id(author.replace(/ .*/, '')),
          inReplyTo: cover,
          references: [cover],
          body: `${patch}: make the reset explicit so a warm reboot starts clean.\n\nSigned-off-by: ${author}\n${diff(`drivers/net/ethernet/foo/foo_main${i}.c`, 120 + i * 10)}`,
        }),
      );
    });
    for (const [index, reviewer] of reviewers.entries()) {
      const target = ids[index % ids.length];
      const withTrailer = trailers[index];
      mbox.add({
        from: reviewer,
        to: LIST,
        subject: `Re: [${tag} ${(index % ids.length) + 1}/${patches.length}] ${patches[index % ids.length]}`,
        date: tick(10),
        id: id(reviewer.replace(/ .*/, '')),
        inReplyTo: target,
        references: [cover, target],
        body: `On ${rfc2822(new Date(clock - 36e5))}, ${author.replace(/ <.*/, '')} wrote:\n> -\terr = foo_init(priv, 0);\n> +\terr = foo_init(priv, FOO_F_RESET);\n\n${withTrailer ? `Looks right to me.\n\n${withTrailer}: ${reviewer}\n` : 'Is FOO_F_RESET also needed on the resume path? The old code skipped it\nthere on purpose, I think.\n'}`,
      });
    }
    if (applied) {
      mbox.add({
        from: 'patchwork-bot+netdevbpf@kernel.org',
        to: LIST,
        subject: `Re: [${tag} 0/${patches.length}] ${title}`,
        date: tick(30),
        id: id('pwbot'),
        inReplyTo: cover,
        references: [cover],
        body: `Hello:\n\nThis series was applied to netdev/${tree}.git (main)\nby ${maintainers[0].replace(/ <.*/, '')} <kuba@example.org>:\n\n${patches.map((p, i) => `  - [${tag} ${i + 1}/${patches.length}] ${p}\n    https://git.kernel.org/netdev/${tree}/c/${(0xabc123 + i * 31).toString(16)}`).join('\n')}\n\nYou are awesome, thank you!\n-- \nDeet-doot-dot, I am a bot.\nhttps://korg.docs.kernel.org/patchwork/pwbot.html\n`,
      });
    }
    return cover;
  };

  const fooPatches = [
    'net: foo: reset the MAC on probe',
    'net: foo: keep the PHY powered in suspend',
    'net: foo: report the reset reason',
  ];
  series({
    author: contributors[0],
    tree: 'net-next',
    version: 1,
    title: 'net: foo: clean resets',
    patches: fooPatches,
    reviewers: [maintainers[1], maintainers[2], contributors[2]],
    trailers: [null, null, 'Reviewed-by'],
  });
  series({
    author: contributors[0],
    tree: 'net-next',
    version: 2,
    title: 'net: foo: clean resets',
    patches: fooPatches,
    reviewers: [maintainers[1], maintainers[2], contributors[3], contributors[2]],
    trailers: ['Reviewed-by', 'Acked-by', 'Tested-by', 'Reviewed-by'],
    applied: true,
  });
  series({
    author: contributors[1],
    tree: 'net',
    version: 1,
    title: 'net: bar: fix a use-after-free on teardown',
    patches: ['net: bar: take the lock before freeing rings', 'net: bar: drop the stale timer'],
    reviewers: [maintainers[2], maintainers[0]],
    trailers: [null, 'Reviewed-by'],
    applied: true,
  });
  series({
    author: contributors[2],
    tree: 'net-next',
    version: 1,
    title: 'net: baz: add ethtool statistics',
    patches: [
      'net: baz: count dropped frames',
      'net: baz: expose counters through ethtool',
      'net: baz: document the counters',
      'selftests: net: cover baz counters',
    ],
    reviewers: [maintainers[0], maintainers[1], contributors[0]],
    trailers: [null, null, null],
  });

  // A single patch with a reply, an RFC, a pull request, and questions.
  const single = mbox.add({
    from: contributors[3],
    to: LIST,
    subject: '[PATCH net] net: qux: fix a typo in an error message',
    date: tick(24),
    id: id('yuki'),
    body: `The message said "recieve".\n\nSigned-off-by: ${contributors[3]}\n${diff('drivers/net/qux.c', 88)}`,
  });
  mbox.add({
    from: maintainers[0],
    to: LIST,
    subject: 'Re: [PATCH net] net: qux: fix a typo in an error message',
    date: tick(6),
    id: id('kuba'),
    inReplyTo: single,
    references: [single],
    body: `> The message said "recieve".\n\nThis is net-next material, not a fix. Please resend when net-next opens.\n`,
  });
  const rfc = mbox.add({
    from: contributors[1],
    to: LIST,
    subject: '[RFC PATCH net-next] net: sched: let qdiscs ask for a smaller quantum',
    date: tick(40),
    id: id('mia'),
    body: `Sending as RFC to get an opinion on the interface first.\n\nSigned-off-by: ${contributors[1]}\n${diff('net/sched/sch_generic.c', 301)}`,
  });
  mbox.add({
    from: maintainers[2],
    to: LIST,
    subject: 'Re: [RFC PATCH net-next] net: sched: let qdiscs ask for a smaller quantum',
    date: tick(12),
    id: id('eric'),
    inReplyTo: rfc,
    references: [rfc],
    body: `I would rather see numbers first: what does this buy on a busy host?\n`,
  });
  const pull = mbox.add({
    from: maintainers[1],
    to: 'torvalds@example.org',
    subject: '[GIT PULL] Networking for v6.9-rc3',
    date: tick(60),
    id: id('paola'),
    extra: { Cc: LIST },
    body: `Hi Linus!\n\nThe following changes since commit 0123456789abcdef0123456789abcdef01234567:\n\n  Merge tag 'net-6.9-rc2' (2024-03-28)\n\nare available in the Git repository at:\n\n  git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git tags/net-6.9-rc3\n\nFixes for the bar driver and a few selftests.\n`,
  });
  mbox.add({
    from: 'pr-tracker-bot@kernel.org',
    to: maintainers[1],
    subject: 'Re: [GIT PULL] Networking for v6.9-rc3',
    date: tick(10),
    id: id('prbot'),
    inReplyTo: pull,
    references: [pull],
    extra: { Cc: LIST },
    body: `The pull request you sent on ${rfc2822(new Date(clock - 864e5))}:\n\n> git://git.kernel.org/pub/scm/linux/kernel/git/netdev/net.git tags/net-6.9-rc3\n\nhas been merged into torvalds/linux.git:\nhttps://git.kernel.org/torvalds/c/fedcba9876543210fedcba9876543210fedcba98\n\nThank you!\n\n-- \nDeet-doot-dot, I am a bot.\nhttps://korg.docs.kernel.org/prtracker.html\n`,
  });
  for (const subject of [
    'How do I read the per-queue drop counters?',
    'Regression: link flaps after resume on 6.8',
    'Which tree should a driver cleanup go to?',
  ]) {
    const question = mbox.add({
      from: pick(contributors),
      to: LIST,
      subject,
      date: tick(30),
      id: id('q'),
      body: `Hi,\n\n${subject} I looked at the documentation but could not find it.\n\nThanks\n`,
    });
    let parent = question;
    const refs = [question];
    for (let r = 0; r < 2 + Math.floor(rnd() * 2); r++) {
      parent = mbox.add({
        from: pick([...maintainers, ...contributors]),
        to: LIST,
        subject: `Re: ${subject}`,
        date: tick(4),
        id: id('a'),
        inReplyTo: parent,
        references: [...refs],
        body: `> ${subject}\n\n${pick(['See the ethtool -S output for your driver.', 'Please bisect; it worked on 6.7 here.', 'net-next, unless it fixes a bug.'])}\n`,
      });
      refs.push(parent);
    }
  }
  // One person, two addresses: a patch sent from a work address, signed off with the usual one (docs/people.md).
  const work = mbox.add({
    from: 'Tomasz Zielinski <tomasz.zielinski@vendor.example>',
    to: LIST,
    subject: '[PATCH net-next] net: baz: drop a stale comment',
    date: tick(20),
    id: id('tomw'),
    body: `The comment describes the old reset path.\n\nSigned-off-by: ${contributors[2]}\n${diff('drivers/net/baz.c', 42)}`,
  });
  mbox.add({
    from: maintainers[1],
    to: LIST,
    subject: 'Re: [PATCH net-next] net: baz: drop a stale comment',
    date: tick(8),
    id: id('paola'),
    inReplyTo: work,
    references: [work],
    body: `> The comment describes the old reset path.\n\nReviewed-by: ${maintainers[1]}\n`,
  });
  return mbox;
}

writeFileSync(join(out, 'quarry-dev.mbox'), apacheList().toString());
writeFileSync(join(out, 'kernel-net.mbox'), kernelList().toString());
