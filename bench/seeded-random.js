/**
 * A seeded generator (mulberry32) for the benchmark's archives: the same
 * seed gives the same mail, byte for byte, so two runs measure the same
 * work. fork() derives an independent stream, so drawing more in one place
 * (say, longer bodies) leaves the choices made elsewhere unchanged.
 */
export function seededRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const random = {
    seed,
    next,
    /** An integer in [min, max]. */
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    /** An item of `items` drawn by `weights` (same length, any positive numbers). */
    weighted: (items, weights) => {
      let total = 0;
      for (const w of weights) total += w;
      let at = next() * total;
      for (let i = 0; i < items.length; i++) {
        at -= weights[i];
        if (at < 0) return items[i];
      }
      return items[items.length - 1];
    },
    hex: (length) => {
      let out = '';
      while (out.length < length)
        out += Math.floor(next() * 0x100000000)
          .toString(16)
          .padStart(8, '0');
      return out.slice(0, length);
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
 * Draws ranks 0..n-1 with probability falling as 1/(rank+1)^s: a few senders
 * write most of the mail, as on real lists. Cumulative weights are searched
 * by bisection, so a draw costs log n.
 */
export function zipf(random, n, s = 1.1) {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) cumulative[rank] = total += 1 / (rank + 1) ** s;
  return () => {
    const at = random.next() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (cumulative[middle] > at) high = middle;
      else low = middle + 1;
    }
    return low;
  };
}
