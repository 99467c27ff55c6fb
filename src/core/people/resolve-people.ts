import { normalizeAddress } from '../classify/header-values.js';
import type { MergeRule } from '../store/people-records.js';
import type { Store } from '../store/store.js';
import { comparableName, isGenericName } from './generic-names.js';
import { noreplyLogin } from './noreply-login.js';
import { changePeople } from './people-lock.js';

/** Messages read for evidence per transaction. */
const MAIL_BATCH = 1000;

/** A negative answer from GitHub is asked again after this long. */
const RETRY_NEGATIVE_MS = 30 * 86_400_000;

/** GitHub's answer about an address: the user it belongs to, or null when GitHub knows none (or will not say). */
export type LoginLookup = (address: string) => Promise<{ login: string; githubId: number | null } | null>;

export interface ResolveOptions {
  /** Asks GitHub; undefined when there is no token, and the chain stops before it. */
  lookupLogin?: LoginLookup;
  /** Addresses with fewer messages are not asked about (config `people.github_min_messages`, default 3). */
  minMessages?: number;
  /** Told once when the chain stops before the GitHub API. */
  onNotice?: (sentence: string) => void;
  /** Ctrl-C or SIGTERM: the chain stops after the transaction it is in; the next run goes on from there. */
  signal?: AbortSignal;
}

export interface ResolveResult {
  messagesRead: number;
  namesRecorded: number;
  identitiesRecorded: number;
  merges: Array<{ id: number; rule: MergeRule; reason: string }>;
  githubAsked: number;
  /** Why the GitHub API was not asked, when it was not. */
  githubSkipped: string | null;
  /** A signal stopped the chain before its end. */
  interrupted: boolean;
}

/**
 * The resolution chain (docs/people.md), run by `people resolve` and at the
 * end of `sync`: identities the contributors rows carry (repos imports),
 * names and trailers of mail not read yet, noreply addresses, then GitHub for
 * senders with enough mail. Each step is incremental and idempotent: mail is
 * read once (people_progress), an evidence key never merges twice, and what
 * was merged by hand or undone is never merged again automatically.
 */
export async function resolvePeople(store: Store, options: ResolveOptions = {}): Promise<ResolveResult> {
  const result: ResolveResult = {
    messagesRead: 0,
    namesRecorded: 0,
    identitiesRecorded: 0,
    merges: [],
    githubAsked: 0,
    githubSkipped: null,
    interrupted: false,
  };
  const stopped = () => (result.interrupted ||= options.signal?.aborted ?? false);
  result.identitiesRecorded += await changePeople(store, (tx) => tx.people.recordRowIdentities());
  await readMailEvidence(store, result, stopped);
  if (stopped()) return result;
  await resolveNoreply(store, result);
  if (options.lookupLogin) await askGitHub(store, options.lookupLogin, options.minMessages ?? 3, result, stopped);
  else {
    result.githubSkipped = 'no GitHub token (GITHUB_TOKEN): senders were not looked up on GitHub';
    options.onNotice?.(result.githubSkipped);
  }
  if (stopped()) return result;
  await joinImportedLogins(store, result);
  await changePeople(store, (tx) => tx.people.repointAbsorbed());
  return result;
}

/** A row an import made (or gave) a login that a person already holds joins that person: a login is one GitHub user. */
async function joinImportedLogins(store: Store, result: ResolveResult): Promise<void> {
  for (const row of await store.people.rowsOfHeldLogins()) {
    await changePeople(store, async (tx) => {
      const reason = `imported GitHub user ${row.login} is person ${row.holderId}'s login`;
      const id = await tx.people.mergePeople(
        row.holderId,
        row.rowId,
        'github-import',
        reason,
        `github-import:${row.login}|${row.rowId}`,
      );
      if (id !== undefined) result.merges.push({ id, rule: 'github-import', reason });
    });
  }
}

/** Names seen with each address, and the trailer rule, over mail not read yet. */
async function readMailEvidence(store: Store, result: ResolveResult, stopped: () => boolean): Promise<void> {
  const listNames = await store.people.listNames();
  // Names with an address this run has recorded (or found recorded): an address sends most of its mail under one name.
  const seen = new Set<string>();
  for (;;) {
    const { done, names } = await changePeople(store, async (tx) => {
      const names = new Set<string>();
      const after = await tx.people.progress('mail');
      const mail = await tx.people.mailAfter(after, MAIL_BATCH);
      if (mail.length === 0) return { done: true, names };
      for (const message of mail) {
        if (message.isBot || message.senderId === null || !message.fromAddress) continue;
        // A merge re-points the mail of whom it absorbs, so a sender is always a person.
        const sender = message.senderId;
        const name = `${message.fromAddress}\n${message.fromName}`;
        if (message.fromName && !seen.has(name) && !names.has(name)) {
          names.add(name);
          if (await tx.people.addIdentity(sender, 'name', message.fromName, 'mail', message.fromAddress))
            result.namesRecorded++;
        }
        await applyTrailers(
          tx,
          message.id,
          sender,
          message.fromName,
          message.fromAddress,
          message.trailers,
          listNames,
          result,
        );
      }
      await tx.people.setProgress('mail', mail[mail.length - 1]!.id);
      result.messagesRead += mail.length;
      return { done: mail.length < MAIL_BATCH, names };
    });
    for (const name of names) seen.add(name);
    if (done || stopped()) return;
  }
}

