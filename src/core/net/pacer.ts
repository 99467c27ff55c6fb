import { setTimeout as delay } from 'node:timers/promises';
import { ArchiveError } from '../errors.js';

/** Time, made injectable so tests of waiting never wait. */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  sleep: async (ms, signal) => {
    if (ms > 0) await delay(ms, undefined, { signal });
    else signal?.throwIfAborted();
  },
};

export interface PacerOptions {
  /** Least time between two requests to one host. Default 1 s: archives are other people's servers. */
  minIntervalMs?: number;
  /** The most the interval grows to under strain. Default 60 s. */
  maxIntervalMs?: number;
  /** First step of the interval under strain when the minimum is 0 (loopback hosts). Default 100 ms. */
  firstStrainMs?: number;
  clock?: Clock;
}

interface HostPace {
  minimumMs: number;
  intervalMs: number;
  /** When the next request to the host may start. */
  nextAt: number;
}

/**
 * Politeness per host: at least `minIntervalMs` between requests, doubling
 * on strain (429, 5xx, transport errors) up to `maxIntervalMs`, halving back
 * toward the minimum on each success. A loopback host (127.0.0.0/8, ::1,
 * localhost) has no minimum: a local mirror or a test server is nobody
 * else's server, so there is nobody to be polite to.
 */
export class Pacer {
  readonly clock: Clock;
  readonly maxIntervalMs: number;
  private readonly minIntervalMs: number;
  private readonly firstStrainMs: number;
  private readonly hosts = new Map<string, HostPace>();

  constructor(options: PacerOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.minIntervalMs = options.minIntervalMs ?? 1000;
    this.maxIntervalMs = options.maxIntervalMs ?? 60_000;
    this.firstStrainMs = options.firstStrainMs ?? 100;
  }

  /**
   * Waits for the host's next slot and takes it. A slot further away than
   * `longestMs` (the host asked for a long Retry-After) is refused with a
   * rate_limited ArchiveError instead, so a run does not sleep for an hour
   * holding a list.
   */
  async wait(host: string, signal?: AbortSignal, longestMs = Number.POSITIVE_INFINITY): Promise<void> {
    const pace = this.pace(host);
    const now = this.clock.now();
    const start = Math.max(now, pace.nextAt);
    if (start - now > longestMs) {
      throw new ArchiveError(
        `${host} asked listminer to wait until ${new Date(start).toISOString()}.`,
        'rate_limited',
        start - now,
      );
    }
    pace.nextAt = start + pace.intervalMs;
    await this.clock.sleep(start - now, signal);
  }

  /** The host is straining: double the interval; an explicit Retry-After pushes the next slot out. */
  strain(host: string, retryAfterMs?: number): void {
    const pace = this.pace(host);
    const doubled = Math.max(pace.intervalMs * 2, pace.minimumMs * 2, this.firstStrainMs);
    pace.intervalMs = Math.min(this.maxIntervalMs, doubled);
    const now = this.clock.now();
    pace.nextAt = Math.max(pace.nextAt, now + pace.intervalMs, now + (retryAfterMs ?? 0));
  }

  /** A request went well: ease the interval back toward the minimum. */
  ease(host: string): void {
    const pace = this.pace(host);
    const halved = Math.floor(pace.intervalMs / 2);
    pace.intervalMs = halved < this.firstStrainMs ? pace.minimumMs : Math.max(pace.minimumMs, halved);
  }

  /** The host's current interval between requests. */
  intervalFor(host: string): number {
    return this.pace(host).intervalMs;
  }

  private pace(host: string): HostPace {
    const key = host.toLowerCase();
    let pace = this.hosts.get(key);
    if (!pace) {
      const minimumMs = isLoopbackHost(key) ? 0 : this.minIntervalMs;
      pace = { minimumMs, intervalMs: minimumMs, nextAt: 0 };
      this.hosts.set(key, pace);
    }
    return pace;
  }
}

/** 127.0.0.0/8, ::1 and localhost: hosts on this machine. */
export function isLoopbackHost(host: string): boolean {
  const name = hostName(host.toLowerCase());
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (name === '::1' || name === '0:0:0:0:0:0:0:1') return true;
  if (/^::ffff:127\.\d+\.\d+\.\d+$/.test(name)) return true;
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(name);
}

/** The name in `host[:port]`, `[v6]:port` or a bare v6 address. */
function hostName(host: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(host);
  if (bracketed) return bracketed[1]!;
  return (host.match(/:/g) ?? []).length === 1 ? host.slice(0, host.indexOf(':')) : host;
}

/** One pacer for the whole process, so every list on a host shares its politeness. */
export const sharedPacer = new Pacer();
