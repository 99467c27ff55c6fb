import { addList, type AddListInput, type AddListResult } from '../../src/core/registry/register-list.js';
import { loadSystems } from '../../src/core/systems/load-systems.js';
import { withStoreAt } from './databases.js';

/**
 * Registers a list in the store at `url` as `lists add` does, in the test's
 * own process: a suite about a later stage starts the CLI only for what it
 * tests (`lists add` has suites of its own).
 */
export function addListAt(url: string, input: AddListInput): Promise<AddListResult> {
  return withStoreAt(url, (store) => addList(store, loadSystems(), input));
}
