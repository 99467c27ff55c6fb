import { InputError } from '../errors.js';
import { normalizeAddress } from '../classify/header-values.js';
import type { Identity, Person, PersonMerge } from '../store/people-records.js';
import type { Store } from '../store/store.js';

export interface PersonView {
  person: Person;
  identities: Identity[];
  merges: PersonMerge[];
}

/** A person named by id, address or login, with its identities and the merges that touched it. */
export async function showPerson(store: Store, ref: string): Promise<PersonView> {
  const id = await store.people.find(ref.includes('@') ? normalizeAddress(ref) : ref);
  const person = id === undefined ? undefined : await store.people.person(id);
  if (!person)
    throw new InputError(
      `No person is known by ${ref}.`,
      'Name a person by id, by an address, or by a GitHub login; `listminer people ls` lists them.',
    );
  return {
    person,
    identities: await store.people.identities(person.id),
    merges: await store.people.mergesOf(person.id),
  };
}
