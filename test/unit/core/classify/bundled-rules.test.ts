import { describe, expect, it } from 'vitest';
import type { MsgClass } from '../../../../src/core/classify/envelope.js';
import { classifyEnvelope, loadRuleBook } from '../../../../src/core/classify/rule-set.js';
import { loadSystems } from '../../../../src/core/systems/load-systems.js';

/**
 * Real subjects and senders from the shared corpus (Apache Pony Mail and
 * James, kernel/b4/patchwork/public-inbox/notmuch, Perceval, ELK's Kafka KIP
 * threads, HyperKitty), each with the class a researcher would give it.
 * Rows: rules system, subject, sender, list address, expected class.
 */
type Row = [system: string, subject: string, sender: string, list: string, expected: MsgClass];

const APACHE = 'apache_ponymail';
const KERNEL = 'public_inbox';
const GENERIC = 'generic';

const ROWS: Row[] = [
  // Apache: Jira
  [APACHE, '[jira] [Created] (MAILBOX-234) Convert Message into JSON', 'Tellier Benoit (JIRA) <jira2@apache.org>', 'server-dev@james.apache.org', 'issue_event'],
  [APACHE, '[jira] [Closed] (MAILBOX-217) We should index attachment in elastic search', 'efij <jira1@apache.org>', 'server-dev@james.apache.org', 'issue_event'],
  [APACHE, '[jira] [Closed] (MAILBOX-11) MailboxQuery ignore namespace', 'abcd <jira@apache.org>', 'server-dev@james.apache.org', 'issue_event'],
  [APACHE, '[jira] [Resolved] (MAILET-94) James Mailet should use latest version of other James subprojects', 'Eric Charles (JIRA) <mailet-api@james.apache.org>', 'mailet-api@james.apache.org', 'issue_event'],
  [APACHE, '[jira] [Commented] (KAFKA-20167) Flaky test in ConsumerBounceTest', 'Jun Rao (Jira) <jira@apache.org>', 'dev@kafka.apache.org', 'issue_event'],
  [APACHE, '[jira] [Work logged] (HADOOP-18235) vulnerability: we may leak sensitive information', 'ASF GitHub Bot (Jira) <jira@apache.org>', 'common-issues@hadoop.apache.org', 'issue_event'],
  [APACHE, '[jira] [Comment Edited] (SPARK-39001) Document which options are unsupported', 'Hyukjin Kwon (Jira) <jira@apache.org>', 'issues@spark.apache.org', 'issue_event'],
  [APACHE, '[jira] [Issue Comment Deleted] (FLINK-2000) Add SQL-style aggregations', 'Fabian Hueske (Jira) <jira@apache.org>', 'issues@flink.apache.org', 'issue_event'],
  [APACHE, 'Re: [jira] [Commented] (KAFKA-1194) The kafka broker cannot delete the old log files', 'Jay Kreps <jay.kreps@gmail.com>', 'dev@kafka.apache.org', 'issue_event'],
  [APACHE, 'RE: [jira] [Created] (CASSANDRA-100) Cassandra crashes', 'Someone <someone@example.org>', 'dev@cassandra.apache.org', 'issue_event'],
  [APACHE, '[jira] Created: (DERBY-1) Test issue', 'Jira <jira@apache.org>', 'derby-dev@db.apache.org', 'issue_event'],
  [APACHE, '[jira] Commented: (HADOOP-1234) Add a flag', 'Owen O\'Malley (JIRA) <jira@apache.org>', 'core-dev@hadoop.apache.org', 'issue_event'],
  [APACHE, '[jira] [Updated] (KAFKA-13295) Long restoration times for new tasks can lead to transaction timeouts', 'Luke Chen (Jira) <jira@apache.org>', 'jira@kafka.apache.org', 'issue_event'],
  [APACHE, '[jira] [Assigned] (ARROW-100) [C++] Implement fast path', 'Antoine Pitrou (Jira) <jira@apache.org>', 'issues@arrow.apache.org', 'issue_event'],
  [APACHE, '[JIRA] [Reopened] (HIVE-9) Reopened issue', 'X (Jira) <jira@apache.org>', 'issues@hive.apache.org', 'issue_event'],
  // Apache: GitBox mirrors of GitHub
  [APACHE, '[GitHub] activemq-artemis pull request: Make Topology non-serializable and ...', 'thiagokronig <git@git.apache.org>', 'dev@activemq.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] activemq-artemis pull request: chages made after a few performance...', 'clebertsuconic <git@git.apache.org>', 'dev@activemq.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [kafka] mjsax commented on pull request #9999: KAFKA-10000: fix', 'GitBox <git@apache.org>', 'jira@kafka.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [kafka] showuon opened a new pull request #11000: MINOR: typo', 'GitBox <git@apache.org>', 'jira@kafka.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [kafka] dajac merged pull request #11001: KAFKA-13000: improve', 'GitBox <git@apache.org>', 'jira@kafka.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [airflow] potiuk commented on a change in pull request #15000: Add docs', 'GitBox <git@apache.org>', 'commits@airflow.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [pulsar] lhotari opened a new issue #12000: Flaky test', 'GitBox <git@apache.org>', 'commits@pulsar.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [echarts] pissang closed issue #13000: chart does not render', 'GitBox <git@apache.org>', 'commits@echarts.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [superset] dependabot[bot] opened a new pull request #14000: Bump lodash', 'GitBox <git@apache.org>', 'notifications@superset.apache.org', 'github_mirror'],
  [APACHE, 'Re: [PR] KAFKA-15000: Fix the thing (kafka)', '"mjsax (via GitHub)" <git@apache.org>', 'jira@kafka.apache.org', 'github_mirror'],
  [APACHE, '[PR] MINOR: Update docs (kafka-site)', '"jlprat (via GitHub)" <git@apache.org>', 'dev@kafka.apache.org', 'github_mirror'],
  [APACHE, '[I] Crash on startup (datafusion)', '"alamb (via GitHub)" <git@apache.org>', 'github@datafusion.apache.org', 'github_mirror'],
  [APACHE, 'Re: [D] How do I configure it? (airflow)', '"potiuk (via GitHub)" <git@apache.org>', 'commits@airflow.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [flink] flinkbot edited a comment on pull request #16000: [FLINK-1] fix', 'GitBox <git@apache.org>', 'issues@flink.apache.org', 'github_mirror'],
  [APACHE, '[GitHub] [spark] HyukjinKwon closed pull request #30000: [SPARK-1][PYTHON] fix', 'GitBox <git@apache.org>', 'reviews@spark.apache.org', 'github_mirror'],
  // Apache: commits
  [APACHE, '[kafka] branch trunk updated: KAFKA-12345: Fix the race (#10000)', 'mjsax@apache.org', 'commits@kafka.apache.org', 'commit_notify'],
  [APACHE, '[kafka] 01/02: KAFKA-12345: first commit', 'mjsax@apache.org', 'commits@kafka.apache.org', 'commit_notify'],
  [APACHE, '[kafka] annotated tag 3.0.0-rc1 updated (abc -> def)', 'git@apache.org', 'commits@kafka.apache.org', 'commit_notify'],
  [APACHE, 'svn commit: r1889000 - /httpd/httpd/trunk/modules/ssl/ssl_engine_io.c', 'ylavic@apache.org', 'cvs@httpd.apache.org', 'commit_notify'],
  [APACHE, '[1/2] git commit: CASSANDRA-1: fix', 'jbellis@apache.org', 'commits@cassandra.apache.org', 'commit_notify'],
  [APACHE, 'git commit: [maven-release-plugin] prepare release', 'someone@apache.org', 'commits@maven.apache.org', 'commit_notify'],
  [APACHE, 'Release notes update', 'someone@apache.org', 'commits@ponymail.apache.org', 'commit_notify'],
  // Apache: votes, results, announcements, discussion (ELK's Kafka KIP threads)
  [APACHE, 'Re: [VOTE] KIP-221: Enhance KStream with Connecting Topic Creation and Repartition Hint', 'Bill Bejeck <bbejeck@gmail.com>', 'dev@kafka.apache.org', 'vote'],
  [APACHE, 'Re: [VOTE] KIP-455: Create an Administrative API for Replica Reassignment', 'Jun Rao <jun@confluent.io>', 'dev@kafka.apache.org', 'vote'],
  [APACHE, 'Re: [VOTE] KIP 22231Enhance', 'Levani Kokhreidze <levani.codes@gmail.com>', 'dev@kafka.apache.org', 'vote'],
  [APACHE, 'Re: [VOTE] KIP:2242341Enhance', 'Levani Kokhreidze <levani.codes@gmail.com>', 'dev@kafka.apache.org', 'vote'],
  [APACHE, 'Re: [VOTE] KIP-2232131Enhance', 'Levani Kokhreidze <levani.codes@gmail.com>', 'dev@kafka.apache.org', 'vote'],
  [APACHE, 'Re: [DISCUSS] KIP-470: TopologyTestDriver test input and output usability improvements', 'Jun Rao <jun@confluent.io>', 'dev@kafka.apache.org', 'discuss'],
  [APACHE, '[VOTE] Release Apache Kafka 3.6.0 RC2', 'Satish Duggana <satish@apache.org>', 'dev@kafka.apache.org', 'vote'],
  [APACHE, '[RESULT][VOTE] Release Apache Kafka 3.6.0 RC2', 'Satish Duggana <satish@apache.org>', 'dev@kafka.apache.org', 'result'],
  [APACHE, '[RESULT] [VOTE] KIP-500: Replace ZooKeeper with a Self-Managed Metadata Quorum', 'Colin McCabe <cmccabe@apache.org>', 'dev@kafka.apache.org', 'result'],
  [APACHE, 'Re: [RESULT][VOTE] Apache Ponymail Foal 1.0', 'Someone <a@apache.org>', 'dev@ponymail.apache.org', 'result'],
  [APACHE, '[VOTE][RESULT] Graduate Ponymail', 'Someone <a@apache.org>', 'dev@ponymail.apache.org', 'result'],
  [APACHE, '[CANCEL][VOTE] Release Apache Foo 1.0 RC1', 'Someone <a@apache.org>', 'dev@foo.apache.org', 'result'],
  [APACHE, 'AW: [VOTE] Release Apache PLC4X 0.10.0', 'Christofer Dutz <christofer.dutz@c-ware.de>', 'dev@plc4x.apache.org', 'vote'],
  [APACHE, 'Fwd: [VOTE] Release Apache Commons Lang 3.13.0 RC1', 'Gary Gregory <garydgregory@gmail.com>', 'dev@commons.apache.org', 'vote'],
  [APACHE, 'RE: [DISCUSS] Apache Kafka 3.7.0 release', 'Someone <x@example.org>', 'dev@kafka.apache.org', 'discuss'],
  [APACHE, '[DISCUSS] KIP-1000: List Client Metrics Configuration Resources', 'Andrew Schofield <andrew@example.org>', 'dev@kafka.apache.org', 'discuss'],
  [APACHE, '[ANNOUNCE] Apache Kafka 3.6.0', 'Satish Duggana <satish@apache.org>', 'announce@apache.org', 'announce'],
  [APACHE, 'Re: [ANNOUNCE] New committer: Jane Doe', 'Someone <x@example.org>', 'dev@kafka.apache.org', 'announce'],
  [APACHE, '[SECURITY] CVE-2023-25194: Apache Kafka: Possible RCE', 'Manikumar <manikumar@apache.org>', 'users@kafka.apache.org', 'announce'],
  // Apache: users@ and dev@ lists (Pony Mail resources)
  [APACHE, 'External search form', 'Daniel Sahlberg <daniel.l.sahlberg@gmail.com>', 'users@ponymail.apache.org', 'support'],
  [APACHE, 'Re: External search form', 'John D. Ament <johndament@apache.org>', 'users@ponymail.apache.org', 'support'],
  [APACHE, 'How can I see attachments?', 'Daniel Sahlberg <daniel.l.sahlberg@gmail.com>', 'users@ponymail.apache.org', 'support'],
  [APACHE, 'Re: How can I see attachments?', 'sebb <sebbaz@gmail.com>', 'users@ponymail.apache.org', 'support'],
  [APACHE, 'How do I search the Apache-wide announce mailing list?', 'Gary D. Gregory <ggregory@apache.org>', 'users@ponymail.incubator.apache.org', 'support'],
  [APACHE, 'Re: How do I search the Apache-wide announce mailing list?', 'Rich Bowen <rbowen@rcbowen.com>', 'users@ponymail.incubator.apache.org', 'support'],
  [APACHE, 'Hi Team,', '<wangjh@emrubik.com>', 'users@kafka.apache.org', 'support'],
  [APACHE, 'RE: LDAP Configuration Problems', 'Varsha NRao (HCL Financial Services) <varsha.nrao@hcl.in>', 'jetspeed-user@portals.apache.org', 'support'],
  // The Incubator's automated monthly reminder is a notice, not discussion.
  [APACHE, 'Podling Ponymail Report Reminder - October 2020', '<jmclean@apache.org>', 'dev@ponymail.apache.org', 'announce'],
  [APACHE, 'Re: Deploying production instances of James', 'Someone <x@linagora.com>', 'server-user@james.apache.org', 'support'],
  [APACHE, 'Fwd: Re: Deploying production instances of James', 'Someone <x@linagora.com>', 'server-dev@james.apache.org', 'discuss'],
  // Kernel: patches, series, pulls
  [KERNEL, '[PATCH] rust: pwm: replace core::mem::zeroed with pin_init::zeroed', 'Francis Laniel <laniel_francis@privacyrequired.com>', 'rust-for-linux@vger.kernel.org', 'patch_submission'],
  [KERNEL, 'Re: [PATCH] rust: pwm: replace core::mem::zeroed with pin_init::zeroed', 'Miguel Ojeda <miguel.ojeda.sandonis@gmail.com>', 'rust-for-linux@vger.kernel.org', 'review'],
  [KERNEL, '[PATCH 0/4] This is a cover for test series 1', 'Konstantin Ryabitsev <konstantin@linuxfoundation.org>', '', 'patch_submission'],
  [KERNEL, '[PATCH 1/4] Remove line 2 from file2', 'Konstantin Ryabitsev <konstantin@linuxfoundation.org>', '', 'patch_submission'],
  [KERNEL, '[PATCH 2/4] Add more lines to file 1', 'Konstantin Ryabitsev <konstantin@linuxfoundation.org>', '', 'patch_submission'],
  [KERNEL, '[PATCH 3/4] Add some paragraphs to lipsum', 'Konstantin Ryabitsev <konstantin@linuxfoundation.org>', '', 'patch_submission'],
  [KERNEL, '[PATCH 4/4] Minor typo changes imitation', 'Konstantin Ryabitsev <konstantin@linuxfoundation.org>', '', 'patch_submission'],
  [KERNEL, 'Re: [PATCH 4/4] Minor typo changes imitation', 'Follow Upper <follow.upper@example.org>', '', 'review'],
  [KERNEL, 'Re: [PATCH 0/4] This is a cover for test series 1', 'Cover Upper <cover.upper@example.org>', '', 'review'],
  [KERNEL, '[PATCH] Simple test', 'Test Test <test@example.com>', '', 'patch_submission'],
  [KERNEL, 'Re: [PATCH] Simple test', 'Followup Reviewer1 <followup-reviewer1@example.com>', '', 'review'],
  [KERNEL, '[PATCH v3 1/2] Simple test 1', 'Test Test <test@example.com>', '', 'patch_submission'],
  [KERNEL, '[PATCH v3 2/2] Simple test 2', 'Test Test <test@example.com>', '', 'patch_submission'],
  [KERNEL, '[PATCH v2 0/2] Simple cover', 'Test Test <test@example.com>', '', 'patch_submission'],
  [KERNEL, 'Re: [PATCH v2 2/2] Simple test 2', 'Followup Reviewer1 <followup-reviewer1@example.com>', '', 'review'],
  [KERNEL, 'Re: [PATCH v2 0/2] Simple cover', 'Followup Reviewer1 <followup-reviewer1@example.com>', '', 'review'],
  [KERNEL, '[PATCH] widget: fix data corruption under load', 'Test Author <author@example.org>', '', 'patch_submission'],
  [KERNEL, '[PATCH] widget: do the thing', 'Test Author <author@example.org>', '', 'patch_submission'],
  [KERNEL, 'widget subsystem corrupts data under load', 'Bug Reporter <reporter@example.com>', '', 'discuss'],
  [KERNEL, 'do a thing to the widget subsystem', 'Test Author <author@example.org>', '', 'discuss'],
  [KERNEL, '[git pull] Please pull powerpc.git next branch', 'Benjamin Herrenschmidt <benh@kernel.crashing.org>', 'linuxppc-dev@lists.ozlabs.org', 'patch_submission'],
  [KERNEL, '[GIT PULL] soc: updates for v5.5', 'Arnd Bergmann <arnd@arndb.de>', 'soc@kernel.org', 'patch_submission'],
  [KERNEL, '[GIT PULL] DaVinci SoC updates for v5.6', 'Sekhar Nori <nsekhar@ti.com>', 'soc@kernel.org', 'patch_submission'],
  [KERNEL, 'Re: [GIT PULL] soc: updates for v5.5', 'pr-tracker-bot <pr-tracker-bot@kernel.org>', 'soc@kernel.org', 'commit_notify'],
  [KERNEL, 'Re: [GIT PULL] soc: updates for v5.5', 'Linus Torvalds <torvalds@linux-foundation.org>', 'soc@kernel.org', 'review'],
  [KERNEL, '[GIT] Networking', 'David Miller <davem@davemloft.net>', 'netdev@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[PATCH v3 5/5] selftests, powerpc: Add test for VPHN', 'Nathan Fontenot <nfont@linux.vnet.ibm.com>', 'linuxppc-dev@lists.ozlabs.org', 'patch_submission'],
  [KERNEL, '[PATCH net-next v3 0/4] net: dsa: Multi-CPU ground work (v3)', 'Florian Fainelli <f.fainelli@gmail.com>', 'netdev@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[PATCH V2 4/4] PM / OPP: Don\'t create debugfs "supply-0" directory', 'Viresh Kumar <viresh.kumar@linaro.org>', 'linux-pm@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[PATCH V2 0/4] PM / OPP: Minor cleanups', 'Viresh Kumar <viresh.kumar@linaro.org>', 'linux-pm@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[PATCH 1/1] kconfig: Make nconf-cfg.sh executable', 'Someone <s@example.org>', 'linux-kbuild@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[PATCH -next] bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()', 'YueHaibing <yuehaibing@huawei.com>', 'netdev@vger.kernel.org', 'patch_submission'],
  [KERNEL, 'Re: [PATCH -next] bpf: Use PTR_ERR_OR_ZERO in xsk_map_inc()', 'Björn Töpel <bjorn.topel@intel.com>', 'netdev@vger.kernel.org', 'review'],
  [KERNEL, '[net,v2,2/2] net: ieee802154: fix net_device reference release too early', 'Lin Ma <linma@zju.edu.cn>', 'netdev@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[net,v2,1/2] net: ieee802154: remove explicit set skb->sk', 'Lin Ma <linma@zju.edu.cn>', 'netdev@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[PATCHv2] mm: fix a leak', 'Someone <s@example.org>', 'linux-mm@kvack.org', 'patch_submission'],
  [KERNEL, '[RFC PATCH] sched: try something', 'Someone <s@example.org>', 'linux-kernel@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[RFC][PATCH 00/10] cifs: local caching support using FS-Cache', 'Suresh Jayaraman <sjayaraman@suse.de>', 'linux-cifs@vger.kernel.org', 'patch_submission'],
  [KERNEL, 'Re: [RFC][PATCH 06/10] cifs: define inode-level cache object and register them', 'David Howells <dhowells@redhat.com>', 'linux-cifs@vger.kernel.org', 'review'],
  [KERNEL, '[PATCH RESEND] usb: fix the thing', 'Someone <s@example.org>', 'linux-usb@vger.kernel.org', 'patch_submission'],
  [KERNEL, '[RESEND PATCH v2 3/5] arm64: dts: add node', 'Someone <s@example.org>', 'linux-arm-kernel@lists.infradead.org', 'patch_submission'],
  [KERNEL, 'Re: [PATCH v2 5/7] powerpc/85xx: Add MChk handler for SRIO port', 'Kumar Gala <galak@kernel.crashing.org>', 'linuxppc-dev@lists.ozlabs.org', 'review'],
  [KERNEL, 'RE: [PATCH v2 5/7] powerpc/85xx: Add MChk handler for SRIO port', 'Bounine, Alexandre <Alexandre.Bounine@idt.com>', 'linuxppc-dev@lists.ozlabs.org', 'review'],
  [KERNEL, 'Re: [PATCH 44/44] sound/soc/codecs: Remove unnecessary semicolons', 'Mark Brown <broonie@opensource.wolfsonmicro.com>', 'alsa-devel@alsa-project.org', 'review'],
  [KERNEL, 'Re: [PATCH] core: dev: don\'t call BUG() on bad input', 'Eric Dumazet <eric.dumazet@gmail.com>', 'netdev@vger.kernel.org', 'review'],
  [KERNEL, 'Re: [PATCH 5/6] x86: ifdef ioapic related function out', 'Ingo Molnar <mingo@elte.hu>', 'linux-kernel@vger.kernel.org', 'review'],
  [KERNEL, 'Re: Re: [PATCH] mm: fix', 'Someone <s@example.org>', 'linux-mm@kvack.org', 'review'],
  [KERNEL, '[PATCH 2 of 2] tests: work around FreeBSD\'s unzip having slightly different output', 'Someone <s@example.org>', 'mercurial-devel@mercurial-scm.org', 'patch_submission'],
  [KERNEL, '[PATCH 1 of 2] contrib: fix check-commit to not reject commits from `hg sign` and `hg tag`', 'Someone <s@example.org>', 'mercurial-devel@mercurial-scm.org', 'patch_submission'],
  [KERNEL, '[Patch]: Fix ld p38 Fres on m.', 'Someone <s@example.org>', 'binutils@sourceware.org', 'patch_submission'],
  [KERNEL, '[Patch 2/2]: powerpc/hotplug/mm: Fix hot-add memory node assoc', 'Nathan Fontenot <nfont@linux.vnet.ibm.com>', 'linuxppc-dev@lists.ozlabs.org', 'patch_submission'],
  [KERNEL, '[PATCHES] attached mbox with UTF-8 patch', 'Someone <s@example.org>', '', 'patch_submission'],
  [KERNEL, '[dpdk-dev] [PATCH] kni: fix compilation error when debug enabled', 'Someone <s@example.org>', 'dev@dpdk.org', 'patch_submission'],
  [KERNEL, '[Buildroot] [PATCH 01/11] package/rpi-userland: rename patches', 'Someone <s@example.org>', 'buildroot@buildroot.org', 'patch_submission'],
  [KERNEL, '[snowpatch] [PATCH 1/3] Test commit; please ignore', 'Someone <s@example.org>', 'snowpatch@lists.ozlabs.org', 'patch_submission'],
  [KERNEL, 'Re: [notmuch] [PATCH 1/2] lib/message: Add function to get maildir flags.', 'Carl Worth <cworth@cworth.org>', 'notmuch@notmuchmail.org', 'review'],
  [KERNEL, '[notmuch] [PATCH] Typsos', 'Someone <s@example.org>', 'notmuch@notmuchmail.org', 'patch_submission'],
  [KERNEL, 'Re: [RFC PATCH v2 12/12] emacs: whitespace cleanup for keybindings', 'Someone <s@example.org>', 'notmuch@notmuchmail.org', 'review'],
  [KERNEL, '[ANNOUNCE] public-inbox 1.9.0', 'Eric Wong <e@80x24.org>', 'meta@public-inbox.org', 'announce'],
  [KERNEL, '[ANNOUNCE] public-inbox 1.1.0-pre1', 'Eric Wong <e@80x24.org>', 'meta@public-inbox.org', 'announce'],
  [KERNEL, '[SECURITY] [DSA 3278-1] libapache-mod-jk security update', 'Someone <s@debian.org>', 'debian-security-announce@lists.debian.org', 'announce'],
  // patchwork-bot's "applied" lives in the body; without it the bot's mail is a patch-tracker notice, never review.
  [KERNEL, 'Re: [PATCH net] net: fix leak', 'patchwork-bot+netdevbpf@kernel.org', 'netdev@vger.kernel.org', 'issue_event'],
  [KERNEL, '[tip: x86/urgent] x86/fpu: Fix the thing', 'tip-bot2 for Thomas Gleixner <tip-bot2@linutronix.de>', 'linux-tip-commits@vger.kernel.org', 'commit_notify'],
  [KERNEL, 'Patch "usb: fix" has been added to the 5.10-stable tree', 'gregkh@linuxfoundation.org', 'stable-commits@vger.kernel.org', 'commit_notify'],
  [KERNEL, 'FAILED: patch "[PATCH] mm: fix" failed to apply to 5.4-stable tree', 'gregkh@linuxfoundation.org', 'stable@vger.kernel.org', 'commit_notify'],
  [KERNEL, 'MAINTAINERS: Update entry for BCM5301X ARM', 'Someone <s@example.org>', '', 'discuss'],
  [KERNEL, 'This is an orphaned patch!', 'Someone <s@example.org>', '', 'discuss'],
  // Generic Mailman lists (Perceval, HyperKitty, James fixtures). Human mail no rule places is discussion on
  // every list (support on users lists); unclassified is left for automated mail nothing identifies.
  [GENERIC, '[Metrics-grimoire] [GrimoireLab] Presenting GrimoireLab', 'Jesus M. Gonzalez-Barahona <jgb@example.com>', 'metrics-grimoire@lists.libresoft.es', 'discuss'],
  [GENERIC, '[Metrics-grimoire] Docker and MetricsGrimoire', 'Andy Grunwald <andy@example.com>', 'metrics-grimoire@lists.libresoft.es', 'discuss'],
  [GENERIC, 'Re: Revisiting the Gnome Bindings', 'Eugenia Loli-Queru <eloli@hotmail.com>', 'desktop-devel-list@gnome.org', 'discuss'],
  [GENERIC, 'Re: Low memory hacks', 'Danilo Šegan <danilo@gnome.org>', 'desktop-devel-list@gnome.org', 'discuss'],
  [GENERIC, '[esl-dev] Committer vote for Chuwei Huang has concluded successfully', 'yves (yingmin) yang <yves.yang@example.com>', 'esl-dev@eclipse.org', 'result'],
  [GENERIC, '[platform-dev] Removing standard menus and toolbar icons', 'Nehren, Daniel <daniel.nehren@example.com>', 'platform-dev@eclipse.org', 'discuss'],
  [GENERIC, '[platform-swt-dev] How to refresh a control in another thread?', 'Someone <yuancong@example.com>', 'platform-swt-dev@eclipse.org', 'discuss'],
  [GENERIC, 'Github wiki vs Mozilla wiki', 'Fernando Jiménez Moreno <fmoreno@example.com>', 'dev-project-link@example.com', 'discuss'],
  [GENERIC, '[ovs-dev] Remittance Advice', 'Lucía Charlie <luciacharlie@wellsfargo.com>', 'ovs-dev@openvswitch.org', 'discuss'],
  [GENERIC, 'gradle 1.0', 'gil <puntogil@libero.it>', 'devel@lists.fedoraproject.org', 'discuss'],
  [GENERIC, 'request: remove "gd.tuwien.ac.at" from mirror-lists', 'Reindl Harald <h.reindl@thelounge.net>', 'devel@lists.fedoraproject.org', 'discuss'],
  [GENERIC, '[Ecologeeks] Fwd: Tu peux m\'aider à changer le visage d\'Ixelles', 'Js Herpin <js.herpin@gmail.com>', 'ecologeeks@listes.eelv.fr', 'discuss'],
  [GENERIC, '[List1] another try', 'Aurelien Bompard <test@example.com>', 'list1@mm3test.fedoraproject.org', 'discuss'],
  [GENERIC, '[Fedora-packaging] RPM macros', 'Vít Ondruch <vondruch@redhat.com>', 'packaging@lists.fedoraproject.org', 'discuss'],
  [GENERIC, 'Re: [Fedora-fr-list] Compte-rendu de la réunion du 1 novembre 2009', 'Marcela Mašláňová <mmaslano@redhat.com>', 'fedora-fr-list@redhat.com', 'discuss'],
  [GENERIC, '[arch-general] Inkscape fails to open svg files', 'Murari <murari.ksr@gmail.com>', 'arch-general@archlinux.org', 'discuss'],
  [GENERIC, '[FRnOG] [BIZ] Collecte de liens C2E/CELAN en DOM', 'Guillaume Genty <ggenty@waycom.net>', 'frnog@frnog.org', 'discuss'],
  [GENERIC, '[ART_HACK] libart patch', 'Raph Levien <raph@acm.org>', 'art_hack@gnome.org', 'discuss'],
  [GENERIC, 'Re: [ART_HACK] Still alive?', 'Tim Janik <timj@gtk.org>', 'art_hack@gnome.org', 'discuss'],
  [GENERIC, '[Analytics] DNT, standards, and expectations', 'Christian Aistleitner <christian@example.org>', 'analytics@lists.wikimedia.org', 'discuss'],
  [GENERIC, 'Re: [dpdk-dev] [PATCH] kni: fix compilation error when debug enabled', 'Someone <s@example.org>', 'dev@dpdk.org', 'review'],
  [GENERIC, 'Aw: Re: [PATCH] fix typo', 'Someone <s@example.de>', 'devel@example.org', 'review'],
  [GENERIC, 'SV: [PATCH 1/2] fix', 'Someone <s@example.se>', 'devel@example.org', 'review'],
  [GENERIC, 'Fwd: [PATCH] fix typo', 'Someone <s@example.org>', 'devel@example.org', 'patch_submission'],
  [GENERIC, '[ANNOUNCE] Mailman 3.3.9 released', 'Mark Sapiro <mark@msapiro.net>', 'mailman-announce@python.org', 'announce'],
  [GENERIC, 'Re: [kafka/kafka] KAFKA-1: fix (#123)', 'mjsax <notifications@github.com>', 'kafka@noreply.github.com', 'github_mirror'],
  [GENERIC, '[apache/kafka] KAFKA-15000: Fix the thing (PR #14000)', 'Jane <notifications@github.com>', 'kafka@noreply.github.com', 'github_mirror'],
  [GENERIC, '[mailman/hyperkitty] Crash on empty thread (Issue #300)', 'Someone <notifications@github.com>', '', 'github_mirror'],
  [GENERIC, '[users] How do I install this?', 'Someone <s@example.org>', 'users@lists.example.org', 'support'],
  [GENERIC, 'Re: Can not log in', 'Someone <s@example.org>', 'mailman-users@python.org', 'support'],
  [GENERIC, 'Dummy subject', 'Dummy Person <test@example.com>', '', 'discuss'],
  [GENERIC, 'Fwd: Invitation: (Aucun objet) - ven. 20 janv. 2017 14:00 - 15:00', 'Someone <s@linagora.com>', '', 'discuss'],
  [GENERIC, 'Re: Fwd: [VOTE] Adopt the new charter', 'Someone <s@example.org>', 'members@example.org', 'vote'],
  [GENERIC, 'Re: [RESULT] [VOTE] Adopt the new charter', 'Someone <s@example.org>', 'members@example.org', 'result'],
  [GENERIC, 'Re: [Fedora-packaging] [DISCUSS] Drop i686', 'Someone <s@example.org>', 'packaging@lists.fedoraproject.org', 'discuss'],
];

