// A large store for `export` to read, and the export measured on it.
//
//   node bench/export-store.js build DB [MESSAGES]   fill DB with synthetic research tables (default 1,000,000 messages)
//   node bench/export-store.js measure DB            export it in each format, with and without bodies: time, rows, bytes, peak RSS
//   node bench/export-store.js drop DB               remove it (the SQLite file, or the PostgreSQL database)
//
// DB is a SQLite path or a postgres:// URL; a PostgreSQL database is created
// when missing. The rows are made by SQL inside the engine (a recursive CTE
// on SQLite, generate_series on PostgreSQL), not by syncing mail, so a
// million messages take minutes. Needs `npm run build` first, and GNU time
// (/usr/bin/time, Debian's package `time`) for measure.
//
// The shape: four lists (two Apache lists with Jira and GitHub mirror mail,
// two kernel lists with patch series and reviews), 20,000 people, threads of
// 1, 2, 4 and 9 messages, bodies of 1,500 to 2,500 characters, synthetic
// issues and pull requests linked to their tracker mail, one patch series per
// kernel patch thread, and one message in 997 without a date.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const dist = new URL('../dist/', import.meta.url);
const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url));
const CHUNK = 100_000;
const PEOPLE = 20_000;
const LISTS = [
  { id: 1, system: 'apache_ponymail', name: 'dev@kafka.apache.org', repo: 1 },
  { id: 2, system: 'apache_ponymail', name: 'dev@flink.apache.org', repo: 2 },
  { id: 3, system: 'public_inbox', name: 'netdev', repo: 3 },
  { id: 4, system: 'public_inbox', name: 'linux-mm', repo: 3 },
];
const REPOS = [
  { id: 1, url: 'https://github.com/apache/kafka', owner: 'apache', name: 'kafka' },
  { id: 2, url: 'https://github.com/apache/flink', owner: 'apache', name: 'flink' },
  { id: 3, url: 'https://github.com/torvalds/linux', owner: 'torvalds', name: 'linux' },
];
const FIRST_SENT = Date.UTC(2015, 0, 1) / 1000;

const [command, db, count] = process.argv.slice(2);
if (!db || !['build', 'measure', 'drop'].includes(command)) {
  console.error('usage: node bench/export-store.js build|measure|drop DB [MESSAGES]');
  process.exit(2);
}
const isPostgres = /^postgres(ql)?:\/\//.test(db);

if (command === 'build') await build(Number(count ?? 1_000_000));
else if (command === 'measure') measure();
else await drop();

/** SQL text that differs between the engines; everything else is written once. */
function dialect(postgres) {
  return {
    // Rows i = from..to, as a CTE prefix (SQLite) or a FROM item (PostgreSQL).
    prefix: (from, to) =>
      postgres ? '' : `WITH RECURSIVE seq(i) AS (SELECT ${from} UNION ALL SELECT i + 1 FROM seq WHERE i < ${to}) `,
    seq: (from, to) => (postgres ? `generate_series(${from}::bigint, ${to}::bigint) AS seq(i)` : 'seq'),
    time: (seconds) =>
      postgres ? `to_timestamp(${seconds})` : `strftime('%Y-%m-%dT%H:%M:%fZ', ${seconds}, 'unixepoch')`,
    json: (text) => (postgres ? `CAST(${text} AS JSONB)` : text),
    bool: (condition) => (postgres ? `(${condition})` : `(CASE WHEN ${condition} THEN 1 ELSE 0 END)`),
    text: (value) => `CAST(${value} AS TEXT)`,
  };
}

/**
 * Message i of the store: list l = (i - 1) % 4 + 1 and k its place in the
 * list, so the list's k-th message has id 4k + l. Each run of 16 places of a
 * list holds four threads (places 0, 1-2, 3-6, 7-15); `t` picks a thread's
 * kind, `depth` is the place in the thread (0: the root).
 */
