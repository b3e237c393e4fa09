/**
 * Redaction of what a write carries besides plain text: frontmatter values
 * and event details are nested (lists, maps), and a secret in a key or in a
 * list item is as much a leak as one in a body. Every page and event write
 * passes its values through here (see `page-write.ts`, `events.ts`), so the
 * hosts never redact anything themselves.
 */
import { addCounts, countTotal, type RedactionCounts, redactSecrets } from "../safety/redact.ts";

export type { RedactionCounts } from "../safety/redact.ts";

/** `text` with its secrets redacted; what was taken out is added to `counts`. */
export function redactText(text: string, counts: RedactionCounts): string {
  const out = redactSecrets(text);
  if (countTotal(out.counts) > 0) addCounts(counts, out.counts);
  return out.text;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/**
 * `value` with every string inside it redacted, keys of maps included;
 * anything else (numbers, dates, booleans) is kept as it is. Returns a copy
 * only where something changed shape-wise; counts go into `counts`.
 */
export function redactValue<T>(value: T, counts: RedactionCounts): T {
  if (typeof value === "string") return redactText(value, counts) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => redactValue(item, counts)) as T;
  if (isPlainObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      out[redactText(key, counts)] = redactValue(child, counts);
    }
    return out as T;
  }
  return value;
}

/** The sum of several counts, keys sorted; a new object. */
export function sumCounts(...all: Array<RedactionCounts | undefined>): RedactionCounts {
  const sum: RedactionCounts = {};
  for (const counts of all) if (counts !== undefined) addCounts(sum, counts);
  return sum;
}

/** `{ redactions }` to spread into a result or event, or nothing when no secret was found. */
export function redactionsField(counts: RedactionCounts): { redactions?: RedactionCounts } {
  return countTotal(counts) > 0 ? { redactions: counts } : {};
}
