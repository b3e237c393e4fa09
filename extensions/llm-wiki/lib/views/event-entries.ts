/**
 * The events a generated log shows, read from the authoritative event log
 * (`meta/events.jsonl` and the clones' logs under `meta/events/`, see
 * vault/event-log-files.ts): every line that parses, has a kind and a valid
 * timestamp (`ts`, or `timestamp` as `@zosmaai/pi-llm-wiki` writes it), in
 * file order. Internal events (recall feedback: what a session was shown,
 * opened or judged) are for ranking, not for reading, and are left out.
 * Read-only: the log is never rewritten here.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { basename, dirname } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { FEEDBACK_EVENT_KIND } from "../feedback/feedback-event.ts";
import { EVENT_LOG_MAX_BYTES } from "../temporal/event-log.ts";
import { firstSight, type SeenLines } from "../vault/event-lines-seen.ts";
import { eventLogFiles } from "../vault/event-log-files.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** One event a log shows. */
export interface LogEntry {
  /** The timestamp as logged. */
  ts: string;
  /** Milliseconds since the epoch of `ts`. */
  time: number;
  kind: string;
  /** Every other field of the event. */
  detail: Record<string, unknown>;
  /** 1-based line of the event in its file (as read): later lines break timestamp ties. */
  line: number;
  /** Which file of the log it came from, in `eventLogFiles` order (0 when there is one). */
  file?: number;
}

/** What reading the log gave. */
export type LogRead =
  | {
      available: true;
      entries: LogEntry[];
      /** Internal events left out. */
      internal: number;
      diagnostics: Diagnostic[];
    }
  | { available: false; diagnostics: Diagnostic[] };

const EVENTS_REL = "meta/events.jsonl";

/** The log file `path` as diagnostics name it: `meta/events.jsonl` or `meta/events/<name>`. */
function relOf(path: string): string {
  return basename(dirname(path)) === "events" ? `meta/events/${basename(path)}` : EVENTS_REL;
}
/** At most this many malformed lines are named one by one; the rest are counted. */
const MAX_LINE_DIAGNOSTICS = 20;

function readTail(path: string): string {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - EVENT_LOG_MAX_BYTES);
    const buffer = Buffer.alloc(size - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    const text = buffer.subarray(0, read).toString("utf8");
    // A tail read starts mid-line: its first piece is not a whole event.
    return start > 0 ? text.slice(text.indexOf("\n") + 1) : text;
  } finally {
    closeSync(fd);
  }
}

/** True for events only ranking reads (recall feedback), never shown in a log. */
export function isInternalEvent(event: Readonly<Record<string, unknown>>): boolean {
  return event.kind === FEEDBACK_EVENT_KIND || event.visibility === "internal";
}

/**
 * The shown events of the log at `path`. A missing or unreadable log is
 * `available: false` with a diagnostic (the caller leaves its old views
 * alone); a present, empty log is an empty list.
 */
export function readLogEntries(path: string): LogRead {
  const rel = relOf(path);
  let text: string;
  try {
    text = readTail(path);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === "ENOENT";
    return {
      available: false,
      diagnostics: [
        diagnostic(
          missing ? "event_source_missing" : "event_source_unreadable",
          "warning",
          missing
            ? `${rel} is missing; the activity logs were left as they were`
            : `${rel} cannot be read (${errorMessage(error)}); the activity logs were left as they were`,
          { path: rel },
        ),
      ],
    };
  }
  // The last piece has no newline: a write in progress, or a final event without one.
  const parsed = parseLogLines(text.split("\n"), 1, 0, new Set(), rel);
  return finishLogRead(parsed, rel);
}

/**
 * The shown events of the vault's whole log: every file of it read with
 * `readOne` (a follower passes one reading only what was appended), taken
 * together newest last in time order. `available: false` only when no file
 * of the log exists or every one failed.
 */
