import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { ArchiveSource, SourceContext } from '../../src/core/archive/archive-source.js';
import { monthOf, monthsBetween } from '../../src/core/archive/month.js';
import type { ListRecord } from '../../src/core/store/list-records.js';
import type { BackendName } from '../../src/core/systems/backend-names.js';

/** A SourceContext for a list that was never fetched, as the fetch command would build it. */
export function sourceContext(
  backend: BackendName,
  name: string,
  options: { baseUrl?: string; listAddress?: string; signal?: AbortSignal } = {},
): SourceContext {
  const list: ListRecord = {
    id: 1,
    system: backend,
    name,
    listAddress: options.listAddress ?? (name.includes('@') ? name : null),
    listId: null,
    rulesSystem: null,
    baseUrl: options.baseUrl ?? null,
    repoUrl: null,
    repoId: null,
    createdAt: '2024-01-01T00:00:00.000Z',
    firstMonth: null,
    lastMonth: null,
    scanComplete: false,
    fullScanPending: false,
    lastRunAt: null,
    failedAttempts: 0,
    lastFailure: null,
    lastFailureAt: null,
    retryAfter: null,
    sidelinedAt: null,
    lockedAt: null,
    lockedPid: null,
    lockedBootId: null,
    lockedHost: null,
  };
  return {
    list,
    system: { name: backend },
    baseUrl: options.baseUrl,
    cacheDir: mkdtempSync(join(tmpdir(), 'listminer-cache-')),
    signal: options.signal,
  };
}

export async function collectMessages(
  items: AsyncIterable<{ raw: Buffer; sourceRef?: string }>,
): Promise<Array<{ raw: Buffer; sourceRef?: string }>> {
  const out = [];
  for await (const item of items) out.push(item);
  return out;
}

/** Everything a source gives for a list over every month from its first to the current one. */
export async function collectAllMonths(
  source: ArchiveSource,
  context: SourceContext,
): Promise<Array<{ raw: Buffer; sourceRef?: string }>> {
  const first = await source.firstMonth(context);
  expect(first).toBeDefined();
  const out = [];
  for (const month of monthsBetween(first!, monthOf(new Date())))
    out.push(...(await collectMessages(source.fetchMonth(context, month))));
  return out;
}
