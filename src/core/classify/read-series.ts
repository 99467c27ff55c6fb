import type { PatchSeries } from './envelope.js';

const REPLY_PREFIX = /^(?:re|aw|sv|antw|fwd?|wg|tr)\s*(?:\[\d+\])?\s*:\s*/i;
const LEADING_TAG = /^\[([^[\]]{0,120})\]\s*/;
const PATCH_WORD = /\bpatch|\brfc\b|\bpull\b/i;
const VERSION = /(?:^|[\s,-])v(\d{1,3})\b|\bpatchv(\d{1,3})\b/i;
const POSITION = /\b(\d{1,4})\s*(?:\/|\s+of\s+)\s*(\d{1,4})\b/i;

/**
 * Patch-series facts from a subject. Only the tags before the title count
 * (reply prefixes and list tags are stepped over), so `Re: [dpdk-dev]
 * [PATCH v2 1/3] x` gives version 2, part 1 of 3; a subject with no patch tag
 * gives null. Patchwork's `[net,v2,1/2]` form counts too.
 */
export function readSeries(subject: string): PatchSeries | null {
  let series: PatchSeries | null = null;
  let rest = subject.trimStart();
  for (let steps = 0; steps < 20; steps++) {
    const reply = REPLY_PREFIX.exec(rest);
    if (reply) {
      rest = rest.slice(reply[0].length);
      continue;
    }
    const match = LEADING_TAG.exec(rest);
    if (!match) break;
    rest = rest.slice(match[0].length);
    const tag = match[1]!;
    if (!PATCH_WORD.test(tag) && !(VERSION.test(tag) && POSITION.test(tag))) continue;
    series ??= { version: null, index: null, total: null, rfc: false, resend: false, gitPull: false };
    const version = VERSION.exec(tag);
    if (version && series.version === null) series.version = Number(version[1] ?? version[2]);
    const position = POSITION.exec(tag);
    if (position && series.index === null) {
      series.index = Number(position[1]);
      series.total = Number(position[2]);
    }
    if (/\brfc\b/i.test(tag)) series.rfc = true;
    if (/\bresend\b/i.test(tag)) series.resend = true;
    if (/\bpull\b/i.test(tag)) series.gitPull = true;
  }
  return series;
}
