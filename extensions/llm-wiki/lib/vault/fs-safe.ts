/**
 * File writes that never lose data: atomic replacement (temporary file, then
 * rename) and exclusive creation (fails when the target exists), plus the
 * containment check that keeps every path inside its vault.
 */
import { randomBytes } from "node:crypto";
import {
  linkSync,
  mkdirSync,
  realpathSync,
  renameSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";

function tempPathFor(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`;
}

/** Writes the temporary file `tmp`; a half-written one (a full disk, say) is removed. */
function writeTemp(tmp: string, content: string | Uint8Array): void {
  try {
    writeFileSync(tmp, content);
  } catch (error) {
    rmSync(tmp, { force: true });
    throw error;
  }
}

/** Replaces `path` atomically: readers see the old or the new file, never half of one. */
export function writeFileAtomic(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = tempPathFor(path);
  writeTemp(tmp, content);
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
  writeTemp(tmp, content);
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
