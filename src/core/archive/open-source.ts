import type { BackendName } from '../systems/backend-names.js';
import type { ArchiveSource } from './archive-source.js';

/** What a backend's module exports: one file in ./sources/ per backend. */
export interface SourceModule {
  createSource(): ArchiveSource;
}

/**
 * Where each backend lives, imported only when a list of its is fetched.
 * Typed by BackendName, so a backend without a module here, or a module
 * without `createSource`, does not compile. Adding a backend is its file in
 * ./sources/, a line here and one in backend-names.ts, and a systems.yaml
 * entry.
 */
const BACKEND_MODULES: { readonly [backend in BackendName]: () => Promise<SourceModule> } = {
  apache_ponymail: () => import('./sources/apache-ponymail.js'),
  public_inbox: () => import('./sources/public-inbox.js'),
  pipermail: () => import('./sources/pipermail.js'),
  hyperkitty: () => import('./sources/hyperkitty.js'),
  mbox: () => import('./sources/mbox-files.js'),
  maildir: () => import('./sources/maildir.js'),
  nntp: () => import('./sources/nntp.js'),
  imap: () => import('./sources/imap.js'),
  pop3: () => import('./sources/pop3.js'),
  groupsio: () => import('./sources/groupsio.js'),
};

export async function openArchiveSource(backend: BackendName): Promise<ArchiveSource> {
  const module = await BACKEND_MODULES[backend]();
  return module.createSource();
}
