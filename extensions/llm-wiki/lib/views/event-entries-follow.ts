/**
 * `readLogEntries` for a process that reads the same event log again and
 * again (views following writes): the log is append-only, so each read
 * parses only the lines appended since the last one, and gives what a full
 * read gives. Anything else — the file replaced, shrunk, its bytes before
 * the last read point changed, or grown past the size a full read keeps
 * only the tail of — falls back to a full read.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { EVENT_LOG_MAX_BYTES } from "../temporal/event-log.ts";
import {
  finishLogRead,
  type LogEntry,
  type LogRead,
  logFileRel,
  type ParsedLog,
  parseLogLines,
  readLogEntries,
} from "./event-entries.ts";

/** Bytes before the read point kept to check that the file was only appended to. */
const GUARD_BYTES = 256;

interface FollowState {
  ino: number;
  dev: number;
  /** Offset just past the last newline parsed. */
  consumed: number;
  /** The file's bytes just before `consumed`. */
  guard: Buffer;
  /** Newlines before `consumed`: the next line's number is this plus one. */
  lines: number;
  parsed: ParsedLog;
}

function readRange(fd: number, start: number, end: number): Buffer {
  const buffer = Buffer.alloc(Math.max(0, end - start));
  let read = 0;
  while (read < buffer.length) {
    const n = readSync(fd, buffer, read, buffer.length - read, start + read);
    if (n === 0) break;
    read += n;
  }
  return buffer.subarray(0, read);
}

function countNewlines(buffer: Buffer): number {
  let n = 0;
  for (let i = buffer.indexOf(10); i !== -1; i = buffer.indexOf(10, i + 1)) n += 1;
  return n;
}

/** A reader of event logs that remembers what it parsed; one per log path. */
export function createLogFollower(): { read: (path: string) => LogRead } {
  let state: FollowState | undefined;

  const full = (path: string, fd: number, size: number, ino: number, dev: number): LogRead => {
    state = undefined;
    if (size > EVENT_LOG_MAX_BYTES) return readLogEntries(path);
    return extend(fd, size, {
      ino,
      dev,
      consumed: 0,
      guard: Buffer.alloc(0),
      lines: 0,
      parsed: { entries: [], internal: 0, bad: 0, diagnostics: [], seen: new Set() },
    });
  };

  /** Parses from `from.consumed` to `size`; keeps whole lines as the new state. */
  let rel = "meta/events.jsonl";
  const extend = (fd: number, size: number, from: FollowState): LogRead => {
    const bytes = readRange(fd, from.consumed, size);
    const lastNewline = bytes.lastIndexOf(10);
    const whole = lastNewline === -1 ? Buffer.alloc(0) : bytes.subarray(0, lastNewline + 1);
    const rest = lastNewline === -1 ? bytes : bytes.subarray(lastNewline + 1);
    let parsed = from.parsed;
    if (whole.length > 0) {
      // The piece after the final newline is empty: whole lines only.
      const added = parseLogLines(
        whole.toString("utf8").split("\n").slice(0, -1),
        from.lines + 1,
        from.parsed.bad,
        from.parsed.seen,
        rel,
      );
      parsed = merge(from.parsed, added);
    }
    const consumed = from.consumed + whole.length;
    const guardStart = Math.max(0, consumed - GUARD_BYTES);
    state = {
      ino: from.ino,
      dev: from.dev,
      consumed,
      guard: readRange(fd, guardStart, consumed),
      lines: from.lines + countNewlines(whole),
      parsed,
    };
    if (rest.length === 0) return finishLogRead(parsed, rel);
    // A last line without its newline (a write in progress, or a final event
    // without one) is read as a full read reads it, and parsed again next time.
    // Parsed again next time: its sight is not kept.
    const tail = parseLogLines(
      [rest.toString("utf8")],
      state.lines + 1,
      parsed.bad,
      new Set(parsed.seen),
      rel,
    );
    return finishLogRead(merge(parsed, tail), rel);
  };

  return {
    read(path) {
      rel = logFileRel(path);
      let fd: number;
      try {
        fd = openSync(path, "r");
      } catch {
        state = undefined;
        return readLogEntries(path);
      }
      try {
        const st = fstatSync(fd);
        const size = st.size;
        const prev = state;
        if (
          prev === undefined ||
          prev.ino !== st.ino ||
          prev.dev !== st.dev ||
          size < prev.consumed ||
          size > EVENT_LOG_MAX_BYTES ||
          !readRange(fd, prev.consumed - prev.guard.length, prev.consumed).equals(prev.guard)
        ) {
          return full(path, fd, size, st.ino, st.dev);
        }
        return extend(fd, size, prev);
      } catch {
        state = undefined;
        return readLogEntries(path);
      } finally {
        closeSync(fd);
      }
    },
  };
}

/** `a` then `b` (whose `bad` already counts `a`'s). */
function merge(a: ParsedLog, b: ParsedLog): ParsedLog {
  const entries: LogEntry[] = a.entries.length === 0 ? b.entries : a.entries.concat(b.entries);
  return {
    entries,
    internal: a.internal + b.internal,
    bad: b.bad,
    diagnostics: a.diagnostics.concat(b.diagnostics),
    seen: b.seen,
  };
}
