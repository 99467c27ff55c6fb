/**
 * Adds `value` to the list `groups` holds under `key`, starting the list when
 * the key is new: grouping rows in one pass, where copying the list on each
 * add made it quadratic in the size of a group.
 */
export function addToGroup<K, V>(groups: Map<K, V[]>, key: K, value: V): void {
  const group = groups.get(key);
  if (group) group.push(value);
  else groups.set(key, [value]);
}
