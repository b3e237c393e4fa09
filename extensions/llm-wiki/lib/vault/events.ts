/**
 * The append-only event log `meta/events.jsonl` (authoritative: never
 * rewritten, only appended to, one JSON object per line). Every event passes
 * the redaction step on its way in, whoever logs it: a secret in a title, an
 * origin URL or an agent's detail never reaches the log, and the event says
 * how many secrets of each kind were taken out (never their values).
 */
import { appendFileSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { countTotal, redactSecrets } from "../safety/redact.ts";
import type { VaultPaths } from "./paths.ts";
import { type RedactionCounts, redactValue, sumCounts } from "./redaction.ts";

/** One logged event; `kind` says what happened, the rest is its detail. */
export interface WikiEvent {
  kind: string;
  [key: string]: unknown;
}

function isCounts(value: unknown): value is RedactionCounts {
  return (
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.values(value).every((n) => typeof n === "number")
  );
}

/**
 * The line logged for `event`: each string redacted, then the serialised
 * line once more, since a `"password": "…"` pair is only recognisable with
 * its key. A redaction of the line never spans JSON syntax in practice; if
 * one did, the line would not parse and the value-wise result is kept.
 */
function redactedLine(event: Record<string, unknown>): {
  line: string;
  counts: RedactionCounts;
} {
  const counts: RedactionCounts = {};
  const { redactions: given, ...rest } = event;
  const values = redactValue(rest, counts);
  let line = JSON.stringify(values);
  const again = redactSecrets(line);
  if (countTotal(again.counts) > 0) {
    try {
      JSON.parse(again.text);
      line = again.text;
      return { line, counts: sumCounts(counts, again.counts, isCounts(given) ? given : undefined) };
    } catch {
      // Kept value-wise redacted; see above.
    }
  }
  return { line, counts: sumCounts(counts, isCounts(given) ? given : undefined) };
}

/**
 * Appends `event` with a timestamp, redacted (see `redactedLine`); secrets
 * found are added to the event's `redactions` counts, and returned. One
 * `write` per line keeps concurrent appends whole.
 */
export function appendEvent(
  paths: VaultPaths,
  event: WikiEvent,
  now: Date = new Date(),
): RedactionCounts {
  mkdirSync(dirname(paths.events), { recursive: true });
  const { line, counts } = redactedLine({ ts: now.toISOString(), ...event });
  const found = sumCounts(counts);
  const text =
    countTotal(found) > 0
      ? `${line.slice(0, -1)},${JSON.stringify({ redactions: found }).slice(1)}`
      : line;
  appendFileSync(paths.events, `${text}\n`, { encoding: "utf8", flag: "a" });
  return found;
}
