import { describe, expect, it } from 'vitest';
import { openArchiveSource } from '../../../../src/core/archive/open-source.js';
import { BACKENDS, type BackendName } from '../../../../src/core/systems/backend-names.js';

describe('openArchiveSource', () => {
  const backends = Object.keys(BACKENDS) as BackendName[];

  it.each(backends)('opens the source of backend %s, not another backend', async (backend) => {
    const source = await openArchiveSource(backend);
    expect(source.name).toBe(backend);
    expect(typeof source.firstMonth).toBe('function');
    expect(typeof source.fetchMonth).toBe('function');
  });
});
