import { fileURLToPath } from 'node:url';

/** The README's two sample archives in examples/: an Apache dev list (Jira and GitBox mail) and a kernel list (patch series). */
export const QUARRY = fileURLToPath(new URL('../../examples/quarry-dev.mbox', import.meta.url));
export const KERNEL = fileURLToPath(new URL('../../examples/kernel-net.mbox', import.meta.url));

/** The `lists add` arguments that register both samples with their rules and repositories, as the README does. */
export const ADD_SAMPLE_LISTS: readonly string[][] = [
  [
    'lists',
    'add',
    '--system',
    'mbox',
    '--rules',
    'apache_ponymail',
    QUARRY,
    '--repo',
    'https://github.com/apache/quarry',
  ],
  [
    'lists',
    'add',
    '--system',
    'mbox',
    '--rules',
    'public_inbox',
    KERNEL,
    '--repo',
    'https://github.com/torvalds/linux',
  ],
];
