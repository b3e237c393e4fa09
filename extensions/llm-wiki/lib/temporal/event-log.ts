/**
 * Reading the append-only event log for time: each event's timestamp, kind
 * and the page it names, from every file of the log (`meta/events.jsonl`
 * and the clones' logs, vault/event-log-files.ts) ordered by time. Each file
 * is read once per process and then only its new bytes (the log is only
 * ever appended to); a line that does not parse, or has no valid timestamp,
 * is skipped and counted, so a reader can say the log holds lines it could
 * not read (a write cut short by a full disk) rather than drop them unseen. A line seen twice (a git
 * merge can bring one back from both sides) is one event.
 */
import { closeSync, openSync, readSync, statSync } from "node:fs";
import { firstSight, type SeenLines } from "../vault/event-lines-seen.ts";
import { eventLogFiles } from "../vault/event-log-files.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** One event as time sees it. */
export interface TimedEvent {
  /** ISO timestamp as logged. */
  ts: string;
  kind: string;
  /** The wiki page it names (`id` or `page` of the event, a `folder/slug` id). */
  page?: string;
  /** Any other id it carries (a source packet's `SRC-…`). */
  id?: string;
  title?: string;
  /** `"internal"` for an event only ranking reads (views-hidden, see event-entries.ts). */
  visibility?: string;
  /** The teammate and the agent that logged it (vault/writer.ts), when recorded. */
  by?: string;
  agent?: string;
  /** The event's position in the log, ordered by time (a later line of one file is a later event). */
  seq: number;
}

/** A log larger than this is read from its tail only: the newest events matter. */
export const EVENT_LOG_MAX_BYTES = 32 * 1024 * 1024;

interface Cached {
  size: number;
  mtimeMs: number;
  ino: number;
  events: TimedEvent[];
  /** Whole lines that were not events. */
  malformed: number;
  /** Bytes of a last line with no newline yet (a write in progress). */
  partial: string;
  /** The log's last bytes as read: a log that grew but changed before them (a merge) is read anew. */
  guard: string;
  /** Lines taken so far: a line a merge brought twice is one event. */
  seen: SeenLines;
}

/** Bytes before the read point compared to tell an append from a merge that inserted lines. */
const GUARD_BYTES = 256;

const cache = new Map<string, Cached>();

const PAGE_ID = /^[^\s/.][^\s/]*(?:\/[^\s/.][^\s/]*)+$/u;

/** Kinds of @zosmaai/pi-llm-wiki whose page lies under `sources/`, named by its `slug`. */
const OLDER_SLUG_KINDS: ReadonlySet<string> = new Set(["observe", "retro"]);
/** Its kinds naming a source packet by `source_id`, whose page is `sources/<source_id>`. */
const OLDER_SOURCE_KINDS: ReadonlySet<string> = new Set(["capture", "ingest"]);

/**
 * The page an event of @zosmaai/pi-llm-wiki names, in its own fields:
 * `path` (`ensure_page`), `slug` (`observe`, `retro`) or `source_id`
 * (`capture`, `ingest`, whose skeleton page is named after the packet).
 */
function olderPage(e: Record<string, unknown>): string | undefined {
  if (typeof e.path === "string") return e.path;
  if (typeof e.slug === "string" && OLDER_SLUG_KINDS.has(String(e.kind)))
    return `sources/${e.slug}`;
  if (typeof e.source_id === "string" && OLDER_SOURCE_KINDS.has(String(e.kind)))
    return `sources/${e.source_id}`;
  return undefined;
}

function parseLine(line: string, seq: number): TimedEvent | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return undefined;
  const e = value as Record<string, unknown>;
  // `timestamp` alone: a line @zosmaai/pi-llm-wiki wrote.
  const ts = typeof e.ts === "string" ? e.ts : e.timestamp;
  if (typeof ts !== "string" || typeof e.kind !== "string") return undefined;
  if (Number.isNaN(Date.parse(ts))) return undefined;
  const out: TimedEvent = { ts, kind: e.kind, seq };
  const page = [e.page, e.id, olderPage(e)].find((v) => typeof v === "string" && PAGE_ID.test(v));
  if (typeof page === "string") out.page = page;
  if (typeof e.id === "string" && e.id !== page) out.id = e.id;
  else if (typeof e.source_id === "string" && e.id === undefined) out.id = e.source_id;
  if (typeof e.title === "string") out.title = e.title;
  if (typeof e.visibility === "string") out.visibility = e.visibility;
  if (typeof e.by === "string") out.by = e.by;
  if (typeof e.agent === "string") out.agent = e.agent;
  return out;
}

