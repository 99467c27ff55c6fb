import { normalizeAddress } from '../classify/header-values.js';
import { InputError } from '../errors.js';
import type { Identity } from '../store/people-records.js';
import type { Store } from '../store/store.js';
import { foldMailmap, readMailmap } from './read-mailmap.js';
import { changePeople } from './people-lock.js';

/**
 * The changes a person makes by hand or with a mailmap (docs/people.md):
 * each runs in one transaction, and each merge is recorded in person_merges
 * with its reason, so `people unmerge` or `people split` takes it back.
 */

export interface MergeOutcome {
  /** The person_merges row, or null when both were one person already. */
  mergeId: number | null;
  personId: number;
}

/** `people merge A B`: B's identities, mail and authorships become A's. */
export async function mergePeopleByHand(store: Store, keptRef: string, mergedRef: string): Promise<MergeOutcome> {
  return changePeople(store, async (tx) => {
    const kept = await findPerson(tx, keptRef);
    const merged = await findPerson(tx, mergedRef);
    const mergeId = await tx.people.mergePeople(
      kept,
      merged,
      'manual',
      `merged by hand: ${mergedRef} into ${keptRef}`,
      `manual:${kept}|${merged}`,
    );
    return { mergeId: mergeId ?? null, personId: kept };
  });
}

/** `people unmerge MERGE_ID`. */
export async function unmergePeople(store: Store, mergeId: number): Promise<{ personId: number }> {
  return changePeople(store, async (tx) => {
    const merge = await tx.people.merge(mergeId);
    if (!merge || merge.rule === 'split')
      throw new InputError(
        `There is no merge ${mergeId}.`,
        'See the merges of a person with `listminer people show PERSON`.',
      );
    if (merge.undoneAt !== null) throw new InputError(`Merge ${mergeId} was undone already (${merge.undoneAt}).`);
    await tx.people.unmergePeople(mergeId);
    return { personId: merge.mergedId };
  });
}

export interface SplitOutcome {
  /** The person the identity now belongs to. */
  personId: number;
  /** The merge undone by the split, when the identity came with one and everything that merge moved is split off together. */
  undoneMergeId: number | null;
}

/**
 * `people split PERSON IDENTITY`: the identity (an address with the names
 * seen with it, or a login) leaves the person. When a merge brought it, the
 * person it came from gets it back (and, when that merge moved nothing else
 * still here, the merge is undone whole); otherwise it becomes a person of
 * its own.
 */
export async function splitPerson(store: Store, personRef: string, identityRef: string): Promise<SplitOutcome> {
  return changePeople(store, async (tx) => {
    const personId = await findPerson(tx, personRef);
    const identity = await findIdentity(tx, personId, identityRef);
    const owned = await tx.people.identities(personId);
    if (owned.filter((i) => i.kind !== 'name').length < 2) {
      throw new InputError(
        `Person ${personId} has no other identity than ${identity.value}; there is nothing to split it from.`,
      );
    }
    if (identity.originId !== personId && (await tx.people.current(identity.originId)) === personId) {
      const open = await tx.people.openMergeOf(identity.originId);
      if (open !== undefined) {
        const moved = new Set(await tx.people.mergeMoved(open));
        const fromIt = owned.filter((i) => moved.has(i.id));
        const named = new Set([
          identity.id,
          ...owned
            .filter((i) => i.kind === 'name' && identity.kind === 'email' && i.seenWith === identity.value)
            .map((i) => i.id),
        ]);
        if (fromIt.every((i) => named.has(i.id))) {
          await tx.people.unmergePeople(open);
          return { personId: identity.originId, undoneMergeId: open };
        }
      }
      await tx.people.moveIdentity(identity, identity.originId);
      await tx.people.recordSplit(personId, identity.originId, identity);
      return { personId: identity.originId, undoneMergeId: null };
    }
    const name = owned.find((i) => i.kind === 'name' && i.seenWith === identity.value)?.value ?? null;
    const fresh = await tx.people.createPerson(name, null, 'split');
    await tx.people.moveIdentity(identity, fresh);
    await tx.people.recordSplit(personId, fresh, identity);
    return { personId: fresh, undoneMergeId: null };
  });
}

