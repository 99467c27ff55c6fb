/**
 * Whether a message carries a patch: an inline diff in its text, or a part
 * that is one (text/x-patch, text/x-diff, a .patch or .diff file).
 */
const INLINE_DIFF = /^diff --git a\/|^--- (?:a\/)?\S.*\n\+\+\+ (?:b\/)?\S|^Index: \S.*\n={20,}/m;
const PATCH_TYPES = new Set([
  'text/x-patch',
  'text/x-diff',
  'application/x-patch',
  'application/x-diff',
  'text/diff',
  'text/patch',
]);

export interface PartInfo {
  contentType?: string;
  filename?: string;
}

export function detectPatch(body: string, parts: readonly PartInfo[] = []): boolean {
  if (INLINE_DIFF.test(body)) return true;
  return parts.some(
    // mailparser can hand over a non-string content type for a broken header, hence String().
    (part) =>
      PATCH_TYPES.has(String(part.contentType ?? '').toLowerCase()) ||
      /\.(?:patch|diff)$/i.test(String(part.filename ?? '')),
  );
}
