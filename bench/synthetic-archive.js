/**
 * A synthetic mailing-list archive shaped like a busy Apache dev list that
 * also carries kernel-style patch traffic: discussion and support threads
 * with quoting, patch series with cover letters, trailers and reviews, Jira
 * and GitBox notifications, votes and their results, announcements and
 * commit mail. About one message in ten is multipart; bodies come as 7bit,
 * 8bit, quoted-printable and base64, a few in charsets other than UTF-8;
 * non-ASCII subjects and names are RFC 2047 encoded. A few hundred senders
 * write with a Zipf-like skew, over 24 months.
 *
 * Streaming: messages are made one at a time from a bounded pool of open
 * conversations, so a million messages take no more memory than a thousand.
 * Deterministic: the same seed and count give the same bytes.
 */
import { base64Lines, encodable, encodeText, encodedWords, mailDate, quotedPrintable } from './mail-encoding.js';
import { seededRandom, zipf } from './seeded-random.js';

export const DEFAULT_SEED = 13;
/** The archive spans 2023-01-01 to 2024-12-31. */
export const ARCHIVE_START = Date.UTC(2023, 0, 1);
export const ARCHIVE_END = Date.UTC(2025, 0, 1);
/** Conversations open at once: replies interleave as on a real list. */
const OPEN_CONVERSATIONS = 32;
const SENDERS = 400;

const LIST = {
  address: 'dev@kafka.apache.org',
  id: 'dev.kafka.apache.org',
  project: 'kafka',
  key: 'KAFKA',
  name: 'Kafka',
};

/**
 * Each message of the archive, in arrival order: its bytes (headers with LF
 * line ends, no From_ line), when the archive received it, and the envelope
 * sender an mbox From_ line names.
 */
export function* syntheticArchive({ messages, seed = DEFAULT_SEED }) {
  const root = seededRandom(seed);
  const schedule = root.fork('schedule');
  const world = createWorld(root.fork('world'));
  const context = { random: root.fork('mail'), world, index: 0, arrived: new Date(ARCHIVE_START) };
  const open = [];
  const step = (ARCHIVE_END - ARCHIVE_START) / messages;
  for (let index = 0; index < messages;) {
    if (open.length === 0 || (open.length < OPEN_CONVERSATIONS && schedule.chance(0.3)))
      open.push(startConversation(context, schedule));
    const at = schedule.int(0, open.length - 1);
    context.index = index;
    context.arrived = new Date(ARCHIVE_START + Math.floor((index + schedule.next()) * step));
    const { value: mail, done } = open[at].next();
    if (done) {
      open.splice(at, 1);
      continue;
    }
    yield { raw: renderMail(mail, context), arrived: context.arrived, sender: mail.from.address };
    index++;
  }
}

// ---- Conversations: each is a generator of mail, asked for its next message when the schedule picks it.

const CONVERSATIONS = [
  [discussion, 0.034],
  [supportQuestion, 0.04],
  [patchSeries, 0.026],
  [jiraIssue, 0.055],
  [pullRequest, 0.036],
  [vote, 0.006],
  [announcement, 0.003],
  [commitMail, 0.05],
];

function startConversation(context, schedule) {
  const kind = schedule.weighted(
    CONVERSATIONS.map(([make]) => make),
    CONVERSATIONS.map(([, weight]) => weight),
  );
  return kind(context);
}

function* discussion(context) {
  const { random, world } = context;
  const kip = random.chance(0.5) ? world.nextKip++ : undefined;
  const title = titleCase(topicPhrase(random));
  const subject = kip === undefined ? title : `[DISCUSS] KIP-${kip}: ${title}`;
  const thread = new Thread(subject);
  const author = person(context);
  const opening = kip === undefined ? prose(random, 2, 4) : kipProposal(random, kip, title);
  yield thread.post(context, author, opening);
  const replies = geometric(random, 5, 30);
  for (let i = 0; i < replies; i++) {
    const from = random.chance(0.25) ? author : person(context);
    yield thread.reply(
      context,
      from,
      random.chance(0.2) ? `${random.pick(AGREEMENT)}\n` : prose(random, 1, random.chance(0.5) ? 1 : 2),
    );
  }
}

function* supportQuestion(context) {
  const { random } = context;
  const asker = person(context);
  const thread = new Thread(
    random.pick(QUESTION_SUBJECTS)(topicPhrase(random)),
    asker.lang !== 'en' && random.chance(0.3) ? asker : undefined,
  );
  yield thread.post(
    context,
    asker,
    `${random.pick(GREETINGS)}\n\n${prose(random, 1, 3)}\n${random.chance(0.3) ? stackTrace(random) : ''}\n${random.pick(THANKS)}\n`,
  );
  const replies = geometric(random, 2.5, 12);
  for (let i = 0; i < replies; i++) {
    const from = i % 2 === 1 && random.chance(0.6) ? asker : person(context);
    yield thread.reply(context, from, prose(random, 1, random.chance(0.5) ? 1 : 2));
  }
}

function* patchSeries(context) {
  const { random, world } = context;
  const author = person(context);
  const subsystem = random.pick(SUBSYSTEMS);
  const tree = random.chance(0.3) ? `${random.pick(TREES)} ` : '';
  const version = random.weighted([1, 2, 3, 4, 5], [50, 25, 12, 8, 5]);
  const count = random.weighted([1, 2, 3, 4, 5, 6, 8], [40, 15, 15, 10, 8, 6, 6]);
  const series = world.nextSeries++;
  const prefix = (i) =>
    `[PATCH ${tree}${version > 1 ? `v${version} ` : ''}${count > 1 ? `${i}/${count}` : ''}`.replace(/\s+$/, '') + ']';
  const idOf = (i) => `<${compactDate(context.arrived)}.${series}-${i}-${author.local}@${author.domain}>`;
  const thread = new Thread('');
  const patches = Array.from({ length: count }, () => ({
    title: `${subsystem} ${patchTitle(random)}`,
    files: random.int(1, 3),
  }));
  if (count > 1 && random.chance(0.85)) {
    const cover = `${prose(random, 1, 2)}\n${version > 1 ? changelog(random, version) : ''}\n${author.name} (${count}):\n${patches.map((p) => `  ${p.title}`).join('\n')}\n\n${randomDiffstat(random, count * 2)}\n--\n2.${random.int(34, 43)}.${random.int(0, 3)}\n`;
    yield thread.post(context, author, cover, {
      subject: `${prefix(0)} ${subsystem} ${patchTitle(random)}`,
      messageId: idOf(0),
      mailer: 'git-send-email',
    });
  }
  for (let i = 1; i <= count; i++) {
    const { title, files } = patches[i - 1];
    const body = patchBody(random, author, files, world);
    // Without a cover letter, git send-email threads the patches under the first.
    yield thread.post(context, author, body, {
      subject: `${prefix(i)} ${title}`,
      messageId: idOf(i),
      parent: thread.posts[0],
      mailer: 'git-send-email',
    });
  }
  const reviews = geometric(random, 3, 15);
  for (let i = 0; i < reviews; i++) {
    const reviewer = random.chance(0.2) ? author : person(context);
    const trailer =
      reviewer !== author && random.chance(0.45)
        ? `\n${random.pick(['Reviewed-by', 'Acked-by', 'Tested-by', 'Reviewed-by'])}: ${reviewer.name} <${reviewer.address}>\n`
        : '';
    yield thread.reply(context, reviewer, `${prose(random, 1, 2)}${trailer}`, { inline: true });
  }
}