const book = loadRuleBook(loadSystems());

describe('the bundled rules classify real subjects', () => {
  it('covers at least 150 subjects', () => {
    expect(ROWS.length).toBeGreaterThanOrEqual(150);
  });

  it.each(ROWS)('%s: %s → %s', (system, subject, sender, list, expected) => {
    const person = /^(.*?)\s*<([^>]*)>$/.exec(sender);
    const input = {
      subject,
      fromName: person ? person[1]!.replace(/^"|"$/g, '') || null : null,
      fromAddress: (person ? person[2]! : sender).toLowerCase() || null,
      body: '',
      listId: null,
      listAddress: list || null,
      hasPatch: false,
    };
    expect(classifyEnvelope(book.rulesOf(system), input).msgClass).toBe(expected);
  });
});

describe('the bundled rules and patches in the body', () => {
  const classify = (system: string, subject: string, list: string, hasPatch: boolean) =>
    classifyEnvelope(book.rulesOf(system), { subject, fromName: null, fromAddress: 'dev@example.org', body: '', listId: null, listAddress: list || null, hasPatch }).msgClass;

  it('calls a diff without a patch tag a patch submission, in a reply too', () => {
    expect(classify(KERNEL, 'MAINTAINERS: Update entry for BCM5301X ARM', '', true)).toBe('patch_submission');
    expect(classify(KERNEL, 'This is an orphaned patch!', '', true)).toBe('patch_submission');
    // A revised patch sent in a discussion thread is a patch; replies to a patch thread stay review.
    expect(classify(GENERIC, 'Re: how about this?', 'devel@lists.fedoraproject.org', true)).toBe('patch_submission');
    expect(classify(GENERIC, 'Re: [PATCH] fix typo', 'devel@lists.fedoraproject.org', true)).toBe('review');
  });

  it('keeps commit mail that carries its diff a commit notification', () => {
    expect(classify(APACHE, 'svn commit: r1889000 - /httpd/httpd/trunk/modules/ssl/ssl_engine_io.c', 'cvs@httpd.apache.org', true)).toBe('commit_notify');
    expect(classify(APACHE, '[kafka] branch trunk updated: KAFKA-1: fix', 'commits@kafka.apache.org', true)).toBe('commit_notify');
    expect(classify(APACHE, 'Some commit title', 'commits@kafka.apache.org', true)).toBe('commit_notify');
  });
});
