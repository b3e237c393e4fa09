/**
 * Stage line of the event write path (events.ts): each event stamped with
 * the time, redacted and serialised as one line of `meta/events.jsonl`.
 * Every event passes here on its way in, whoever logs it: a secret in a
 * title, an origin URL or an agent's detail never reaches the log, and the
 * line says how many secrets of each kind were taken out (never their
 * values). Pure: nothing is read or written.
 */
import { countTotal } from "../safety/redact.ts";
import {
  JSON_LINE,
  type RedactionCounts,
  type RedactionMemo,
  redactRecord,
  redactValue,
  sumCounts,
} from "./redaction.ts";
import type { Writer } from "./writer.ts";

/** One logged event; `kind` says what happened, the rest is its detail. */
export interface WikiEvent {
  kind: string;
  [key: string]: unknown;
}

/** Events as the log's text, and the secrets found across them. */
export interface EventLines {
  /** Whole lines, each ending in `\n`; empty for no events. */
  text: string;
  redactions: RedactionCounts;
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
 * The line logged for `event`: each value redacted alone and beside its key,
 * then the serialised line once more; where that would break the line, the
 * values it found are masked whole (`redactRecord`), never kept.
 */
function redactedLine(
  event: Record<string, unknown>,
  memo: RedactionMemo,
): {
  line: string;
  counts: RedactionCounts;
} {
  const counts: RedactionCounts = {};
  const { redactions: given, ...rest } = event;
  const line = redactRecord(redactValue(rest, counts, memo), JSON_LINE, counts);
  return { line, counts: sumCounts(counts, isCounts(given) ? given : undefined) };
}

/**
 * `events` as lines stamped `now` and, when given, with their `writer`
 * (`by`, `agent`), in order; secrets found are added to each event's
 * `redactions` counts (written last on its line) and summed.
 */
export function eventLines(events: readonly WikiEvent[], now: Date, writer?: Writer): EventLines {
  const ts = now.toISOString();
  let found: RedactionCounts = {};
  let text = "";
  // The events of one write share most keys and values: each text is scanned once.
  const memo: RedactionMemo = new Map();
  for (const event of events) {
    // `timestamp` is the key @zosmaai/pi-llm-wiki reads (and writes): the
    // same log stays readable by both; `ts` is ours, read by every older copy.
    const stamped: Record<string, unknown> = { ts, ...event };
    // Who decided it: the teammate and the agent (vault/writer.ts), unless the event says.
    if (writer?.name !== undefined && stamped.by === undefined) stamped.by = writer.name;
    if (writer !== undefined && stamped.agent === undefined) stamped.agent = writer.agent;
    stamped.timestamp = stamped.ts;
    const { line, counts } = redactedLine(stamped, memo);
    const mine = sumCounts(counts);
    found = sumCounts(found, mine);
    text +=
      countTotal(mine) > 0
        ? `${line.slice(0, -1)},${JSON.stringify({ redactions: mine }).slice(1)}\n`
        : `${line}\n`;
  }
  return { text, redactions: found };
}