export function readVaultLogEntries(
  paths: VaultPaths,
  readOne: (path: string) => LogRead = readLogEntries,
): LogRead {
  const files = eventLogFiles(paths);
  if (files.length === 0) return readOne(paths.events);
  if (files.length === 1) return readOne(files[0] as string);
  const entries: LogEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  let internal = 0;
  let available = false;
  files.forEach((file, i) => {
    const read = readOne(file);
    diagnostics.push(...read.diagnostics);
    if (!read.available) return;
    available = true;
    internal += read.internal;
    // Marked in place: a reader that keeps its entries (views following writes) keeps them whole.
    for (const e of read.entries) {
      e.file = i;
      entries.push(e);
    }
  });
  if (!available) return { available: false, diagnostics };
  entries.sort((a, b) => a.time - b.time || (a.file ?? 0) - (b.file ?? 0) || a.line - b.line);
  return { available: true, entries, internal, diagnostics };
}

/** Lines of the log parsed: the events shown, internal ones counted, malformed ones named (the first few). */
export interface ParsedLog {
  entries: LogEntry[];
  internal: number;
  bad: number;
  diagnostics: Diagnostic[];
  /** Lines taken so far: a line a git merge brought twice is shown once. */
  seen: SeenLines;
}

/** A read's result from parsed lines: the malformed lines beyond the first few counted in one diagnostic. */
export function finishLogRead(parsed: ParsedLog, rel = EVENTS_REL): LogRead {
  const { entries, internal, bad } = parsed;
  const diagnostics = [...parsed.diagnostics];
  if (bad > MAX_LINE_DIAGNOSTICS) {
    diagnostics.push(
      diagnostic(
        "event_invalid",
        "warning",
        `${rel}: ${bad - MAX_LINE_DIAGNOSTICS} more malformed lines not shown`,
        { path: rel },
      ),
    );
  }
  return { available: true, entries, internal, diagnostics };
}

/**
 * Parses `lines` (split on newlines), the first being line `firstLine` of
 * the file, after `badBefore` malformed lines already seen; a line already
 * in `seen` (a repeat a merge brought) is skipped.
 */
export function parseLogLines(
  lines: readonly string[],
  firstLine: number,
  badBefore: number,
  seen: SeenLines = new Set(),
  rel = EVENTS_REL,
): ParsedLog {
  const entries: LogEntry[] = [];
  const diagnostics: Diagnostic[] = [];
  let internal = 0;
  let bad = badBefore;
  lines.forEach((raw, i) => {
    if (raw.trim() === "" || !firstSight(seen, raw)) return;
    const line = firstLine + i;
    const problem = (reason: string) => {
      bad += 1;
      if (bad <= MAX_LINE_DIAGNOSTICS) {
        diagnostics.push(
          diagnostic("event_invalid", "warning", `${rel}:${line}: ${reason}; not shown`, {
            path: rel,
          }),
        );
      }
    };
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problem("not a JSON line");
      return;
    }
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      problem("not a JSON object");
      return;
    }
    const event = value as Record<string, unknown>;
    const { ts, timestamp, kind, ...detail } = event;
    const stamp = typeof ts === "string" ? ts : typeof timestamp === "string" ? timestamp : "";
    const time = Date.parse(stamp);
    if (typeof kind !== "string" || kind.trim() === "") {
      problem("no kind");
      return;
    }
    if (stamp === "" || Number.isNaN(time)) {
      problem("no valid timestamp");
      return;
    }
    if (isInternalEvent(event)) {
      internal += 1;
      return;
    }
    entries.push({ ts: stamp, time, kind, detail, line });
  });
  return { entries, internal, bad, diagnostics, seen };
}

/** Newest first: by time, then by file and line (a later line is a later event). */
export function newestFirst(a: LogEntry, b: LogEntry): number {
  return b.time - a.time || (b.file ?? 0) - (a.file ?? 0) || b.line - a.line;
}

/** The log file `path` as diagnostics name it (for a follower's own parses). */
export function logFileRel(path: string): string {
  return relOf(path);
}

/** The UTC day of an entry, `YYYY-MM-DD`. */
export function dayOf(entry: LogEntry): string {
  return new Date(entry.time).toISOString().slice(0, 10);
}
