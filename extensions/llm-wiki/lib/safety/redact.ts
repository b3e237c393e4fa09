/**
 * The one secret-redaction step every write path and every host passes
 * through. Each secret becomes `[REDACTED:<kind>]`; callers get the counts by
 * kind (never the values) for the write's result and the event log.
 */
import * as legacy from "../capture/redact.ts";

/** Number of redactions by kind, e.g. `{ openai_key: 1, jwt: 2 }`; never values. */
export type RedactionCounts = Record<string, number>;

/** Redacted text and what was taken out of it. */
export interface Redacted {
  text: string;
  counts: RedactionCounts;
}

/** Replaces every secret with `[REDACTED:<kind>]`. Idempotent: redacting redacted text changes nothing. */
export function redactSecrets(text: string): Redacted {
  return legacy.redactSecrets(text);
}

/** Where secrets are, for lint: 1-based line, kind; never the value. */
export function findSecrets(text: string): Array<{ kind: string; line: number }> {
  const found: Array<{ kind: string; line: number }> = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const { counts } = legacy.redactSecrets(lines[i] ?? "");
    for (const [kind, n] of Object.entries(counts)) {
      for (let k = 0; k < n; k++) found.push({ kind, line: i + 1 });
    }
  }
  return found;
}

/** Adds `more` into `into` (mutating it) and returns it, keys sorted so manifests compare stably. */
export function addCounts(into: RedactionCounts, more: RedactionCounts): RedactionCounts {
  for (const [kind, n] of Object.entries(more)) into[kind] = (into[kind] ?? 0) + n;
  const sorted = Object.entries(into).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const key of Object.keys(into)) delete into[key];
  for (const [kind, n] of sorted) into[kind] = n;
  return into;
}

/** Total number of redactions. */
export function countTotal(counts: RedactionCounts): number {
  return Object.values(counts).reduce((n, k) => n + k, 0);
}
