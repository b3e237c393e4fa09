/**
 * The append-only event log: `meta/events.jsonl`, or in a git work tree
 * one file per clone and commit under `meta/events/` (clone-log.ts).
 * Authoritative: never rewritten, only appended to, one JSON object per
 * line. Its write path,
 * one stage a module:
 *
 *   validate  writing/event-input.ts   an agent's own event (`logEvent`) only: kind, detail
 *   line      vault/event-line.ts      stamped, redacted, serialised: one line an event
 *   append    vault/event-append.ts    one `write`, on a fresh line after a torn one, no link
 *   record    recordEvents (here)      for a change already on disk: a failure is a warning
 */
import { relative } from "node:path";
import { type Diagnostic, diagnostic, errorMessage, WikiError } from "../diagnostics.ts";
import { eventLogTarget } from "./clone-log.ts";
import { appendLines } from "./event-append.ts";
import { eventLines, type WikiEvent } from "./event-line.ts";
import type { VaultPaths } from "./paths.ts";
import type { RedactionCounts } from "./redaction.ts";

export type { WikiEvent } from "./event-line.ts";

/**
 * Appends `event` with a timestamp, redacted (see `eventLines`); secrets
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
  return appendEventsTo(paths, events, now).redactions;
}

/** What `appendEventsTo` did: the secrets found, and the log file appended to (absolute; undefined for no events). */
export interface AppendedEvents {
  redactions: RedactionCounts;
  file?: string;
}

/** `appendEvents`, also saying which log file took the lines. */
export function appendEventsTo(
  paths: VaultPaths,
  events: readonly WikiEvent[],
  now: Date = new Date(),
): AppendedEvents {
  if (events.length === 0) return { redactions: {} };
  const lines = eventLines(events, now, paths.writer?.());
  const file = appendLines(paths, lines.text);
  return { redactions: lines.redactions, file };
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
    const rel = relative(paths.dir, eventLogTargetOr(paths)).split("\\").join("/");
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

/** The log this process appends to, or `meta/events.jsonl` when even that cannot be said. */
function eventLogTargetOr(paths: VaultPaths): string {
  try {
    return eventLogTarget(paths);
  } catch {
    return paths.events;
  }
}