function* jiraIssue(context) {
  const { random, world } = context;
  const key = `${LIST.key}-${world.nextIssue++}`;
  const issueId = 13_500_000 + world.nextIssue;
  const createdAt = context.arrived.getTime();
  const base = `<JIRA.${issueId}.${createdAt}@Atlassian.JIRA>`;
  const title = titleCase(topicPhrase(random));
  const reporter = person(context);
  const fields = {
    type: random.pick(['Bug', 'Bug', 'Improvement', 'Task', 'New Feature', 'Test', 'Sub-task']),
    component: random.pick([
      'streams',
      'clients',
      'core',
      'connect',
      'controller',
      'consumer',
      'producer',
      'KRaft',
      'unit tests',
    ]),
    affects: `3.${random.int(3, 8)}.${random.int(0, 2)}`,
    priority: random.pick(['Major', 'Major', 'Minor', 'Critical', 'Blocker', 'Trivial']),
    reporter,
    assignee: random.chance(0.6) ? person(context) : undefined,
    description: prose(random, 1, 3),
  };
  const jira = (actor, action, body) => ({
    from: { name: `${actor.name} (Jira)`, address: 'jira@apache.org', bot: true },
    subject: `[jira] [${action}] (${key}) ${title}`,
    messageId: `<JIRA.${issueId}.${createdAt}.${context.index}.${context.arrived.getTime()}@Atlassian.JIRA>`,
    inReplyTo: base,
    references: [base],
    text: `${body}\n\n\n--\nThis message was sent by Atlassian Jira\n(v8.20.10#820010)\n`,
    headers: [
      ['Auto-Submitted', 'auto-generated'],
      ['X-JIRA-FingerPrint', '30527f35849b9dde25b450d4833f0394'],
    ],
  });
  yield jira(
    reporter,
    'Created',
    `${reporter.name} created ${key}:\n${'-'.repeat(31 + key.length)}\n\n${jiraFields(key, title, fields, '')}\n${fields.description}`,
  );
  const events = geometric(random, 3, 20);
  for (let i = 0; i < events; i++) {
    const actor = person(context);
    const action = random.weighted(
      ['Commented', 'Updated', 'Assigned', 'Resolved', 'Work logged', 'Reopened'],
      [60, 20, 5, 8, 4, 3],
    );
    const link = `    [ https://issues.apache.org/jira/browse/${key}?page=com.atlassian.jira.plugin.system.issuetabpanels:comment-tabpanel&focusedCommentId=${17_700_000 + context.index}#comment-${17_700_000 + context.index} ] \n\n`;
    const quoted = `${jiraFields(key, title, fields, '> ')}\n> ${fields.description.split('\n')[0]}`;
    const change =
      action === 'Commented'
        ? `${actor.name} commented on ${key}:\n${'-'.repeat(40)}\n\n${prose(random, 1, 2)}`
        : action === 'Resolved'
          ? `${actor.name} resolved ${key}.\n${'-'.repeat(40)}\n    Fix Version/s: 3.${random.int(4, 9)}.0\n       Resolution: Fixed`
          : `${actor.name} ${action.toLowerCase()} ${key}:\n${'-'.repeat(40)}\n    ${random.pick(['Fix Version/s', 'Labels', 'Component/s', 'Assignee', 'Status'])}: ${random.pick(['3.7.0', 'newbie', 'streams', actor.name, 'Patch Available'])}`;
    yield jira(actor, action, `\n${link}${change}\n\n${quoted}`);
    if (action === 'Resolved' && random.chance(0.7)) return;
  }
}

function* pullRequest(context) {
  const { random, world } = context;
  const number = world.nextPull++;
  const author = person(context);
  const key = random.chance(0.6) ? `${LIST.key}-${random.int(10_000, Math.max(10_001, world.nextIssue))}` : 'MINOR';
  const title = `${key}: ${patchTitle(random)}`;
  const root = `<gh-pr-${number}@gitbox.apache.org>`;
  const gitbox = (actor, action, body) => ({
    from: { name: 'GitBox', address: 'git@apache.org', bot: true },
    subject: `[GitHub] [${LIST.project}] ${actor.login} ${action} #${number}: ${title}`,
    messageId: action.startsWith('opened') ? root : `<gh-pr-${number}-${context.index}@gitbox.apache.org>`,
    inReplyTo: action.startsWith('opened') ? undefined : root,
    references: action.startsWith('opened') ? [] : [root],
    text: `\n${body}\n\n\n-- \nThis is an automated message from the Apache Git Service.\nTo respond to the message, please log on to GitHub and use the\nURL above to go to the specific comment.\n\nTo unsubscribe, e-mail: dev-unsubscribe@${LIST.project}.apache.org\n\nFor queries about this service, please contact Infrastructure at:\nusers@infra.apache.org\n`,
    headers: [['X-GitHub-Event', action.startsWith('opened') ? 'pull_request' : 'issue_comment']],
  });
  yield gitbox(
    author,
    'opened pull request',
    `${author.login} opened a new pull request, #${number}:\nURL: https://github.com/apache/${LIST.project}/pull/${number}\n\n   ${prose(random, 1, 2).replace(/\n/g, '\n   ')}\n   ### Committer Checklist (excluded from commit message)\n   - [ ] Verify design and implementation \n   - [ ] Verify test coverage and CI build status\n   - [ ] Verify documentation (including upgrade notes)`,
  );
  const events = geometric(random, 4, 25);
  for (let i = 0; i < events; i++) {
    const actor = random.chance(0.3) ? author : person(context);
    const onDiff = random.chance(0.4);
    const url = `https://github.com/apache/${LIST.project}/pull/${number}#${onDiff ? 'discussion_r' : 'issuecomment-'}${1_300_000_000 + context.index}`;
    const body = onDiff
      ? `${actor.login} commented on code in PR #${number}:\nURL: ${url}\n\n\n##########\n${javaPath(random)}:\n##########\n${hunk(random, 'java', 4).text.replace(/^/gm, '   ')}\n\nReview Comment:\n   ${prose(random, 1, 1).replace(/\n/g, '\n   ')}`
      : `${actor.login} commented on PR #${number}:\nURL: ${url}\n\n   ${prose(random, 1, 1).replace(/\n/g, '\n   ')}`;
    yield gitbox(actor, onDiff ? 'commented on code in pull request' : 'commented on pull request', body);
  }
  if (random.chance(0.7)) {
    const merger = person(context);
    yield gitbox(
      merger,
      random.chance(0.85) ? 'merged pull request' : 'closed pull request',
      `${merger.login} merged PR #${number}:\nURL: https://github.com/apache/${LIST.project}/pull/${number}`,
    );
  }
}

