/**
 * Rows arrive in snake_case with engine-specific booleans (0/1 or true/false)
 * and JSON (text or parsed). One mapping turns them into the records the core
 * sees, so no caller ever asks which engine answered.
 */
export interface RowShape {
  booleans?: readonly string[];
  json?: readonly string[];
}

const camelCache = new Map<string, string>();

function camel(name: string): string {
  let out = camelCache.get(name);
  if (out === undefined) {
    out = name.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    camelCache.set(name, out);
  }
  return out;
}

export function mapRow<T>(row: Record<string, unknown>, shape: RowShape = {}): T {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (shape.booleans?.includes(key)) out[camel(key)] = value === null ? null : Boolean(value);
    else if (shape.json?.includes(key)) out[camel(key)] = parseJson(value);
    else out[camel(key)] = value;
  }
  return out as T;
}

export function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null;
  return JSON.parse(value);
}

/** Two JSON values alike whatever the order of their keys (PostgreSQL's jsonb keeps its own order). */
export function sameJson(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b);
}

function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