export interface MailmapOutcome {
  entries: number;
  merges: number;
  namesSet: number;
  identitiesAdded: number;
  errors: string[];
  warnings: string[];
}

/**
 * `people import-mailmap FILE`: each line's commit address becomes an
 * identity of the person of its proper address (a merge when both are
 * people already), and a proper name becomes that person's name; a later
 * line for the same commit address replaces an earlier one, as in git
 * (foldMailmap). Addresses
 * no mail has shown yet are recorded, so mail that comes later lands on
 * the right person. Lines that cannot be read are reported and skipped.
 * Running it again changes nothing.
 */
export async function importMailmap(store: Store, text: string): Promise<MailmapOutcome> {
  const reading = readMailmap(text);
  const outcome: MailmapOutcome = {
    entries: reading.value.length,
    merges: 0,
    namesSet: 0,
    identitiesAdded: 0,
    errors: reading.errors,
    warnings: reading.warnings,
  };
  await changePeople(store, async (tx) => {
    await tx.people.recordRowIdentities();
    for (const entry of foldMailmap(reading.value)) {
      const commitId = await tx.contributors.idsByEmail([entry.commitEmail]).then((ids) => ids.get(entry.commitEmail));
      let personId = commitId;
      if (entry.properEmail && entry.properEmail !== entry.commitEmail) {
        const properId = (await tx.contributors.idsByEmail([entry.properEmail])).get(entry.properEmail);
        if (properId !== undefined && commitId !== undefined) {
          const merged = await tx.people.mergePeople(
            properId,
            commitId,
            'mailmap',
            `mailmap line ${entry.line}: <${entry.commitEmail}> is <${entry.properEmail}>`,
            `mailmap:${entry.commitEmail}|${entry.properEmail}`,
          );
          if (merged !== undefined) outcome.merges++;
          personId = properId;
        } else if (properId !== undefined) {
          await tx.people.addIdentity(properId, 'email', entry.commitEmail, 'mailmap');
          outcome.identitiesAdded++;
          personId = properId;
        } else if (commitId !== undefined) {
          await tx.people.addIdentity(commitId, 'email', entry.properEmail, 'mailmap');
          outcome.identitiesAdded++;
        } else {
          personId = await tx.people.createPerson(entry.properName, entry.properEmail, 'mailmap');
          await tx.people.addIdentity(personId, 'email', entry.properEmail, 'mailmap');
          await tx.people.addIdentity(personId, 'email', entry.commitEmail, 'mailmap');
          outcome.identitiesAdded += 2;
        }
      }
      if (entry.properName && personId !== undefined) {
        const person = await tx.people.person(personId);
        if (person?.name !== entry.properName) {
          await tx.people.setName(personId, entry.properName);
          outcome.namesSet++;
        }
        await tx.people.addIdentity(
          personId,
          'name',
          entry.properName,
          'mailmap',
          entry.properEmail ?? entry.commitEmail,
        );
      }
    }
  });
  return outcome;
}

async function findPerson(store: Store, ref: string): Promise<number> {
  const id = await store.people.find(/^\d+$/.test(ref) ? ref : ref.includes('@') ? normalizeAddress(ref) : ref);
  if (id === undefined)
    throw new InputError(
      `No person is known by ${ref}.`,
      'Name a person by id, by an address, or by a GitHub login; `listminer people ls` lists them.',
    );
  return id;
}

/** An identity of the person: its id, or its address or login. */
async function findIdentity(store: Store, personId: number, ref: string): Promise<Identity> {
  const owned = await store.people.identities(personId);
  const value = ref.includes('@') ? normalizeAddress(ref) : ref.toLowerCase();
  const found = /^\d+$/.test(ref)
    ? owned.find((i) => i.id === Number(ref))
    : owned.find((i) => i.kind !== 'name' && i.value === value);
  if (!found)
    throw new InputError(
      `Person ${personId} has no identity ${ref}.`,
      `\`listminer people show ${personId}\` lists its identities.`,
    );
  if (found.kind === 'name')
    throw new InputError(`Identity ${ref} is a name; split off the address it was seen with instead.`);
  return found;
}
