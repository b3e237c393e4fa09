/**
 * Stage append of the event write path (events.ts): whole lines added to
 * the end of `meta/events.jsonl` in one `write`, so concurrent appends stay
 * whole and another process's lines never land between a batch's. The log
 * is never a link, nor reached through one.
 *
 * A write cut short (a full disk) can leave a last line without its
 * newline. The log is never repaired by rewriting it: the next append
 * starts on a fresh line instead, so the torn line stays alone (readers
 * count it) and never swallows the event after it.
 */
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirs, refuseLinkOnTheWay, vaultArea, writeThroughLinkError } from "./fs-safe.ts";
import type { VaultPaths } from "./paths.ts";

/** `O_NOFOLLOW` where the platform has it: the log itself is never a link. */
const NO_FOLLOW = constants.O_NOFOLLOW ?? 0;

/** True when the open log `fd` of `size` bytes ends inside a line (a torn last write). */
function endsMidLine(fd: number, size: number): boolean {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  return readSync(fd, last, 0, 1, size - 1) === 1 && last[0] !== 0x0a;
}

/**
 * Appends `text` (whole lines) to the log at `paths.events`, on a fresh
 * line. Throws `write_through_link` for a link on the way, or the file
 * system's error.
 */
export function appendLines(paths: VaultPaths, text: string): void {
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