function messages(sql, from, to) {
  const base = `SELECT i, (i - 1) % 4 + 1 AS l, (i - 1) / 4 AS k FROM ${sql.seq(from, to)}`;
  const places = `SELECT i, l, k, k % 16 AS pos,
      CASE WHEN k % 16 < 1 THEN 0 WHEN k % 16 < 3 THEN 1 WHEN k % 16 < 7 THEN 3 ELSE 7 END AS root_pos FROM (${base}) a`;
  const threads = `SELECT i, l, k, k - pos + root_pos AS root_k, (k - pos + root_pos) * 4 + l AS root_id, pos - root_pos AS depth,
      ((k / 16) * 4 + CASE root_pos WHEN 0 THEN 0 WHEN 1 THEN 1 WHEN 3 THEN 2 ELSE 3 END) % 10 AS t FROM (${places}) b`;
  return `SELECT i, l, k, root_k, root_id, depth, t,
      CASE WHEN l = 4 THEN 3 ELSE l END AS repo_id,
      CASE WHEN l <= 2 THEN
        CASE WHEN t < 4 THEN 'issue_event' WHEN t < 6 THEN 'github_mirror' WHEN t < 8 THEN 'discuss' WHEN t = 8 THEN 'vote' ELSE 'commit_notify' END
      ELSE
        CASE WHEN t < 5 THEN (CASE WHEN depth = 0 OR depth % 3 = 1 THEN 'patch_submission' ELSE 'review' END) WHEN t = 8 THEN 'commit_notify' ELSE 'discuss' END
      END AS msg_class,
      1 + (i * 7919) % ${PEOPLE} AS person,
      CASE WHEN l = 1 THEN 'KAFKA' ELSE 'FLINK' END AS project
    FROM (${threads}) c`;
}

/** Words to cut bodies from: varied enough that Parquet cannot fold them into a few bytes. */
function bodyText() {
  const words = [
    'the',
    'consumer',
    'offset',
    'commit',
    'broker',
    'patch',
    'review',
    'series',
    'netdev',
    'memory',
    'page',
    'fault',
    'rebase',
    'merge',
    'lock',
    'queue',
    'driver',
    'test',
    'flaky',
    'timeout',
    'release',
    'vote',
    'KIP',
    'change',
    'should',
    'could',
    'would',
    'because',
    'however',
    'thanks',
  ];
  let seed = 42;
  let text = '';
  while (text.length < 5_000) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    text += words[seed % words.length] + (seed % 11 === 0 ? '.\n' : ' ');
  }
  return text;
}