function* vote(context) {
  const { random, world } = context;
  const release = random.chance(0.3);
  const version = `3.${random.int(4, 9)}.${random.int(0, 2)}`;
  const what = release
    ? `Release Kafka version ${version} RC${random.int(0, 3)}`
    : `KIP-${random.int(900, world.nextKip)}: ${titleCase(topicPhrase(random))}`;
  const caller = person(context);
  const thread = new Thread(`[VOTE] ${what}`);
  yield thread.post(
    context,
    caller,
    `Hi all,\n\nI would like to start the vote on ${what}.\n\n${release ? releaseCandidate(random, version) : prose(random, 1, 2)}\nThe vote will be open for at least 72 hours.\n\nThanks,\n${caller.first}\n`,
  );
  const votes = random.int(3, 12);
  const voters = [];
  for (let i = 0; i < votes; i++) {
    const voter = person(context);
    const binding = random.chance(0.5);
    voters.push({ voter, binding });
    yield thread.reply(
      context,
      voter,
      `+1${binding ? ' (binding)' : ' (non-binding)'}\n\n${random.chance(0.5) ? random.pick(AGREEMENT) : prose(random, 1, 1)}\n`,
    );
  }
  const binding = voters.filter((v) => v.binding);
  yield thread.post(
    context,
    caller,
    `Hi all,\n\nThe vote passes with ${binding.length} binding +1 votes (${binding.map((v) => v.voter.name).join(', ')}) and ${voters.length - binding.length} non-binding +1 votes.\n\nThank you all for voting.\n\n${caller.first}\n`,
    {
      subject: `[RESULT][VOTE] ${what}`,
    },
  );
}

function* announcement(context) {
  const { random } = context;
  const version = `3.${random.int(4, 9)}.${random.int(0, 2)}`;
  const manager = person(context);
  const notes = Array.from(
    { length: random.int(15, 60) },
    () => `* [${LIST.key}-${random.int(10_000, 16_000)}] - ${titleCase(patchTitle(random))}`,
  ).join('\n');
  const thread = new Thread(`[ANNOUNCE] Apache Kafka ${version}`);
  yield thread.post(
    context,
    manager,
    `The Apache Kafka community is pleased to announce the release for Apache Kafka ${version}.\n\n${prose(random, 2, 3)}\nAll of the changes in this release can be found in the release notes:\nhttps://www.apache.org/dist/kafka/${version}/RELEASE_NOTES.html\n\n${notes}\n\nThanks,\n${manager.name}\n`,
    {
      to: 'announce@apache.org, dev@kafka.apache.org, users@kafka.apache.org',
    },
  );
  const replies = random.int(0, 3);
  for (let i = 0; i < replies; i++)
    yield thread.reply(context, person(context), `Thanks for running the release, ${manager.first}!\n`);
}

function* commitMail(context) {
  const { random } = context;
  const pusher = person(context);
  const sha = random.hex(40);
  const title = `${random.chance(0.6) ? `${LIST.key}-${random.int(10_000, 16_000)}` : 'MINOR'}: ${patchTitle(random)} (#${random.int(12_000, 17_000)})`;
  const change = diff(random, random.int(1, 2), 'java');
  const reviewer = person(context);
  yield {
    from: { name: pusher.login, address: `${pusher.login}@apache.org`, bot: true },
    to: `commits@${LIST.project}.apache.org`,
    subject: `[${LIST.project}] branch ${random.pick(['trunk', 'trunk', 'trunk', '3.7', '3.6'])} updated: ${title}`,
    messageId: `<${compactDate(context.arrived)}.${context.index}.${random.hex(6)}@gitbox.apache.org>`,
    text: `This is an automated email from the ASF dual-hosted git repository.\n\n${pusher.login} pushed a commit to branch trunk\nin repository https://gitbox.apache.org/repos/asf/${LIST.project}.git\n\n\nThe following commit(s) were added to refs/heads/trunk by this push:\n     new ${sha.slice(0, 7)}  ${title}\n${sha.slice(0, 7)} is described below\n\ncommit ${sha}\nAuthor: ${pusher.name} <${pusher.address}>\nAuthorDate: ${mailDate(context.arrived, pusher.offset)}\n\n    ${title}\n    \n    Reviewers: ${reviewer.name} <${reviewer.address}>\n---\n${change.stat}\n${change.text}`,
    headers: [
      ['X-Git-Host', 'gitbox.apache.org'],
      ['X-Git-Repo', LIST.project],
      ['X-Git-Refname', 'refs/heads/trunk'],
      ['X-Git-Rev', sha],
      ['Auto-Submitted', 'auto-generated'],
    ],
  };
}

// ---- Threads: who replies to what, and what they quote.

class Thread {
  constructor(subject, subjectAuthor) {
    this.subject = subject;
    /** Set when the thread's subject is in its author's own language and charset. */
    this.subjectAuthor = subjectAuthor;
    /** Posts so far; bounded by the conversation's length. */
    this.posts = [];
  }

  post(context, from, text, options = {}) {
    const subject =
      options.subject ??
      (this.subjectAuthor ? nativeSubject(context.random, this.subjectAuthor, this.subject) : this.subject);
    const parent = options.parent;
    const mail = {
      from,
      subject,
      to: options.to,
      messageId: options.messageId ?? messageIdFor(context, from),
      inReplyTo: parent?.messageId,
      references: parent ? [...parent.references, parent.messageId].slice(-8) : [],
      text: signed(context.random, from, text, options.mailer),
      mailer: options.mailer,
      arrived: context.arrived,
    };
    this.posts.push(mail);
    return mail;
  }

  /** A reply to the newest post, or now and then to an older one; it quotes its parent. */
  reply(context, from, text, options = {}) {
    const { random } = context;
    const parent = random.chance(0.75) ? this.posts[this.posts.length - 1] : random.pick(this.posts);
    const subject = parent.subject.startsWith('Re: ') ? parent.subject : `Re: ${parent.subject}`;
    const lines = parent.text.split('\n');
    const quote = (count) =>
      lines
        .slice(0, count)
        .map((line) => (line.startsWith('>') ? `>${line}` : line ? `> ${line}` : '>'))
        .join('\n');
    const attribution = `On ${mailDate(parent.arrived, parent.from.offset ?? 0)}, ${parent.from.name} <${parent.from.address}> wrote:`;
    let body;
    if (options.inline || random.chance(0.55)) {
      // Interleaved: a few quoted lines, an answer, maybe another quote.
      const at = random.int(2, 6);
      body = `${attribution}\n${quote(at)}\n\n${text}\n${
        random.chance(0.2)
          ? `${lines
              .slice(at, at + random.int(2, 8))
              .map((line) => (line ? `> ${line}` : '>'))
              .join('\n')}\n\n${prose(random, 1, 1)}`
          : ''
      }`;
    } else {
      // Top-posted above the whole parent, as web mail does.
      body = `${text}\n${attribution}\n\n${quote(12)}\n`;
    }
    return this.post(context, from, body, { subject, parent, mailer: options.mailer });
  }
}