function readFrom(path: string, start: number, end: number): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(end - start);
    let read = 0;
    while (read < buffer.length) {
      const n = readSync(fd, buffer, read, buffer.length - read, start + read);
      if (n === 0) break;
      read += n;
    }
    return buffer.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
}

/** The `GUARD_BYTES` before `size` (base64), or "" when they cannot be read. */
function guardAt(path: string, size: number): string {
  try {
    return Buffer.from(readFrom(path, Math.max(0, size - GUARD_BYTES), size), "utf8").toString(
      "base64",
    );
  } catch {
    return "";
  }
}

/** The log as read: its events, and how many whole lines were not events. */
export interface EventLogRead {
  events: readonly TimedEvent[];
  malformed: number;
}

/** The vault's events, oldest first; see `readEventLog`. */
export function readTimedEvents(paths: VaultPaths): readonly TimedEvent[] {
  return readEventLog(paths).events;
}

interface Combined {
  parts: readonly EventLogRead[];
  read: EventLogRead;
}

const combined = new Map<string, Combined>();
const EMPTY: EventLogRead = { events: [], malformed: 0 };

/**
 * The vault's events from every file of its log, oldest first (by time;
 * within one file, by line), numbered in that order, and the count of whole
 * lines that were not events.
 */
export function readEventLog(paths: VaultPaths): EventLogRead {
  const files = eventLogFiles(paths);
  if (files.length === 0) {
    combined.delete(paths.dir);
    return EMPTY;
  }
  const parts = files.map(readEventLogFile);
  const prev = combined.get(paths.dir);
  if (
    prev !== undefined &&
    prev.parts.length === parts.length &&
    prev.parts.every((p, i) => p === parts[i])
  ) {
    return prev.read;
  }
  const all: Array<{ e: TimedEvent; t: number; file: number }> = [];
  let malformed = 0;
  parts.forEach((part, file) => {
    malformed += part.malformed;
    for (const e of part.events) all.push({ e, t: Date.parse(e.ts), file });
  });
  all.sort((a, b) => a.t - b.t || a.file - b.file || a.e.seq - b.e.seq);
  const read: EventLogRead = { events: all.map((x, seq) => ({ ...x.e, seq })), malformed };
  combined.set(paths.dir, { parts, read });
  return read;
}

/**
 * One log file's events in file order (oldest first), and the count of
 * whole lines that were not events. A file that grew since the last call is
 * read from where that call stopped; one that shrank or was replaced is
 * read again (within `EVENT_LOG_MAX_BYTES` of its end).
 */
export function readEventLogFile(path: string): EventLogRead {
  let stat: ReturnType<typeof statSync>;
  try {
    stat = statSync(path);
  } catch {
    cache.delete(path);
    return { events: [], malformed: 0 };
  }
  // Not a file (a folder in its place), or unreadable: no events to date by,
  // which is no reason to fail a recall.
  if (!stat.isFile()) {
    cache.delete(path);
    return { events: [], malformed: 0 };
  }
  const prev = cache.get(path);
  if (prev && prev.size === stat.size && prev.mtimeMs === stat.mtimeMs && prev.ino === stat.ino) {
    return prev;
  }
  // Same file grown: an append, unless the bytes before the read point
  // changed (git may give a merged log the inode it freed).
  const grew =
    prev !== undefined &&
    prev.ino === stat.ino &&
    stat.size > prev.size &&
    guardAt(path, prev.size) === prev.guard;
  const start = grew ? prev.size : Math.max(0, stat.size - EVENT_LOG_MAX_BYTES);
  let tail: string;
  try {
    tail = readFrom(path, start, stat.size);
  } catch {
    cache.delete(path);
    return { events: [], malformed: 0 };
  }
  const text = (grew ? prev.partial : "") + tail;
  const lines = text.split("\n");
  const partial = lines.pop() ?? "";
  // A tail read starts mid-line: its first piece is not a whole event.
  if (!grew && start > 0) lines.shift();
  const events = grew ? [...prev.events] : [];
  let malformed = grew ? prev.malformed : 0;
  const seen: SeenLines = grew ? prev.seen : new Set();
  let seq = events.length;
  for (const line of lines) {
    if (line.trim() === "" || !firstSight(seen, line)) continue;
    const e = parseLine(line, seq);
    if (e) {
      events.push(e);
      seq += 1;
    } else malformed += 1;
  }
  const read: Cached = {
    size: stat.size,
    mtimeMs: stat.mtimeMs,
    ino: stat.ino,
    events,
    malformed,
    partial,
    guard: guardAt(path, stat.size),
    seen,
  };
  cache.set(path, read);
  return read;
}