async function build(total) {
  if (!isPostgres && existsSync(db)) throw new Error(`${db} exists: drop it first`);
  if (isPostgres) await createDatabase();
  const { openStore } = await import(new URL('core/store/open-store.js', dist));
  const store = await openStore(db);
  const sql = dialect(isPostgres);
  const now = `'2024-06-01T00:00:00.000Z'`;
  const began = Date.now();
  const step = async (title, statement) => {
    const t0 = Date.now();
    await store.db.exec(statement);
    console.log(`${title.padEnd(40)} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };
  try {
    for (const repo of REPOS) {
      await store.db.run('INSERT INTO repos (id, url, host, owner, name, created_at) VALUES (?, ?, ?, ?, ?, ?)', [
        repo.id,
        repo.url,
        'github.com',
        repo.owner,
        repo.name,
        '2024-06-01T00:00:00.000Z',
      ]);
    }
    for (const list of LISTS) {
      const repo = REPOS.find((r) => r.id === list.repo);
      await store.db.run(
        'INSERT INTO lists (id, system, name, list_address, repo_url, repo_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
        [
          list.id,
          list.system,
          list.name,
          list.name.includes('@') ? list.name : `${list.name}@vger.kernel.org`,
          repo.url,
          repo.id,
          '2024-06-01T00:00:00.000Z',
        ],
      );
    }
    await step(
      `contributors (${PEOPLE})`,
      `${sql.prefix(1, PEOPLE)}INSERT INTO contributors (id, name, email, github_login, source, created_at)
      SELECT i, 'Person ' || ${sql.text('i')}, 'person' || ${sql.text('i')} || '@example.org',
        CASE WHEN i % 3 = 0 THEN 'gh-person' || ${sql.text('i')} END, 'email', ${now} FROM ${sql.seq(1, PEOPLE)}`,
    );

    const body = bodyText().replaceAll("'", "''");
    for (let from = 1; from <= total; from += CHUNK) {
      const to = Math.min(total, from + CHUNK - 1);
      const m = messages(sql, from, to);
      const sent = `CASE WHEN i % 997 = 0 THEN NULL ELSE ${sql.time(`${FIRST_SENT} + i * 120`)} END`;
      const t0 = Date.now();
      await store.db
        .exec(`${sql.prefix(from, to)}INSERT INTO patch_series (id, list_id, series_key, title, author_address)
        SELECT i, l, 'person' || ${sql.text('person')} || '@example.org / fix ' || ${sql.text('root_k')}, 'net: fix the thing ' || ${sql.text('root_k')},
          'person' || ${sql.text('person')} || '@example.org'
        FROM (${m}) d WHERE l > 2 AND t < 5 AND depth = 0`);
      await store.db
        .exec(`${sql.prefix(from, to)}INSERT INTO email_messages (id, list_id, message_key, message_id, repo_id, sender_id, from_name, from_address, is_bot,
          subject, sent_at, sent_at_offset, in_reply_to, references_ids, thread_root_key, thread_root_id, msg_class, class_source, captures,
          has_patch, patch_version, patch_index, patch_total, is_rfc, is_resend, trailers, size, body_stored, signaled_repo_url, signaled_repo_id,
          projected_kind, drained_at, patch_series_id)
        SELECT i, l, 'bench-' || ${sql.text('i')} || '@example.org', 'bench-' || ${sql.text('i')} || '@example.org', repo_id,
          CASE WHEN bot THEN NULL ELSE person END,
          CASE WHEN bot THEN bot_name ELSE 'Person ' || ${sql.text('person')} END,
          CASE WHEN bot THEN bot_address ELSE 'person' || ${sql.text('person')} || '@example.org' END,
          ${sql.bool('bot')},
          CASE WHEN depth > 0 THEN 'Re: ' ELSE '' END || CASE msg_class
            WHEN 'issue_event' THEN '[jira] [' || CASE WHEN depth = 0 THEN 'Created' ELSE 'Commented' END || '] (' || project || '-' || ${sql.text('root_k')} || ') Flaky test number ' || ${sql.text('root_k')}
            WHEN 'github_mirror' THEN '[GitHub] [' || lower(project) || '] person opened pull request #' || ${sql.text('root_k')} || ': fix the consumer'
            WHEN 'patch_submission' THEN '[PATCH v' || ${sql.text('1 + root_k % 3')} || ' ' || ${sql.text('depth')} || '/8] net: fix the thing ' || ${sql.text('root_k')}
            WHEN 'review' THEN '[PATCH v' || ${sql.text('1 + root_k % 3')} || '] net: fix the thing ' || ${sql.text('root_k')}
            WHEN 'vote' THEN '[VOTE] Release ' || ${sql.text('root_k')}
            WHEN 'commit_notify' THEN '[git commit] merged change ' || ${sql.text('root_k')}
            ELSE '[DISCUSS] How should we handle case ' || ${sql.text('root_k')} || '?' END,
          ${sent}, CASE i % 3 WHEN 0 THEN 0 WHEN 1 THEN 60 ELSE -420 END,
          CASE WHEN depth > 0 THEN 'bench-' || ${sql.text('i - 4')} || '@example.org' END,
          ${sql.json(`CASE WHEN depth > 0 THEN '["bench-' || ${sql.text('root_id')} || '@example.org"]' ELSE '[]' END`)},
          'bench-' || ${sql.text('root_id')} || '@example.org', root_id, msg_class, msg_class || ':subject',
          ${sql.json(`CASE msg_class
            WHEN 'issue_event' THEN '{"action":"' || CASE WHEN depth = 0 THEN 'created' ELSE 'commented' END || '","external_key":"' || project || '-' || ${sql.text('root_k')} || '"}'
            WHEN 'github_mirror' THEN '{"action":"' || CASE WHEN depth = 0 THEN 'opened' ELSE 'commented' END || '","number":"' || ${sql.text('root_k')} || '","repo":"' || lower(project) || '"}'
            WHEN 'commit_notify' THEN '{"bot":"patchwork-bot"}' END`)},
          ${sql.bool(`msg_class = 'patch_submission'`)},
          CASE WHEN l > 2 AND t < 5 THEN 1 + root_k % 3 END, CASE WHEN msg_class = 'patch_submission' THEN depth END, CASE WHEN msg_class = 'patch_submission' THEN 8 END,
          ${sql.bool("msg_class = 'patch_submission' AND root_k % 20 = 0")}, ${sql.bool('1 = 0')},
          ${sql.json(`CASE msg_class
            WHEN 'review' THEN '[{"address":"person' || ${sql.text('person')} || '@example.org","kind":"Reviewed-by","name":"Person ' || ${sql.text('person')} || '"}]'
            WHEN 'patch_submission' THEN '[{"address":"person' || ${sql.text('person')} || '@example.org","kind":"Signed-off-by","name":"Person ' || ${sql.text('person')} || '"}]'
            ELSE '[]' END`)},
          2400 + (i * 17) % 1000, ${sql.bool('1 = 1')},
          CASE WHEN msg_class = 'github_mirror' THEN 'https://github.com/apache/' || lower(project) END, CASE WHEN msg_class = 'github_mirror' THEN repo_id END,
          CASE msg_class WHEN 'issue_event' THEN (CASE WHEN depth = 0 THEN 'created' ELSE 'inherited' END) WHEN 'github_mirror' THEN 'linked' ELSE 'none' END,
          ${now}, CASE WHEN l > 2 AND t < 5 THEN root_id END
        FROM (SELECT m.*, msg_class IN ('issue_event', 'github_mirror', 'commit_notify') AS bot,
                CASE msg_class WHEN 'issue_event' THEN 'ASF GitHub Bot (Jira)' WHEN 'github_mirror' THEN 'GitHub' ELSE 'patchwork-bot+netdevbpf' END AS bot_name,
                CASE msg_class WHEN 'issue_event' THEN 'jira@apache.org' WHEN 'github_mirror' THEN 'notifications@github.com' ELSE 'patchwork-bot+netdevbpf@kernel.org' END AS bot_address
              FROM (${m}) m) d`);
      await store.db.exec(`${sql.prefix(from, to)}INSERT INTO message_bodies (id, content_hash, body_text, created_at)
        SELECT i, 'bench-' || ${sql.text('i')}, 'Hello,\n\n' || substr(CAST('${body}' AS TEXT), CAST(1 + (i * 131) % 2500 AS INTEGER), CAST(1500 + (i * 17) % 1000 AS INTEGER)) || '\n-- \nmessage ' || ${sql.text('i')}, ${now}
        FROM ${sql.seq(from, to)}`);
      await store.db.exec(
        `${sql.prefix(from, to)}INSERT INTO email_message_bodies (email_message_id, body_id) SELECT i, i FROM ${sql.seq(from, to)}`,
      );
      console.log(
        `messages ${String(from).padStart(8)}..${String(to).padEnd(8)}             ${((Date.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
    await step(
      'issues',
      `INSERT INTO issues (id, repo_id, number, external_key, title, state, is_synthetic, comment_count, url, created_at, updated_at)
      SELECT -id, repo_id, NULL, CASE WHEN list_id = 1 THEN 'KAFKA-' ELSE 'FLINK-' END || ${sql.text('(id - list_id) / 4')}, subject, 'open', ${sql.bool('1 = 1')}, 0, NULL, sent_at, sent_at
      FROM email_messages WHERE msg_class = 'issue_event' AND id = thread_root_id`,
    );
    await step(
      'issue_email_messages',
      `INSERT INTO issue_email_messages (issue_id, email_message_id, role)
      SELECT -thread_root_id, id, CASE WHEN id = thread_root_id THEN 'event' ELSE 'comment' END FROM email_messages WHERE msg_class = 'issue_event'`,
    );
    await step(
      'pull_requests',
      `INSERT INTO pull_requests (id, repo_id, number, title, state, url, created_at)
      SELECT id, repo_id, (id - list_id) / 4, subject, 'open', signaled_repo_url || '/pull/' || ${sql.text('(id - list_id) / 4')}, sent_at
      FROM email_messages WHERE msg_class = 'github_mirror' AND id = thread_root_id`,
    );
    await step(
      'pull_request_email_messages',
      `INSERT INTO pull_request_email_messages (pull_request_id, email_message_id, role)
      SELECT thread_root_id, id, 'comment' FROM email_messages WHERE msg_class = 'github_mirror'`,
    );
    if (isPostgres) {
      // The rows came with their ids; later inserts by listminer would otherwise collide with them.
      for (const table of [
        'repos',
        'lists',
        'contributors',
        'email_messages',
        'message_bodies',
        'pull_requests',
        'patch_series',
      ]) {
        await store.db.exec(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), (SELECT MAX(id) FROM ${table}))`);
      }
    }
    await step('analyze', 'ANALYZE');
  } finally {
    await store.close();
  }
  console.log(`built ${total} messages in ${((Date.now() - began) / 1000).toFixed(0)} s`);
}

function measure() {
  if (!existsSync('/usr/bin/time')) throw new Error('measure needs GNU time at /usr/bin/time (apt-get install time)');
  const rows = [];
  for (const format of ['parquet', 'csv', 'jsonl']) {
    for (const withBodies of [false, true]) {
      const out = mkdtempSync(join(isPostgres ? tmpdir() : dirname(db), 'listminer-export-bench-'));
      const args = [
        '-v',
        process.execPath,
        bin,
        'export',
        '--db',
        db,
        '--format',
        format,
        '--out',
        out,
        '--json',
        ...(withBodies ? ['--with-bodies'] : []),
      ];
      const began = Date.now();
      const run = spawnSync('/usr/bin/time', args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const seconds = (Date.now() - began) / 1000;
      rmSync(out, { recursive: true, force: true });
      if (run.status !== 0) throw new Error(`export ${format} failed (${run.status}): ${run.stderr}`);
      const result = JSON.parse(run.stdout);
      const maxRss = Number(/Maximum resident set size \(kbytes\): (\d+)/.exec(run.stderr)[1]);
      const mail = result.files.find((f) => f.table === 'email_messages');
      rows.push({
        format,
        withBodies,
        seconds,
        messages: mail.rows,
        rows: result.rows,
        bytes: result.bytes,
        mailBytes: mail.bytes,
        maxRssMb: maxRss / 1024,
      });
      console.error(
        `${format}${withBodies ? ' --with-bodies' : ''}: ${seconds.toFixed(1)} s, ${Math.round(maxRss / 1024)} MB`,
      );
    }
  }
  const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
  console.log(
    `| format | bodies | time | email_messages rows | rows, all files | bytes, all files | email_messages bytes | peak RSS |`,
  );
  console.log(`|---|---|---|---|---|---|---|---|`);
  for (const r of rows) {
    console.log(
      `| ${r.format} | ${r.withBodies ? 'yes' : 'no'} | ${r.seconds.toFixed(0)} s | ${r.messages.toLocaleString('en-US')} | ${r.rows.toLocaleString('en-US')} | ${mb(r.bytes)} | ${mb(r.mailBytes)} | ${r.maxRssMb.toFixed(0)} MB |`,
    );
  }
}

/** Runs fn with a connection to the server's `postgres` database, and the name of the store's own. */
async function withAdmin(fn) {
  const { default: postgres } = await import('postgres');
  const url = new URL(db);
  const name = url.pathname.slice(1);
  url.pathname = '/postgres';
  const admin = postgres(url.toString(), { max: 1, onnotice: () => {} });
  try {
    return await fn(admin, name, `"${name.replaceAll('"', '""')}"`);
  } finally {
    await admin.end();
  }
}

async function createDatabase() {
  await withAdmin(async (admin, name, quoted) => {
    const [found] = await admin`SELECT 1 FROM pg_database WHERE datname = ${name}`;
    if (found) throw new Error(`database ${name} exists: drop it first`);
    await admin.unsafe(`CREATE DATABASE ${quoted}`);
  });
}

async function drop() {
  if (!isPostgres) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${db}${suffix}`, { force: true });
    return;
  }
  await withAdmin((admin, _name, quoted) => admin.unsafe(`DROP DATABASE IF EXISTS ${quoted} WITH (FORCE)`));
}