function messageIdFor(context, from) {
  const { random, index } = context;
  switch (from.client) {
    case 'gmail':
      return `<CA${random.pick(['+', 'F', 'K', 'J', 'L'])}${base62(random, 38)}${index.toString(36)}@mail.gmail.com>`;
    case 'outlook':
      return `<${random.pick(['AM', 'DB', 'PA', 'VI'])}${random.int(1, 9)}PR0${random.int(1, 9)}MB${random.int(1000, 9999)}${index.toString(36).toUpperCase()}.eurprd0${random.int(1, 9)}.prod.outlook.com>`;
    case 'apple':
      return `<${random.hex(8).toUpperCase()}-${random.hex(4).toUpperCase()}-${random.hex(4).toUpperCase()}-${random.hex(4).toUpperCase()}-${index.toString(16).toUpperCase().padStart(12, '0')}@${from.domain}>`;
    default:
      return `<${compactDate(context.arrived)}.${index.toString(36)}.${random.hex(6)}@${from.domain}>`;
  }
}

// ---- Rendering one mail as the archive stores it.

function renderMail(mail, context) {
  const { random } = context;
  const from = mail.from;
  const sent = new Date(context.arrived.getTime() - random.int(2, 240) * 1000);
  // A sender's clock is sometimes wrong by hours or days.
  const dated = random.chance(0.01) ? new Date(sent.getTime() + random.int(-72, 72) * 3_600_000) : sent;
  const seq = 100_000 + context.index;
  const headers = [
    ['Return-Path', `<dev-return-${seq}-archive-asf-public=cust-asf.ponee.io@${LIST.project}.apache.org>`],
    ['Received', `(qmail ${random.int(1000, 99999)} invoked by uid 500); ${mailDate(context.arrived)}`],
    ['Mailing-List', `contact dev-help@${LIST.project}.apache.org; run by ezmlm`],
    ['Precedence', 'bulk'],
    ['List-Help', `<mailto:dev-help@${LIST.project}.apache.org>`],
    ['List-Unsubscribe', `<mailto:dev-unsubscribe@${LIST.project}.apache.org>`],
    ['List-Post', `<mailto:${LIST.address}>`],
    ['List-Id', `<${LIST.id}>`],
    ['Reply-To', LIST.address],
    ['Delivered-To', `mailing list ${LIST.address}`],
  ];
  if (!from.bot) {
    headers.push([
      'Received',
      `from ${relayOf(from, random)}\n\tby mxout1-he-de.apache.org (ASF Mail Server at mxout1-he-de.apache.org) with ESMTPS id ${random.hex(10).toUpperCase()}\n\tfor <${LIST.address}>; ${mailDate(sent)}`,
    ]);
    if (from.client === 'gmail') headers.push(['DKIM-Signature', dkimSignature(from, sent, random)]);
  } else {
    headers.push([
      'Received',
      `from gitbox.apache.org (gitbox.apache.org [2a01:4f8:c2c:6a32::1])\n\tby mailrelay1-us-west.apache.org (ASF Mail Server) with ESMTP id ${random.hex(10).toUpperCase()}\n\tfor <${LIST.address}>; ${mailDate(sent)}`,
    ]);
  }
  headers.push(['MIME-Version', '1.0']);
  if (mail.references?.length) headers.push(['References', mail.references.join('\n ')]);
  if (mail.inReplyTo) headers.push(['In-Reply-To', mail.inReplyTo]);
  // A client falls back to UTF-8 when the sender's charset cannot hold the text (a quoted reply in another script).
  const charset = from.bot || !encodable(mail.text, from.charset) ? 'UTF-8' : from.charset;
  headers.push(
    ['From', `${displayName(from, random)} <${from.address}>`],
    ['Date', mailDate(dated, from.offset ?? 0)],
    ['Message-ID', mail.messageId],
    ['Subject', headerText(mail.subject, from, random)],
    ['To', mail.to ?? LIST.address],
  );
  if (mail.mailer === 'git-send-email')
    headers.push(['X-Mailer', `git-send-email 2.${random.int(34, 43)}.${random.int(0, 3)}`]);
  else if (from.userAgent) headers.push(['User-Agent', from.userAgent]);
  for (const header of mail.headers ?? []) headers.push(header);

  const body = renderBody(mail, charset, from, random);
  headers.push(...body.headers);
  const head = headers.map(([name, value]) => `${name}: ${value}`).join('\n');
  return Buffer.concat([Buffer.from(`${head}\n\n`, 'latin1'), body.bytes]);
}

/** The body's MIME structure: mostly one text part; about one in ten multipart. */
function renderBody(mail, charset, from, random) {
  const shape =
    from.bot || mail.mailer === 'git-send-email'
      ? 'plain'
      : random.weighted(['plain', 'alternative', 'attachment', 'both'], [80, 13, 5.5, 1.5]);
  const text = textPart(mail.text, charset, from, random, shape === 'plain');
  if (shape === 'plain') return { headers: text.headers, bytes: text.bytes };
  const parts = [];
  if (shape === 'alternative' || shape === 'both') {
    const boundary = `000000000000${random.hex(16)}`;
    const html = htmlPart(mail.text, charset);
    const alternative = Buffer.concat([
      Buffer.from(`--${boundary}\n${partHead(text.headers)}\n\n`),
      text.bytes,
      Buffer.from(`\n--${boundary}\n${partHead(html.headers)}\n\n`),
      html.bytes,
      Buffer.from(`\n--${boundary}--\n`),
    ]);
    if (shape === 'alternative')
      return { headers: [['Content-Type', `multipart/alternative; boundary="${boundary}"`]], bytes: alternative };
    parts.push({ headers: [['Content-Type', `multipart/alternative; boundary="${boundary}"`]], bytes: alternative });
  } else {
    parts.push(text);
  }
  parts.push(attachmentPart(random));
  const boundary = `----=_Part_${random.int(100000, 999999)}_${random.int(100000000, 999999999)}.${random.hex(13)}`;
  const chunks = [Buffer.from('This is a multi-part message in MIME format.\n')];
  for (const part of parts)
    chunks.push(Buffer.from(`--${boundary}\n${partHead(part.headers)}\n\n`), part.bytes, Buffer.from('\n'));
  chunks.push(Buffer.from(`--${boundary}--\n`));
  return { headers: [['Content-Type', `multipart/mixed; boundary="${boundary}"`]], bytes: Buffer.concat(chunks) };
}

function partHead(headers) {
  return headers.map(([name, value]) => `${name}: ${value}`).join('\n');
}

