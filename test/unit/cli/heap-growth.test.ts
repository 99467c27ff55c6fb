import { beforeEach, describe, expect, it, vi } from 'vitest';

const setFlags = vi.hoisted(() => vi.fn());
vi.mock('node:v8', async (importOriginal) => ({
  ...(await importOriginal<typeof import('node:v8')>()),
  setFlagsFromString: setFlags,
}));

const { HEAP_GROWING_PERCENT, limitHeapGrowth } = await import('../../../src/cli/heap-growth.js');

describe('limitHeapGrowth', () => {
  beforeEach(() => setFlags.mockClear());

  it("sets V8's heap growing factor when node was given none", () => {
    limitHeapGrowth(['--enable-source-maps', '--max-old-space-size=4096']);
    expect(setFlags).toHaveBeenCalledOnce();
    expect(setFlags).toHaveBeenCalledWith(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  });

  it("leaves a factor given on node's command line, in either spelling", () => {
    limitHeapGrowth(['--heap-growing-percent=300']);
    limitHeapGrowth(['--trace-gc', '--heap_growing_percent=50']);
    expect(setFlags).not.toHaveBeenCalled();
  });
});
