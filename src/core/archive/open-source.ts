import type { BackendName } from '../systems/backend-names.js';
import type { ArchiveSource } from './archive-source.js';

/**
 * Where each backend lives. A backend is one file in ./sources/ exporting
 * `createSource(): ArchiveSource`; adding one is that file, a line here and
 * one in backend-names.ts, and a systems.yaml entry. Modules load only when
 * a list of theirs is fetched.
 */
const MODULES: Record<BackendName, string> = {
  apache_ponymail: 'apache-ponymail',
  public_inbox: 'public-inbox',
  pipermail: 'pipermail',
  hyperkitty: 'hyperkitty',
  mbox: 'mbox-files',
  maildir: 'maildir',
  nntp: 'nntp',
  imap: 'imap',
  pop3: 'pop3',
};

export interface SourceModule {
  createSource(): ArchiveSource;
}

export async function openArchiveSource(backend: BackendName): Promise<ArchiveSource> {
  const module = (await import(/* @vite-ignore */ `./sources/${MODULES[backend]}.js`)) as SourceModule;
  return module.createSource();
}
