/**
 * The append-only event log `meta/events.jsonl` (authoritative: never
 * rewritten, only appended to, one JSON object per line). Every event passes
 * the redaction step on its way in, whoever logs it: a secret in a title, an
 * origin URL or an agent's detail never reaches the log, and the event says
 * how many secrets of each kind were taken out (never their values).
 *
 * A write cut short (a full disk) can leave a last line without its
 * newline. The log is never repaired by rewriting it: the next append starts
 * on a fresh line instead, so the torn line stays alone (readers count it)
 * and never swallows the event after it.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { dirname, relative } from "node:path";
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { countTotal } from "../safety/redact.ts";
import { makeDirs, refuseLinkOnTheWay, vaultArea, writeThroughLinkError } from "./fs-safe.ts";
import type { VaultPaths } from "./paths.ts";
import {
  JSON_LINE,
  type RedactionCounts,
  redactRecord,
  redactValue,
  sumCounts,
} from "./redaction.ts";

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
 * The line logged for `event`: each value redacted alone and beside its key,
 * then the serialised line once more; where that would break the line, the
 * values it found are masked whole (`redactRecord`), never kept.
 */
function redactedLine(event: Record<string, unknown>): {
  line: string;
  counts: RedactionCounts;
} {
  const counts: RedactionCounts = {};
  const { redactions: given, ...rest } = event;
  const line = redactRecord(redactValue(rest, counts), JSON_LINE, counts);
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

/** `O_NOFOLLOW` where the platform has it: the log itself is never a link. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** True when the open log `fd` of `size` bytes ends inside a line (a torn last write). */
function endsMidLine(fd: number, size: number): boolean {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
}

/** Appends `text` (whole lines) to the log at `paths.events`, on a fresh line. */
function appendLines(paths: VaultPaths, text: string): void {
  const area = vaultArea(paths);
  makeDirs(dirname(paths.events), area);
  refuseLinkOnTheWay(paths.events, area);
  let fd: number;
  try {
    fd = openSync(
      paths.events,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW,
      0o666,
    );
  } catch (error) {
    // Made a link since the check above.
    if ((error as NodeJS.ErrnoException).code === "ELOOP") {
      throw writeThroughLinkError(paths.events, paths.events);
    }
    throw error;
  }
  try {
    const bytes = Buffer.from(endsMidLine(fd, fstatSync(fd).size) ? `\n${text}` : text, "utf8");
    // One write in practice; a short one is continued, as appendFileSync does.
    for (let done = 0; done < bytes.length; ) {
      done += writeSync(fd, bytes, done, bytes.length - done);
    }
  } finally {
    closeSync(fd);
  }
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
  appendLines(paths, text);
  return found;
}

/** What `recordEvents` did: the secrets found, and a warning when the log could not take the events. */
export interface RecordedEvents {
  redactions: RedactionCounts;
  diagnostics: Diagnostic[];
}

/**
 * Appends `events` for a change already made on disk (a page created, a
 * packet stored). The change is the record and the event only its trace, so
 * a log that cannot be appended to (read-only `meta/`, a full disk) does not
 * undo or hide it: the result carries an `event_not_recorded` warning and
 * the caller reports success. Reporting a failure instead would invite a
 * retry that meets the page it made (`page_exists`).
 */
export function recordEvents(
  paths: VaultPaths,
  events: readonly WikiEvent[],
  now: Date = new Date(),
): RecordedEvents {
  try {
    return { redactions: appendEvents(paths, events, now), diagnostics: [] };
  } catch (error) {
    const rel = relative(paths.dir, paths.events).split("\\").join("/");
    const why = error instanceof WikiError ? error.diagnostic.message : errorMessage(error);
    const kinds = [...new Set(events.map((e) => e.kind))].join(", ");
    return {
      redactions: {},
      diagnostics: [
        diagnostic(
          "event_not_recorded",
          "warning",
          `the change was made, but its event (${kinds}) could not be appended to ${rel}: ${why}; recent and the activity log will not show it`,
          { path: rel },
        ),
      ],
    };
  }
}