function textPart(text, charset, from, random, alone) {
  const bytes = encodeText(text, charset);
  const ascii = !/[^\x00-\x7f]/.test(text);
  const type = `text/plain; charset="${charset}"${alone && from.client === 'thunderbird' ? '; format=flowed' : ''}`;
  let encoding = ascii
    ? '7bit'
    : from.bot
      ? '8bit'
      : random.weighted(['quoted-printable', '8bit', 'base64'], [55, 35, 10]);
  if (!from.bot && from.client === 'outlook' && random.chance(0.3)) encoding = 'base64';
  const encoded =
    encoding === 'quoted-printable'
      ? Buffer.from(quotedPrintable(bytes), 'latin1')
      : encoding === 'base64'
        ? Buffer.from(base64Lines(bytes))
        : bytes;
  return {
    headers: [
      ['Content-Type', type],
      ['Content-Transfer-Encoding', encoding],
    ],
    bytes: encoded,
  };
}

function htmlPart(text, charset) {
  const escaped = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  const html = `<div dir="ltr">${escaped
    .split('\n\n')
    .map((paragraph) =>
      paragraph.startsWith('&gt;')
        ? `<blockquote class="gmail_quote" style="margin:0px 0px 0px 0.8ex;border-left:1px solid rgb(204,204,204);padding-left:1ex">${paragraph.replace(/\n/g, '<br>')}</blockquote>`
        : `<div>${paragraph.replace(/\n/g, ' ')}</div>`,
    )
    .join('<div><br></div>')}</div>\n`;
  return {
    headers: [
      ['Content-Type', `text/html; charset="${charset}"`],
      ['Content-Transfer-Encoding', 'quoted-printable'],
    ],
    bytes: Buffer.from(quotedPrintable(encodeText(html, charset)), 'latin1'),
  };
}

function attachmentPart(random) {
  const kind = random.pick(['log', 'png', 'patch', 'properties']);
  if (kind === 'png') {
    const bytes = Buffer.alloc(random.int(400, 1600));
    for (let i = 0; i < bytes.length; i++) bytes[i] = random.int(0, 255);
    bytes.write('\x89PNG\r\n\x1a\n', 0, 'latin1');
    return {
      headers: [
        ['Content-Type', 'image/png; name="screenshot.png"'],
        ['Content-Disposition', 'attachment; filename="screenshot.png"'],
        ['Content-Transfer-Encoding', 'base64'],
      ],
      bytes: Buffer.from(base64Lines(bytes)),
    };
  }
  const name = { log: 'broker.log', patch: '0001-fix.patch', properties: 'server.properties' }[kind];
  const content =
    kind === 'log'
      ? Array.from(
          { length: random.int(8, 24) },
          (_, i) =>
            `[2024-03-0${1 + (i % 9)} 10:${String(i).padStart(2, '0')}:11,${random.int(100, 999)}] ${random.pick(['INFO', 'WARN', 'ERROR'])} [${random.pick(['ReplicaFetcher', 'GroupCoordinator', 'LogCleaner'])} id=${random.int(0, 5)}] ${sentence(random)} (kafka.${random.pick(['server', 'log', 'coordinator'])}.${random.pick(['ReplicaManager', 'Log', 'GroupMetadataManager'])})`,
        ).join('\n')
      : kind === 'patch'
        ? diff(random, 1, 'java').text
        : Array.from(
            { length: random.int(6, 20) },
            () => `${random.pick(IDENTS)}.${random.pick(IDENTS)}=${random.int(1, 50000)}`,
          ).join('\n');
  return {
    headers: [
      ['Content-Type', `text/plain; charset=UTF-8; name="${name}"`],
      ['Content-Disposition', `attachment; filename="${name}"`],
      ['Content-Transfer-Encoding', 'base64'],
    ],
    bytes: Buffer.from(base64Lines(Buffer.from(`${content}\n`))),
  };
}

