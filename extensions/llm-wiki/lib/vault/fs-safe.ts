/**
 * File writes that never lose data: atomic replacement (temporary file, then
 * rename) and exclusive creation (fails when the target exists), plus the
 * containment check that keeps every path inside its vault.
 */
import { randomBytes } from "node:crypto";
import { linkSync, mkdirSync, realpathSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";

function tempPathFor(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Replaces `path` atomically: readers see the old or the new file, never half of one. */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  writeFileSync(tmp, content);
  try {
    renameSync(tmp, path);
  } catch (error) {
    unlinkSync(tmp);
    throw error;
  }
}

/**
 * Creates `path` with `content` only if nothing is there yet; returns false
 * (and writes nothing) when it exists. The hard link makes the creation both
 * exclusive and atomic: a concurrent reader never sees a partial page.
 */
export function createFileExclusive(path: string, content: string | Uint8Array): boolean {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  writeFileSync(tmp, content);
  try {
    linkSync(tmp, path);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    unlinkSync(tmp);
  }
}

/** True when `child` is `parent` or lies below it (lexically). */
export function isInside(parent: string, child: string): boolean {
  const rel = relative(resolve(parent), resolve(child));
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}

/** True when the real location of `child` (symlinks resolved) lies inside `parent`'s. */
export function isReallyInside(parent: string, child: string): boolean {
  try {
    return isInside(realpathSync(parent), realpathSync(child));
  } catch {
    return false;
  }
}
