/**
 * Copies of values whose strings no longer point into a larger text. V8
 * returns a substring of 13 characters or more as a view that keeps the
 * whole parent string alive: a title or link target the YAML parser or the
 * link scanner cut out of a page would pin that page's entire text for as
 * long as the registry keeps the record (at 100k pages, ~250 MB of texts
 * nobody reads again).
 */

/** Shorter substrings are always copied by V8 (its smallest string view). */
const VIEW_MIN_LENGTH = 13;

/** `s` as a string of its own (equal to `s`), never a view into another string. */
export function detachedString(s: string): string {
  if (s.length < VIEW_MIN_LENGTH) return s;
  // The concatenation is flattened into a fresh string of length + 1; the
  // slice of it then refers to that copy, not to the text `s` came from.
  return ` ${s}`.slice(1);
}

/**
 * A deep copy of `value` with every string detached: arrays and plain
 * objects are copied key by key in their order (own enumerable keys, values
 * `undefined` included), anything else is kept as it is.
 */
export function detachedStrings<T>(value: T): T {
  return copy(value) as T;
}

function copy(value: unknown): unknown {
  if (typeof value === "string") return detachedString(value);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map(copy);
  const proto = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return value;
  const out: Record<string, unknown> = proto === null ? Object.create(null) : {};
  for (const key of Object.keys(value)) out[key] = copy((value as Record<string, unknown>)[key]);
  return out;
}
