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
 * `write` per call keeps concurrent appends whole.
 */
export function appendEvent(
  paths: VaultPaths,
  event: WikiEvent,
  now: Date = new Date(),
): RedactionCounts {
  return appendEvents(paths, [event], now);
}

/**
 * Appends `events` in order, each as `appendEvent` would, in one `write`:
 * a turn's signals cost one system call, and another process's lines never
 * land between them. Returns the secrets found across all of them.
 */
export function appendEvents(
  paths: VaultPaths,
  events: readonly WikiEvent[],
  now: Date = new Date(),
): RedactionCounts {
  if (events.length === 0) return {};
  mkdirSync(dirname(paths.events), { recursive: true });
  const ts = now.toISOString();
  let found: RedactionCounts = {};
  let text = "";
  for (const event of events) {
    // `timestamp` is the key @zosmaai/pi-llm-wiki reads (and writes): the
    // same log stays readable by both; `ts` is ours, read by every older copy.
    const stamped: Record<string, unknown> = { ts, ...event };
    stamped.timestamp = stamped.ts;
    const { line, counts } = redactedLine(stamped);
    const mine = sumCounts(counts);
    found = sumCounts(found, mine);
    text +=
      countTotal(mine) > 0
        ? `${line.slice(0, -1)},${JSON.stringify({ redactions: mine }).slice(1)}\n`
        : `${line}\n`;
  }
  appendFileSync(paths.events, text, { encoding: "utf8", flag: "a" });
  return found;
}
