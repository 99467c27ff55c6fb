import { describe, expect, it } from 'vitest';
import { ArchiveError } from '../../../../src/core/errors.js';
import { isLoopbackHost, Pacer } from '../../../../src/core/net/pacer.js';
import { fakeClock } from '../../../helpers/archive-server.js';

describe('Pacer', () => {
  it('keeps one second between requests to a remote host', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock });
    await pacer.wait('lists.apache.org');
    await pacer.wait('lists.apache.org');
    await pacer.wait('lists.apache.org');
    expect(clock.sleeps).toEqual([1000, 1000]);
  });

  it('refuses, rather than sleeps through, a wait longer than asked: another list of a host that said Retry-After: 3600', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock });
    pacer.strain('lists.apache.org', 3_600_000);
    const refused = await pacer.wait('lists.apache.org', undefined, 60_000).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(ArchiveError);
    expect(refused).toMatchObject({ kind: 'rate_limited', retryAfterMs: 3_600_000 });
    expect(clock.sleeps).toEqual([]);
    // Without a bound (the GitHub API client waits limits out) it sleeps as before.
    await pacer.wait('lists.apache.org');
    expect(clock.sleeps).toEqual([3_600_000]);
  });

  it('paces each host on its own', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock });
    await pacer.wait('a.example.org');
    await pacer.wait('b.example.org');
    expect(clock.sleeps).toEqual([]);
  });

  it('does not wait between requests to loopback hosts', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock });
    for (const host of ['127.0.0.1:8080', '127.1.2.3', 'localhost:3000', '[::1]:80', '[::1]']) {
      await pacer.wait(host);
      await pacer.wait(host);
    }
    expect(clock.sleeps).toEqual([]);
  });

  it('doubles the interval on strain up to the 60 s ceiling and eases back on success', () => {
    const pacer = new Pacer({ clock: fakeClock() });
    const host = 'lists.example.org';
    const seen = [];
    for (let i = 0; i < 8; i++) {
      pacer.strain(host);
      seen.push(pacer.intervalFor(host));
    }
    expect(seen).toEqual([2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    pacer.ease(host);
    expect(pacer.intervalFor(host)).toBe(30000);
    for (let i = 0; i < 10; i++) pacer.ease(host);
    expect(pacer.intervalFor(host)).toBe(1000);
  });

  it('slows a loopback host under strain too, and returns it to no wait', () => {
    const pacer = new Pacer({ clock: fakeClock() });
    pacer.strain('127.0.0.1:1');
    pacer.strain('127.0.0.1:1');
    expect(pacer.intervalFor('127.0.0.1:1')).toBe(200);
    for (let i = 0; i < 5; i++) pacer.ease('127.0.0.1:1');
    expect(pacer.intervalFor('127.0.0.1:1')).toBe(0);
  });

  it('holds the next request back for a Retry-After longer than the interval', async () => {
    const clock = fakeClock();
    const pacer = new Pacer({ clock });
    await pacer.wait('lists.example.org');
    pacer.strain('lists.example.org', 30_000);
    await pacer.wait('lists.example.org');
    expect(clock.sleeps).toEqual([30_000]);
  });
});

describe('isLoopbackHost', () => {
  it('knows loopback names and addresses and nothing else', () => {
    expect(['localhost', '127.0.0.1', '127.255.0.9', '::1', '[::1]'].every(isLoopbackHost)).toBe(true);
    expect(
      ['128.0.0.1', 'lists.apache.org', '10.0.0.1', 'localhost.example.org', '127.0.0.1.example.org'].some(
        isLoopbackHost,
      ),
    ).toBe(false);
  });
});
