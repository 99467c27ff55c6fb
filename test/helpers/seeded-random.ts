/**
 * A small seeded generator (mulberry32) for suites that pick random points,
 * faults and mutations: the same seed gives the same choices, so a failure
 * seen once can be run again with LISTMINER_SEED=<seed>.
 */
export interface SeededRandom {
  readonly seed: number;
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max]. */
  int(min: number, max: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  bytes(length: number): Buffer;
  /** An independent generator derived from this one, so adding draws in one place leaves the others alone. */
  fork(label: string): SeededRandom;
}

export function seededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random: SeededRandom = {
    seed,
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)]!,
    bytes: (length) => {
      const out = Buffer.alloc(length);
      for (let i = 0; i < length; i++) out[i] = Math.floor(next() * 256);
      return out;
    },
    fork: (label) => {
      let hash = seed >>> 0;
      for (const char of label) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
      return seededRandom(hash);
    },
  };
  return random;
}

/**
 * The seed of a suite: its fixed default, so every run makes the same
 * choices; LISTMINER_SEED=<n> to repeat another run, LISTMINER_SEED=random
 * for a fresh one. It is printed either way.
 */
export function suiteSeed(suite: string, defaultSeed: number): SeededRandom {
  const given = process.env.LISTMINER_SEED;
  const seed = given === 'random' ? Math.floor(Math.random() * 2 ** 32) : given ? Number(given) >>> 0 : defaultSeed;
  console.log(`${suite}: seed ${seed} (LISTMINER_SEED=${seed} repeats this run)`);
  return seededRandom(seed);
}