/**
 * The one automatic merge rule on mail: a message from `Name <a>` that
 * carries a trailer `…-by: Name <b>` in the same, non-generic name says a
 * and b are one person (the sender signs or reviews as b). A name alone,
 * or a generic one, never merges.
 */
async function applyTrailers(
  store: Store,
  messageId: number,
  sender: number,
  fromName: string | null,
  fromAddress: string,
  trailers: unknown,
  listNames: readonly string[],
  result: ResolveResult,
): Promise<void> {
  if (!Array.isArray(trailers) || !fromName || isGenericName(fromName, listNames)) return;
  for (const trailer of trailers as Array<{ kind?: unknown; name?: unknown; address?: unknown }>) {
    if (typeof trailer?.address !== 'string' || typeof trailer.name !== 'string' || !trailer.address.includes('@'))
      continue;
    const address = normalizeAddress(trailer.address.trim());
    if (address === fromAddress || comparableName(trailer.name) !== comparableName(fromName)) continue;
    const pair = [fromAddress, address].sort();
    const evidence = `trailer:${pair[0]}|${pair[1]}`;
    if (await store.people.evidenceSeen([evidence, `split:${fromAddress}`, `split:${address}`])) continue;
    const other = await store.people.identityOf('email', address);
    if (!other) {
      await store.people.addIdentity(sender, 'email', address, 'trailer');
      await store.people.addIdentity(sender, 'name', trailer.name, 'trailer', address);
      result.identitiesRecorded++;
      continue;
    }
    if (other.personId === sender) continue;
    const [kept, merged] = await store.people.keptFirst(other.personId, sender);
    const reason = `message ${messageId} from ${fromName} <${fromAddress}> carries ${String(trailer.kind)}: ${trailer.name} <${address}>`;
    const id = await store.people.mergePeople(kept, merged, 'trailer', reason, evidence);
    if (id !== undefined) result.merges.push({ id, rule: 'trailer', reason });
  }
}

/** `ID+login@users.noreply.github.com` names its GitHub user: the login joins the address's person. */
async function resolveNoreply(store: Store, result: ResolveResult): Promise<void> {
  for (const address of await store.people.noreplyAddressesWithoutLogin()) {
    const user = noreplyLogin(address.value);
    if (user) await attachLogin(store, address.personId, address.value, user, 'noreply', result);
  }
}

async function askGitHub(
  store: Store,
  lookupLogin: LoginLookup,
  minMessages: number,
  result: ResolveResult,
  stopped: () => boolean,
): Promise<void> {
  const now = new Date();
  for (const candidate of await store.people.addressesWithoutLogin(minMessages)) {
    if (stopped()) return;
    if (noreplyLogin(candidate.address)) continue;
    let answer = await store.people.lookup(candidate.address, now.toISOString());
    if (!answer) {
      const found = await lookupLogin(candidate.address);
      result.githubAsked++;
      answer = {
        address: candidate.address,
        login: found?.login.toLowerCase() ?? null,
        githubId: found?.githubId ?? null,
      };
      await store.people.saveLookup(answer, found ? null : new Date(now.getTime() + RETRY_NEGATIVE_MS).toISOString());
    }
    if (answer.login)
      await attachLogin(
        store,
        candidate.personId,
        candidate.address,
        { login: answer.login, githubId: answer.githubId },
        'github-api',
        result,
      );
  }
}

/** The login becomes the person's; when another person has it already, the two are merged (the login is one GitHub user). */
async function attachLogin(
  store: Store,
  personId: number,
  address: string,
  user: { login: string; githubId: number | null },
  rule: 'noreply' | 'github-api',
  result: ResolveResult,
): Promise<void> {
  await changePeople(store, async (tx) => {
    const evidence = `${rule}:${address}|${user.login}`;
    if (await tx.people.evidenceSeen([evidence, `split:${address}`, `split:${user.login}`])) return;
    const holder = await tx.people.identityOf('github_login', user.login);
    if (!holder) {
      await tx.people.addIdentity(personId, 'github_login', user.login, rule);
      if (user.githubId !== null) await tx.people.addIdentity(personId, 'github_id', String(user.githubId), rule);
      result.identitiesRecorded++;
      return;
    }
    if (holder.personId === personId) return;
    const [kept, merged] = await tx.people.keptFirst(holder.personId, personId);
    const reason = `${address} is GitHub user ${user.login} (${rule === 'noreply' ? 'its noreply address' : "GitHub's search"})`;
    const id = await tx.people.mergePeople(kept, merged, rule, reason, evidence);
    if (id !== undefined) result.merges.push({ id, rule, reason });
  });
}
