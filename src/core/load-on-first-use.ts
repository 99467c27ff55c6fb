import { createRequire } from 'node:module';

const requireFromHere = createRequire(import.meta.url);

/**
 * A CommonJS package loaded the first time it is used rather than when the
 * CLI starts. Every command start pays for what its modules import, and most
 * commands never need a YAML parser or a MIME word decoder; loading such a
 * package on first use keeps it out of their start (docs/architecture.md,
 * "Start-up"). Only for code that must stay synchronous: an async caller
 * uses `await import()`.
 */
export function loadOnFirstUse<T>(id: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= requireFromHere(id) as T);
}