function displayName(from, random) {
  if (/^[\x20-\x7e]*$/.test(from.name)) return /[(),.:;<>@[\]"]/.test(from.name) ? `"${from.name}"` : from.name;
  const charset = from.charset && encodable(from.name, from.charset) ? from.charset : 'UTF-8';
  return encodedWords(from.name, charset, random.chance(0.7) ? 'B' : 'Q');
}

function headerText(text, from, random) {
  const charset = from.bot || !encodable(text, from.charset) ? 'UTF-8' : from.charset;
  return encodedWords(text, charset, random.chance(0.6) ? 'B' : 'Q');
}

function relayOf(from, random) {
  switch (from.client) {
    case 'gmail':
      return `mail-${random.pick(['lj1', 'ed1', 'wm1', 'pj1', 'qt1'])}-f${random.int(41, 199)}.google.com (mail-${random.pick(['lj1', 'ed1', 'wm1'])}-f${random.int(41, 199)}.google.com [209.85.${random.int(128, 255)}.${random.int(1, 254)}])`;
    case 'outlook':
      return `EUR${random.int(1, 5)}-${random.pick(['DB8', 'VI1', 'AM6'])}-obe.outbound.protection.outlook.com (mail-${random.pick(['db8', 'vi1', 'am6'])}eur0${random.int(1, 5)}on2${random.int(100, 139)}.outbound.protection.outlook.com [40.107.${random.int(0, 255)}.${random.int(1, 254)}])`;
    default:
      return `${random.pick(['smtp', 'mail', 'mx', 'out'])}.${from.domain} (${random.pick(['smtp', 'mail', 'mx', 'out'])}.${from.domain} [${random.int(11, 223)}.${random.int(0, 255)}.${random.int(0, 255)}.${random.int(1, 254)}])`;
  }
}

function dkimSignature(from, sent, random) {
  const b = base62(random, 342);
  return `v=1; a=rsa-sha256; c=relaxed/relaxed;\n        d=${from.domain}; s=${random.pick(['20230601', '20221208', 'selector1', 'google'])}; t=${Math.floor(sent.getTime() / 1000)};\n        h=to:subject:message-id:date:from:in-reply-to:references:mime-version\n         :from:to:cc:subject:date:message-id;\n        bh=${base62(random, 43)}=;\n        b=${b.match(/.{1,70}/g).join('\n         ')}`;
}

// ---- The people and the words.

function createWorld(random) {
  const people = [];
  const taken = new Set();
  for (let rank = 0; people.length < SENDERS; rank++) {
    const lang = random.weighted(['en', 'de', 'fr', 'es', 'ru', 'zh', 'pl', 'in', 'ja'], [52, 9, 6, 5, 6, 9, 4, 7, 2]);
    const [first, last] = [random.pick(FIRST_NAMES[lang]), random.pick(LAST_NAMES[lang])];
    const login =
      `${ascii(first)[0]}${ascii(last)}`.toLowerCase().replace(/[^a-z0-9]/g, '') + (rank % 7 === 0 ? String(rank) : '');
    if (taken.has(login)) continue;
    taken.add(login);
    const client = random.weighted(['gmail', 'outlook', 'thunderbird', 'mutt', 'apple'], [50, 15, 15, 12, 8]);
    const domain =
      client === 'gmail'
        ? 'gmail.com'
        : client === 'outlook'
          ? random.pick(['outlook.com', 'confluent.io', 'microsoft.com'])
          : random.pick([
              'apache.org',
              'redhat.com',
              'kernel.org',
              'example.org',
              'linaro.org',
              'suse.de',
              'ibm.com',
              'yandex.ru',
              'qq.com',
            ]);
    const local = `${ascii(first)}.${ascii(last)}`.toLowerCase().replace(/[^a-z0-9.]/g, '');
    people.push({
      name: lang === 'zh' ? `${last}${first}` : `${first} ${last}`,
      first,
      lang,
      login,
      local,
      domain,
      address: `${local}@${domain}`,
      client,
      // Most write UTF-8; a few mailers still send the local legacy charset.
      charset: random.chance(0.4) ? (LEGACY_CHARSETS[lang] ?? 'UTF-8') : 'UTF-8',
      offset: random.pick(OFFSETS[lang]),
      userAgent: {
        thunderbird: 'Mozilla/5.0 (X11; Linux x86_64; rv:102.0) Gecko/20100101 Thunderbird/102.15.1',
        mutt: 'Mutt/2.2.9 (2022-11-12)',
        apple: undefined,
        gmail: undefined,
        outlook: undefined,
      }[client],
    });
  }
  const draw = zipf(random.fork('senders'), people.length);
  return { people, draw, nextIssue: 14_000, nextPull: 12_000, nextKip: 900, nextSeries: 1 };
}

function person(context) {
  return context.world.people[context.world.draw()];
}

function ascii(name) {
  return (
    name
      .normalize('NFD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/ł/g, 'l')
      .replace(/ø/g, 'o')
      .replace(/[^A-Za-z]/g, '') || 'dev'
  );
}

const LEGACY_CHARSETS = {
  de: 'ISO-8859-1',
  fr: 'windows-1252',
  es: 'ISO-8859-1',
  ru: 'KOI8-R',
  zh: 'GB2312',
  pl: 'ISO-8859-2',
};
const OFFSETS = {
  en: [-480, -420, -300, -240, 0, 60, 600],
  de: [60, 120],
  fr: [60, 120],
  es: [60, 120, -300],
  ru: [180],
  zh: [480],
  pl: [60, 120],
  in: [330],
  ja: [540],
};

const FIRST_NAMES = {
  en: [
    'John',
    'Sarah',
    'Michael',
    'Emily',
    'David',
    'Jessica',
    'Chris',
    'Laura',
    'Matthew',
    'Rachel',
    'Greg',
    'Colin',
    'Sophie',
    'Justine',
    'Bill',
    'Luke',
    'Ismael',
    'Jason',
  ],
  de: ['Jürgen', 'Matthias', 'Björn', 'Sönke', 'Katrin', 'Lukas', 'Jörg', 'Anja', 'Mickael', 'Uwe'],
  fr: ['François', 'Hélène', 'Gaël', 'Jérôme', 'Loïc', 'Mathieu', 'Céline', 'Rémi', 'Frédéric'],
  es: ['José', 'María', 'Jesús', 'Begoña', 'Iñaki', 'Sergio', 'Lucía', 'Ramón'],
  ru: ['Дмитрий', 'Алексей', 'Ирина', 'Сергей', 'Анна', 'Николай', 'Ivan', 'Oleg'],
  zh: ['伟', '娜', '强', '静', '磊', '洋', '敏', '杰'],
  pl: ['Łukasz', 'Michał', 'Paweł', 'Agnieszka', 'Krzysztof', 'Wojciech'],
  in: ['Rajini', 'Satish', 'Manikumar', 'Chia', 'Divij', 'Kamal', 'Priya', 'Sagar'],
  ja: ['Haruki', 'Yuki', 'Kenji', 'Aiko', 'Takashi'],
};
const LAST_NAMES = {
  en: [
    'Smith',
    'Johnson',
    "O'Brien",
    'Williams',
    'Brown',
    'Taylor',
    'Anderson',
    'Thompson',
    'Harris',
    'Clarke',
    'Roesler',
    'Gustafson',
    'Mason',
    'Chen',
  ],
  de: ['Müller', 'Schäfer', 'Groß', 'Köhler', 'Weiß', 'Bauer', 'Sax', 'Hoffmann'],
  fr: ['Dupont', 'Lefèvre', 'Bézier', 'Girard', 'Rousseau', 'Chevalier', 'Moreau'],
  es: ['García', 'Fernández', 'Núñez', 'Pérez', 'Sánchez', 'Ibáñez'],
  ru: ['Иванов', 'Смирнов', 'Кузнецов', 'Попова', 'Соколов', 'Petrov'],
  zh: ['王', '李', '张', '刘', '陈', '杨', '黄', '赵'],
  pl: ['Kowalski', 'Wiśniewski', 'Wójcik', 'Zieliński', 'Dąbrowski'],
  in: ['Sivaram', 'Kumar', 'Reddy', 'Sharma', 'Iyer', 'Patel', 'Gupta'],
  ja: ['Tanaka', 'Suzuki', 'Sato', 'Watanabe', 'Ito'],
};
/** What a sender adds in their own language, so legacy charsets carry real text. */
const NATIVE = {
  de: [
    'Viele Grüße',
    'Danke für die schnelle Antwort, das hat geholfen.',
    'Wir sehen das gleiche Verhalten nach dem Update auf 3.5.',
  ],
  fr: [
    'Merci beaucoup, ça marche très bien maintenant.',
    'Cordialement',
    'Je pense que c’est lié au « rebalance » du groupe…',
  ],
  es: ['Muchas gracias por la explicación.', 'Saludos cordiales', '¿Alguien más ha visto este problema?'],
  ru: ['Спасибо за помощь.', 'С уважением', 'У нас такая же проблема после обновления брокеров.'],
  zh: ['谢谢你的帮助。', '我们在生产环境中遇到了这个问题。', '此致敬礼'],
  pl: ['Dziękuję za szybką odpowiedź.', 'Pozdrawiam serdecznie', 'Czy ktoś widział ten błąd?'],
};
const NATIVE_SUBJECTS = {
  de: 'Frage zur Konfiguration',
  fr: 'Problème avec',
  es: 'Pregunta sobre',
  ru: 'Вопрос про',
  zh: '关于问题',
  pl: 'Pytanie o',
};

function nativeSubject(random, author, subject) {
  const prefix = NATIVE_SUBJECTS[author.lang];
  return prefix ? `${prefix} ${subject.replace(/^Re: /, '')}` : subject;
}

function signed(random, from, text, mailer) {
  if (from.bot || mailer === 'git-send-email') return text;
  const native = NATIVE[from.lang];
  const closing =
    native && (from.charset !== 'UTF-8' || random.chance(0.3))
      ? `${random.pick(native)}\n`
      : `${random.pick(['Thanks', 'Best', 'Regards', 'Cheers', 'Best regards', 'Thanks,'])}\n`;
  const signature = random.chance(0.2)
    ? `\n-- \n${from.name}\n${random.pick(['Senior Software Engineer', 'Committer, Apache Kafka', 'Staff Engineer', 'PMC member'])}\n`
    : '';
  return `${text}\n${closing}${from.first}\n${signature}`;
}

const WORDS =
  'the of and to a in is that for it as with was on be by this are not or have from but at which an they we you all can has more will one would there their if about so been when what out also into some could them other than then only its these may like any time how our use because new first two see way such even most where much did these after should well just back through being however still over think does need make sure since both change case test fix issue problem patch behaviour config value default option support release version upgrade client server broker consumer producer partition offset topic leader replica controller metadata log segment request response thread lock timeout retry cache buffer queue batch record metric api protocol quorum election fetch commit group rebalance transaction idempotent stream state store task connector worker plugin schema serializer network socket memory disk latency throughput performance benchmark regression failure error exception warning debug trace build compile jdk java scala gradle ci flaky unit integration system kernel driver module device interrupt page allocator scheduler mutex spinlock'.split(
    ' ',
  );
const IDENTS = [
  'port',
  'dev',
  'priv',
  'chip',
  'reg',
  'val',
  'err',
  'skb',
  'queue',
  'entry',
  'config',
  'state',
  'offset',
  'record',
  'batch',
  'topic',
  'partition',
  'leader',
  'epoch',
  'node',
  'broker',
  'request',
  'response',
  'future',
  'result',
  'metrics',
  'timer',
  'lock',
  'buffer',
  'count',
  'size',
  'index',
  'key',
  'value',
  'header',
  'handler',
  'manager',
  'client',
  'log',
  'segment',
];
const TOPICS = [
  'consumer group rebalance takes minutes after upgrade',
  'exactly once semantics with transactional producer',
  'tiered storage metadata cleanup',
  'KRaft controller failover and metadata snapshots',
  'deprecating the old consumer configuration',
  'flaky integration tests on the CI builds',
  'log compaction lag under heavy write load',
  'improving the default producer batching',
  'Kafka Streams state store restoration time',
  'client quotas for the admin API',
  'dropping support for Java 8',
  'ZooKeeper migration path for large clusters',
  'share groups and queue semantics',
  'Connect worker rebalance protocol',
  'fetch from follower in multi-region clusters',
  'replica placement with rack awareness',
];
const QUESTION_SUBJECTS = [
  (topic) => `How to handle ${topic}?`,
  (topic) => `Question about ${topic}`,
  (topic) => `Help needed: ${topic}`,
  (topic) => `${titleCase(topic)} - expected behaviour?`,
  (topic) => `Issue with ${topic}`,
];
const GREETINGS = ['Hi all,', 'Hello,', 'Hi team,', 'Dear Kafka devs,', 'Hey folks,', 'Hi everyone,'];
const THANKS = ['Thanks in advance!', 'Any help is appreciated.', 'Thanks for any pointers.', 'Thank you.'];
const AGREEMENT = [
  '+1, thanks for driving this.',
  'LGTM.',
  'Makes sense to me.',
  'Thanks for the KIP!',
  'Agreed.',
  '+1 (non-binding)',
];
const SUBSYSTEMS = [
  'net: dsa: mv88e6xxx:',
  'mm:',
  'drm/i915:',
  'ext4:',
  'bpf:',
  'usb: dwc3:',
  'arm64: dts:',
  'iio: adc:',
  'net/mlx5e:',
  'selftests/bpf:',
  'btrfs:',
  'io_uring:',
];
const TREES = ['net-next', 'net', 'bpf-next', 'RFC'];
const VERBS = [
  'fix',
  'add',
  'remove',
  'avoid',
  'use',
  'rework',
  'simplify',
  'handle',
  'introduce',
  'drop',
  'refactor',
  'convert',
];

function topicPhrase(random) {
  return random.pick(TOPICS);
}

function patchTitle(random) {
  return `${random.pick(VERBS)} ${random.pick(IDENTS)}_${random.pick(IDENTS)} ${random.pick(['leak', 'race', 'handling', 'on error path', 'in probe', 'for large batches', 'when disabled', 'lookup', 'accounting', 'check'])}`;
}

function titleCase(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function sentence(random) {
  const length = random.int(5, 14);
  let out = '';
  for (let i = 0; i < length; i++) out += `${i ? ' ' : ''}${random.pick(WORDS)}`;
  return `${out.charAt(0).toUpperCase()}${out.slice(1)}${random.pick(['.', '.', '.', '?', '.', '!'])}`;
}

/** Paragraphs of sentences wrapped at 72 columns, each ending with a blank line. */
function prose(random, min, max) {
  const paragraphs = random.int(min, max);
  let out = '';
  for (let p = 0; p < paragraphs; p++) {
    const sentences = random.int(2, 4);
    let words = [];
    for (let s = 0; s < sentences; s++) words = words.concat(sentence(random).split(' '));
    out += `${wrap(words)}\n\n`;
  }
  return out;
}

function wrap(words) {
  const lines = [];
  let line = '';
  for (const word of words) {
    if (line && line.length + word.length + 1 > 72) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.join('\n');
}

function geometric(random, mean, max) {
  let n = 0;
  while (n < max && random.chance(mean / (mean + 1))) n++;
  return n;
}

function kipProposal(random, kip, title) {
  return `Hi all,\n\nI would like to start a discussion on KIP-${kip}: ${title}.\n\nhttps://cwiki.apache.org/confluence/display/KAFKA/KIP-${kip}\n\nMotivation:\n\n${prose(random, 1, 3)}Public interfaces:\n\n${Array.from({ length: random.int(2, 5) }, () => `- ${random.pick(IDENTS)}.${random.pick(IDENTS)}.${random.pick(['ms', 'bytes', 'enable', 'max', 'class'])}`).join('\n')}\n\nLooking forward to your feedback.\n`;
}

function releaseCandidate(random, version) {
  return `Release notes for the ${version} release:\nhttps://dist.apache.org/repos/dist/dev/kafka/${version}-rc0/RELEASE_NOTES.html\n\nKafka's KEYS file containing PGP keys we use to sign the release:\nhttps://kafka.apache.org/KEYS\n\n* Release artifacts to be voted upon (source and binary):\nhttps://dist.apache.org/repos/dist/dev/kafka/${version}-rc0/\n\n* Tag to be voted upon (off ${version.slice(0, 3)} branch) is the ${version} tag:\nhttps://github.com/apache/kafka/releases/tag/${version}-rc0\n\n* Successful Jenkins builds for the ${version.slice(0, 3)} branch:\nUnit/integration tests: https://ci-builds.apache.org/job/Kafka/job/kafka/job/${version.slice(0, 3)}/${random.int(100, 200)}/\n`;
}

function changelog(random, version) {
  let out = '';
  for (let v = version; v > 1; v--)
    out += `Changes in v${v}:\n${Array.from({ length: random.int(1, 4) }, () => `- ${patchTitle(random)}`).join('\n')}\n\n`;
  return out;
}

function stackTrace(random) {
  const lines = [
    `org.apache.kafka.common.errors.${random.pick(['TimeoutException', 'NotLeaderOrFollowerException', 'RecordTooLargeException', 'SerializationException'])}: ${sentence(random)}`,
  ];
  const depth = random.int(3, 8);
  for (let i = 0; i < depth; i++)
    lines.push(
      `\tat org.apache.kafka.${random.pick(['clients', 'streams', 'common'])}.${random.pick(IDENTS)}.${titleCase(random.pick(IDENTS))}${titleCase(random.pick(IDENTS))}.${random.pick(IDENTS)}(${titleCase(random.pick(IDENTS))}.java:${random.int(40, 1500)})`,
    );
  return `\n${lines.join('\n')}\n`;
}

function jiraFields(key, title, fields, prefix) {
  const rows = [
    ['Summary', title],
    ['Key', key],
    ['URL', `https://issues.apache.org/jira/browse/${key}`],
    ['Project', LIST.name],
    ['Issue Type', fields.type],
    ['Components', fields.component],
    ['Affects Versions', fields.affects],
    ['Reporter', fields.reporter.name],
    ...(fields.assignee ? [['Assignee', fields.assignee.name]] : []),
    ['Priority', fields.priority],
  ];
  if (prefix)
    return `${prefix}${title}\n${prefix}${'-'.repeat(Math.min(title.length, 70))}\n${prefix.trimEnd()}\n${rows
      .slice(1)
      .map(([name, value]) => `${prefix}${name.padStart(20)}: ${value}`)
      .join('\n')}\n${prefix.trimEnd()}`;
  return `${rows.map(([name, value]) => `${name.padStart(20)}: ${value}`).join('\n')}\n`;
}

function patchBody(random, author, files, world) {
  const change = diff(random, files, 'c');
  const fixes = random.chance(0.25)
    ? `Fixes: ${random.hex(12)} ("${random.pick(SUBSYSTEMS)} ${patchTitle(random)}")\n`
    : '';
  const reported = random.chance(0.15)
    ? `Reported-by: ${world.people[random.int(0, 50)].name} <${world.people[random.int(0, 50)].address}>\n`
    : '';
  return `${prose(random, 1, 2)}${fixes}${reported}Signed-off-by: ${author.name} <${author.address}>\n---\n${change.stat}\n${change.text}-- \n2.${random.int(34, 43)}.${random.int(0, 3)}\n`;
}

/** A unified diff touching `files` files, with its diffstat. */
function diff(random, files, language) {
  let text = '';
  const stats = [];
  for (let f = 0; f < files; f++) {
    const path =
      language === 'c'
        ? `${random.pick(['drivers/net/dsa', 'mm', 'fs/ext4', 'kernel/bpf', 'drivers/usb/dwc3', 'net/core', 'io_uring'])}/${random.pick(IDENTS)}.c`
        : javaPath(random);
    const hunks = random.int(1, 2);
    let body = '';
    let added = 0;
    let removed = 0;
    for (let h = 0; h < hunks; h++) {
      const piece = hunk(random, language, random.int(3, 8));
      body += piece.text;
      added += piece.added;
      removed += piece.removed;
    }
    text += `diff --git a/${path} b/${path}\nindex ${random.hex(7)}..${random.hex(7)} 100644\n--- a/${path}\n+++ b/${path}\n${body}`;
    stats.push([path, added, removed]);
  }
  const width = Math.max(...stats.map(([path]) => path.length));
  const stat = `${stats.map(([path, added, removed]) => ` ${path.padEnd(width)} | ${String(added + removed).padStart(3)} ${'+'.repeat(added)}${'-'.repeat(removed)}`).join('\n')}\n ${stats.length} file${stats.length > 1 ? 's' : ''} changed, ${stats.reduce((n, s) => n + s[1], 0)} insertions(+), ${stats.reduce((n, s) => n + s[2], 0)} deletions(-)\n`;
  return { text, stat };
}

function hunk(random, language, lines) {
  const start = random.int(20, 2000);
  let text = '';
  let added = 0;
  let removed = 0;
  let before = 0;
  let after = 0;
  for (let i = 0; i < lines; i++) {
    const code = codeLine(random, language);
    const roll = random.next();
    if (roll < 0.2) {
      text += `-${code}\n`;
      removed++;
      before++;
    } else if (roll < 0.45) {
      text += `+${code}\n`;
      added++;
      after++;
    } else {
      text += ` ${code}\n`;
      before++;
      after++;
    }
  }
  const context =
    language === 'c'
      ? `static int ${random.pick(IDENTS)}_${random.pick(IDENTS)}(struct ${random.pick(IDENTS)} *${random.pick(IDENTS)})`
      : `public void ${random.pick(IDENTS)}${titleCase(random.pick(IDENTS))}() {`;
  return { text: `@@ -${start},${before} +${start},${after} @@ ${context}\n${text}`, added, removed };
}

function codeLine(random, language) {
  const a = random.pick(IDENTS);
  const b = random.pick(IDENTS);
  const c = random.pick(IDENTS);
  if (language === 'c') {
    return random.pick([
      `\t${a} = ${b}_${c}(${a}, ${b});`,
      `\tif (!${a})`,
      '\t\treturn -EINVAL;',
      `\tstruct ${a} *${b} = ${c}->${a};`,
      '\t}',
      `\t\tgoto err_${a};`,
      `\tspin_lock(&${a}->lock);`,
      `\tdev_err(${a}->dev, "failed to ${b} ${c}: %d\\n", err);`,
      '',
    ]);
  }
  return random.pick([
    `        final ${titleCase(a)} ${b} = ${c}.${a}();`,
    `        if (${a} == null) {`,
    `            throw new IllegalStateException("${b} ${c} is not set");`,
    '        }',
    `        ${a}.${b}(${c});`,
    `        assertEquals(${random.int(0, 100)}, ${a}.${b}().size());`,
    '    @Override',
    `    public ${titleCase(a)} ${b}() {`,
    `        return ${c};`,
    '',
  ]);
}

function javaPath(random) {
  return `${random.pick(['clients', 'streams', 'core', 'connect/runtime', 'metadata', 'raft'])}/src/${random.pick(['main', 'test'])}/java/org/apache/kafka/${random.pick(IDENTS)}/${titleCase(random.pick(IDENTS))}${titleCase(random.pick(IDENTS))}.java`;
}

function randomDiffstat(random, files) {
  return Array.from(
    { length: files },
    () =>
      ` ${random.pick(['drivers/net/dsa', 'mm', 'fs/ext4', 'kernel/bpf'])}/${random.pick(IDENTS)}.c | ${random.int(1, 60)} ${'+'.repeat(random.int(1, 12))}${'-'.repeat(random.int(0, 8))}`,
  ).join('\n');
}

function compactDate(date) {
  return date.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function base62(random, length) {
  let out = '';
  for (let i = 0; i < length; i++) out += BASE62[Math.floor(random.next() * 62)];
  return out;
}
