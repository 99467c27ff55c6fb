import { rulesSystemOf } from '../classify/classify-staged.js';
import { existsSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { InputError } from '../errors.js';
import { describeHolder, heldByProcess } from '../fetch/fetch-lists.js';
import { currentLockOwner, lockIsAbandoned } from '../locks/lock-owner.js';
import type { LockedStage } from '../store/lock-records.js';
import { restateSyntheticIssues } from '../project/issue-state.js';
import type { ListRecord } from '../store/list-records.js';
import type { RepoRecord } from '../store/repo-records.js';
import type { Store } from '../store/store.js';
import { BACKENDS, baseUrlProblem } from '../systems/backend-names.js';
import { requireSystem, type SystemDefinition, type Systems } from '../systems/load-systems.js';
import { requireRepoUrl } from './repo-url.js';
import { listsOfArchive, selectList } from './select-lists.js';

export interface AddListInput {
  system: string;
  /** List address, public-inbox name, or local path, as the system names lists. */
  name: string;
  address?: string;
  listId?: string;
  repoUrl?: string;
  baseUrl?: string;
  rules?: string;
}

export interface AddListResult {
  action: 'added' | 'updated' | 'unchanged';
  list: ListRecord;
  repo?: RepoRecord;
  /** The list had another repository: its stored mail moved to this one, to be projected again. */
  moved?: { fromRepoUrl: string; messages: number; syntheticIssues: number };
  /** The list had another rules system: its projection was taken back, to be derived again. */
  rulesChanged?: { from: string; syntheticIssues: number };
}

const ADDRESS = /^[A-Za-z0-9][A-Za-z0-9._%+-]*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;
const INBOX = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;
/** RFC 3977's newsgroup name: printable characters without spaces, dots between the parts (gmane.comp.version-control.git). */
const NEWSGROUP = /^[A-Za-z0-9+_-]+(\.[A-Za-z0-9+_-]+)*$/;
/** A group's name on groups.io, a subgroup's with its parent's: `beagleboard`, `cloudfoundry+cf-dev`. */
const GROUP = /^[A-Za-z0-9][A-Za-z0-9._+-]*$/;

export function isListAddress(text: string): boolean {
  return ADDRESS.test(text);
}

/** Dev@Kafka.Apache.org → dev.kafka.apache.org, the List-Id Apache and Mailman give such a list. */
export function listIdFromAddress(address: string): string {
  return address.toLowerCase().replace('@', '.');
}

/** Checks the input against the system's way of naming lists and registers it, idempotently. */
export async function addList(store: Store, systems: Systems, input: AddListInput): Promise<AddListResult> {
  const system = requireSystem(systems, input.system);
  const locator = BACKENDS[system.backend].locator;
  let name = input.name.trim();
  let address = input.address?.trim().toLowerCase();
  switch (locator) {
    case 'address':
      if (!ADDRESS.test(name)) {
        throw new InputError(
          `"${input.name}" is not a mailing-list address.`,
          `The ${system.name} system names lists by address, like dev@kafka.apache.org.`,
        );
      }
      name = name.toLowerCase();
      address = name;
      break;
    case 'inbox':
      if (!INBOX.test(name)) {
        throw new InputError(
          `"${input.name}" is not a public-inbox name.`,
          'Give the name as it appears in the archive URL (lore.kernel.org/NAME), e.g. netdev; add --address for its e-mail address.',
        );
      }
      break;
    case 'newsgroup':
      if (!NEWSGROUP.test(name)) {
        throw new InputError(
          `"${input.name}" is not a newsgroup name.`,
          'Give the group as the news server names it, e.g. gmane.comp.version-control.git, with --base-url nntp://HOST.',
        );
      }
      break;
    case 'group':
      if (!GROUP.test(name)) {
        throw new InputError(
          `"${input.name}" is not a groups.io group name.`,
          "Give the name as it appears in the group's URL (https://groups.io/g/NAME), e.g. beagleboard or cloudfoundry+cf-dev.",
        );
      }
      break;
    case 'path':
      if (!existsSync(resolve(name)))
        throw new InputError(
          `${resolve(name)} does not exist.`,
          `The ${system.name} system reads a local file or folder; give its path.`,
        );
      refuseTheStore(store, name);
      name = await localListName(store, system.name, name);
      break;
  }
  if (address !== undefined && !ADDRESS.test(address)) {
    throw new InputError(`"${input.address}" is not a mailing-list address.`, 'Give one like dev@kafka.apache.org.');
  }
  if (input.rules !== undefined) requireSystem(systems, input.rules);
  const baseUrl = input.baseUrl === undefined ? undefined : requireListBaseUrl(system, input.baseUrl);
  const repoInput = input.repoUrl === undefined ? undefined : requireRepoUrl(input.repoUrl);
  const listId = input.listId?.trim().replace(/^<|>$/g, '').toLowerCase();

  return store.transaction(async (tx) => {
    const repo = repoInput && (await tx.repos.ensure(repoInput)).repo;
    // Mail drained before the repo was known may already mention it.
    if (repo) await tx.repos.resolveSignaled(repo);
    const before = await tx.lists.byName(system.name, name);
    const result = await tx.lists.register({
      system: system.name,
      name,
      listAddress: address,
      listId: listId ?? (address && !input.address ? listIdFromAddress(address) : undefined),
      rulesSystem: input.rules,
      baseUrl,
      repoUrl: repo?.url,
      repoId: repo?.id,
    });
    if (repo && before?.repoId != null && before.repoId !== repo.id) {
      const moved = await tx.lists.moveMailToRepo(before.id, before.repoId, repo.id);
      return { ...result, repo, moved: { fromRepoUrl: before.repoUrl ?? `repo ${before.repoId}`, ...moved } };
    }
    const rulesBefore = before && rulesSystemOf(systems, before);
    if (before?.repoId != null && input.rules !== undefined && rulesBefore !== rulesSystemOf(systems, result.list)) {
      // Another rules system may drain and project otherwise (its repo URL template, its policy, its trackers):
      // drain and project derive the list's mail again.
      await tx.drain.drainAgain(before.id);
      const syntheticIssues = await tx.lists.resetProjection(before.id, before.repoId);
      return { ...result, repo, rulesChanged: { from: rulesBefore!, syntheticIssues } };
    }
    return { ...result, repo };
  });
}

/**
 * A base URL given for the system's lists, refused (exit 2) when the
 * system's backend does not read it (baseUrlProblem); without its trailing
 * slashes.
 */
export function requireListBaseUrl(system: SystemDefinition, input: string): string {
  const url = input.trim();
  const backend = BACKENDS[system.backend];
  const problem = baseUrlProblem(system, url);
  if (problem)
    throw new InputError(
      problem,
      'example' in backend
        ? `Give one like ${backend.example}.`
        : 'Leave --base-url out: the list is the file or folder its name gives.',
    );
  if (backend.locator === 'newsgroup' && !/^nntps?:\/\/[^\s@/]+\/?$/i.test(url))
    throw new InputError(
      `"${input}" names more than a news server.`,
      "Give the news server as nntp://HOST[:PORT] or nntps://HOST[:PORT] (no user name: the config file's mail_accounts, or LISTMINER_NNTP_USER and LISTMINER_NNTP_PASSWORD, give those).",
    );
  if (/^(imap|pop3)s?:\/\/[^/@]*:[^/@]*@/i.test(url))
    throw new InputError(
      'A mailbox URL must not hold a password: it is stored and shown.',
      "Put the password in the config file's mail_accounts or in LISTMINER_MAIL_PASSWORD.",
    );
  return url.replace(/\/+$/, '');
}

/**
 * The database file named as a list's archive (`sync listminer.db`) would
 * have its own pages read as mail, into itself: refused, whatever path
 * reaches it (a link, a relative path).
 */
function refuseTheStore(store: Store, path: string): void {
  if (store.file === undefined || !sameFile(store.file, path)) return;
  throw new InputError(
    `${resolve(path)} is the database itself, not a mail archive.`,
    'Give the path of an mbox file, a folder of them, a .mbox.gz or a Maildir; --db names the database.',
  );
}

function sameFile(a: string, b: string): boolean {
  const [one, other] = [statSync(a, { throwIfNoEntry: false }), statSync(b, { throwIfNoEntry: false })];
  return one !== undefined && other !== undefined && one.dev === other.dev && one.ino === other.ino;
}

/**
 * The name of a local archive's list: its absolute path as given, unless a
 * list of the system holds that archive already under another path (through
 * a symbolic link, or a linked folder): then that list's, so a second way to
 * reach an archive never makes a second list holding its mail again.
 */
async function localListName(store: Store, system: string, path: string): Promise<string> {
  const resolved = resolve(path);
  const same = await listsOfArchive(store, system, resolved);
  return same.find((list) => list.name === resolved)?.name ?? same[0]?.name ?? resolved;
}

/** The command that gives a list its repository, so its waiting mail drains. */
export function giveRepoCommand(list: { name: string; system: string; repoUrl?: string | null }): string {
  return `listminer lists add ${shellWord(list.name)} --system ${list.system} --repo ${list.repoUrl ? shellWord(list.repoUrl) : 'URL'}`;
}

function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A local archive (an mbox file or folder, a .mbox.gz, or a Maildir): what `sync PATH` registers. */
export interface AddLocalListInput {
  path: string;
  rules?: string;
  repoUrl?: string;
}

/** Registers a local archive as a list of the mbox or maildir system, whichever its shape is. */
export async function addLocalList(store: Store, systems: Systems, input: AddLocalListInput): Promise<AddListResult> {
  const path = resolve(input.path);
  if (!existsSync(path))
    throw new InputError(
      `${input.path} does not exist.`,
      'Give the path of an mbox file, a folder of them, a .mbox.gz or a Maildir.',
    );
  const isMaildir = statSync(path).isDirectory() && ['cur', 'new'].some((folder) => existsSync(join(path, folder)));
  return addList(store, systems, {
    system: isMaildir ? 'maildir' : 'mbox',
    name: path,
    rules: input.rules,
    repoUrl: input.repoUrl,
  });
}

/**
 * Removes a list; one that holds mail is only removed when forced. Its mail
 * goes with it, and so do the synthetic issues only its mail held; one that
 * other lists' mail still holds is worked out again from that mail. Issues
 * imported from GitHub stay.
 */
export async function removeList(
  store: Store,
  name: string,
  options: { system?: string; force?: boolean },
): Promise<{ list: ListRecord; messages: number }> {
  const list = await selectList(store, name, options.system);
  const messages = (await store.lists.counts()).get(list.id)?.staged ?? 0;
  if (messages > 0 && !options.force) {
    throw new InputError(
      `The list ${list.name} holds ${messages} messages.`,
      'Add --force to remove it with all its mail.',
    );
  }
  await store.transaction(async (tx) => {
    await refuseHeldList(tx, list);
    const issueIds = await tx.project.issuesLinkedToList(list.id);
    await tx.project.lockIssues(issueIds);
    await tx.lists.remove(list.id);
    await restateSyntheticIssues(tx, issueIds);
  });
  return { list, messages };
}

/** The past participle of each locked stage, for the sentence that says why a list cannot go. */
const BEING: Record<LockedStage, string> = { fetch: 'fetched', drain: 'drained', project: 'projected' };

/**
 * A list whose stage lock a live process holds (a fetch, drain or sync of
 * another terminal) is not removed: that process would go on writing mail of
 * a list that is gone. An abandoned lock does not count (lockIsAbandoned).
 */
async function refuseHeldList(store: Store, list: ListRecord): Promise<void> {
  const owner = currentLockOwner();
  const lock = (await store.locks.held()).find((held) => held.listId === list.id && !lockIsAbandoned(held, owner));
  if (!lock) return;
  throw new InputError(
    `The list ${list.name} is being ${BEING[lock.stage]}: ${describeHolder(heldByProcess(list, lock))}.`,
    'Run `lists rm` again when that process has finished, or stop it first.',
  );
}

export type ListState = 'never fetched' | 'fetching' | 'complete' | 'incomplete' | 'failing' | 'sidelined';

export function listState(list: ListRecord): ListState {
  if (list.sidelinedAt) return 'sidelined';
  if (list.lockedAt) return 'fetching';
  if (list.failedAttempts > 0) return 'failing';
  if (!list.lastRunAt) return 'never fetched';
  return list.scanComplete ? 'complete' : 'incomplete';
}
