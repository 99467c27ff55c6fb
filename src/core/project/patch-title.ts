const REPLY_PREFIX = /^(?:re|aw|sv|antw|fwd?|wg|tr)\s*(?:\[\d+\])?\s*:\s*/i;
const LEADING_TAG = /^\[[^[\]]{0,120}\]\s*/;

/**
 * The title of a patch series: the subject without reply prefixes, list
 * tags and patch tags (`Re: [dpdk-dev] [PATCH v3 2/7] net: fix x` → `net: fix
 * x`), so every version and every reply names the series the same way.
 */
export function seriesTitle(subject: string | null): string {
  let rest = (subject ?? '').trim();
  for (let steps = 0; steps < 20; steps++) {
    const next = rest.replace(REPLY_PREFIX, '').replace(LEADING_TAG, '');
    if (next === rest) break;
    rest = next.trimStart();
  }
  return rest.replace(/\s+/g, ' ').trim();
}

/** Same author, same title: the same series, whatever the version and whichever thread it was posted in. */
export function seriesKey(authorAddress: string | null, title: string): string {
  return `${(authorAddress ?? '').trim().toLowerCase()}\n${title.toLowerCase()}`;
}
