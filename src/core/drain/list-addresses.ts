import { normalizeAddress } from '../classify/header-values.js';

/** The addresses Mailman gives a list beside its posting address; none of them is a person. */
const ROLES = [
  '',
  '-bounces',
  '-owner',
  '-request',
  '-admin',
  '-confirm',
  '-join',
  '-leave',
  '-subscribe',
  '-unsubscribe',
];

/**
 * Whether an address is a list's own: its posting address or one of
 * Mailman's role addresses of it (`dev-bounces@`, `dev-owner@`, …), VERP
 * suffix included (`dev-bounces+jane=example.org@`). Early pipermail wrote
 * `From: dev@lists.example.org (Jane Doe)` on every message, which would make
 * the list one contributor with all its mail (docs/drain.md).
 */
export class ListAddresses {
  private readonly lists: Array<{ local: string; domain: string }> = [];

  constructor(addresses: ReadonlyArray<string | null | undefined>) {
    for (const address of addresses) {
      const parts = address ? split(normalizeAddress(address.trim())) : undefined;
      if (parts && !this.lists.some((l) => l.local === parts.local && l.domain === parts.domain))
        this.lists.push(parts);
    }
  }

  /** `extra` is the list address the message itself names (List-Post, or a To/Cc that the List-Id spells). */
  includes(address: string, extra?: string | null): boolean {
    const parts = split(address);
    if (!parts) return false;
    const local = parts.local.replace(/\+.*$/, '');
    const matches = (list: { local: string; domain: string }) =>
      list.domain === parts.domain && ROLES.some((role) => local === list.local + role);
    if (this.lists.some(matches)) return true;
    const named = extra ? split(normalizeAddress(extra.trim())) : undefined;
    return named !== undefined && matches(named);
  }
}

function split(address: string): { local: string; domain: string } | undefined {
  const at = address.lastIndexOf('@');
  return at > 0 && at < address.length - 1 ? { local: address.slice(0, at), domain: address.slice(at + 1) } : undefined;
}
