/**
 * Reads an agent's session transcript (JSON Lines, or one JSON document)
 * within fixed bounds, for `llm-wiki hook stop|session-end|pre-compact`.
 * The path comes from hook input, so it is treated as hostile: it must be
 * absolute; the file is opened read-only without following a link at its
 * last component and without blocking, and only a regular file is read (a
 * FIFO, a device or a folder is refused before a byte is read). A file past
 * `MAX_BYTES` is read as its head (where the task is) and its tail (where
 * the outcome is); at most `MAX_LINES` lines are parsed, and a line that is
 * not JSON (a truncated last line, hostile bytes) is skipped and counted.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { isAbsolute } from "node:path";

/** Most bytes of one transcript read. */
export const MAX_BYTES = 16 * 1024 * 1024;
/** Of a larger file: this much of its start, the rest of `MAX_BYTES` from its end. */
export const HEAD_BYTES = 2 * 1024 * 1024;
/** Most lines parsed. */
export const MAX_LINES = 200_000;
/** A single line longer than this is skipped unparsed (a pasted blob, a binary). */
export const MAX_LINE_BYTES = 4 * 1024 * 1024;

export interface TranscriptRead {
  /** Parsed JSON values, in file order (head, then tail). */
  records: unknown[];
  /** Lines that were not JSON, too long, or past `MAX_LINES`. */
  skipped: number;
  /** True when the middle of a large file was not read. */
  cut: boolean;
}

/** Why a transcript was not read at all. */
export class TranscriptRefused extends Error {
  override name = "TranscriptRefused";
}

function readAt(fd: number, position: number, length: number): Buffer {
  const buffer = Buffer.alloc(length);
  let done = 0;
  while (done < length) {
    const n = readSync(fd, buffer, done, length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return buffer.subarray(0, done);
}

/** Splits bytes into lines; `dropFirst`/`dropLast` leave out a line the cut went through. */
function linesOf(bytes: Buffer, dropFirst: boolean, dropLast: boolean): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (let i = bytes.indexOf(10); i !== -1; i = bytes.indexOf(10, start)) {
    out.push(bytes.subarray(start, i));
    start = i + 1;
  }
  if (start < bytes.length) out.push(bytes.subarray(start));
  if (dropFirst) out.shift();
  if (dropLast && bytes[bytes.length - 1] !== 10) out.pop();
  return out;
}

/**
 * Reads the transcript at `path` within the bounds. Throws
 * `TranscriptRefused` for a path or file it will not read.
 */
export function readTranscript(path: string): TranscriptRead {
  if (!isAbsolute(path) || path.includes("\0"))
    throw new TranscriptRefused("transcript_path is not an absolute path");
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new TranscriptRefused(
      code === "ELOOP"
        ? "transcript_path is a symbolic link; not followed"
        : `cannot open transcript (${code ?? "error"})`,
    );
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new TranscriptRefused("transcript_path is not a regular file");
    const size = stat.size;
    const chunks: Array<{ bytes: Buffer; dropFirst: boolean; dropLast: boolean }> =
      size <= MAX_BYTES
        ? [{ bytes: readAt(fd, 0, size), dropFirst: false, dropLast: false }]
        : [
            { bytes: readAt(fd, 0, HEAD_BYTES), dropFirst: false, dropLast: true },
            {
              bytes: readAt(fd, size - (MAX_BYTES - HEAD_BYTES), MAX_BYTES - HEAD_BYTES),
              dropFirst: true,
              dropLast: false,
            },
          ];
    const records: unknown[] = [];
    let skipped = 0;
    let lines = 0;
    const whole = chunks.length === 1 ? chunks[0]?.bytes : undefined;
    // One JSON document (a saved chat) rather than JSON Lines.
    if (whole && whole.length <= MAX_LINE_BYTES) {
      const text = whole.toString("utf8").trim();
      if (text.startsWith("{") && !text.includes("\n{")) {
        try {
          return { records: [JSON.parse(text)], skipped: 0, cut: false };
        } catch {
          // Not one document: read as lines below.
        }
      }
    }
    for (const chunk of chunks) {
      for (const line of linesOf(chunk.bytes, chunk.dropFirst, chunk.dropLast)) {
        if (line.length === 0) continue;
        lines += 1;
        if (lines > MAX_LINES || line.length > MAX_LINE_BYTES) {
          skipped += 1;
          continue;
        }
        try {
          records.push(JSON.parse(line.toString("utf8")));
        } catch {
          skipped += 1;
        }
      }
    }
    return { records, skipped, cut: chunks.length > 1 };
  } finally {
    closeSync(fd);
  }
}
