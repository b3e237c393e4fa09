/**
 * Stage append of the event write path (events.ts): whole lines added to
 * the end of the log this process appends to (`meta/events.jsonl`, or in a
 * git work tree this clone's own file, see clone-log.ts) in one `write`, so concurrent appends stay
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
import { eventLogTarget } from "./clone-log.ts";
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
 * Appends `text` (whole lines) to the log this process writes (see
 * `eventLogTarget`), on a fresh line; returns the file's absolute path.
 * Throws `write_through_link` for a link on the way, or the file system's
 * error.
 */
export function appendLines(paths: VaultPaths, text: string): string {
  const area = vaultArea(paths);
  const log = eventLogTarget(paths);
  makeDirs(dirname(log), area);
  refuseLinkOnTheWay(log, area);
  let fd: number;
  try {
    fd = openSync(
      log,
      constants.O_RDWR | constants.O_APPEND | constants.O_CREAT | NO_FOLLOW,
      0o666,
    );
  } catch (error) {
    // Made a link since the check above.
    if ((error as NodeJS.ErrnoException).code === "ELOOP") {
      throw writeThroughLinkError(log, log);
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
  return log;
}
