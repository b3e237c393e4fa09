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
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";

/**
 * Creates the folder `path` and any missing parents, each with one mkdir.
 * Node's recursive mkdir retries forever where a parent exists but refuses a
 * child with ENOENT (`/proc/self`); here such a refusal is the error it is, and
 * a file in the way is ENOTDIR.
 */
export function makeDirs(path: string): void {
  const missing: string[] = [];
  let at = resolve(path);
  for (;;) {
    let isDir: boolean;
    try {
      isDir = statSync(at).isDirectory();
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      const parent = dirname(at);
      if (parent === at) throw error;
      missing.push(at);
      at = parent;
      continue;
    }
    if (!isDir) {
      throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${resolve(path)}'`), {
        code: "ENOTDIR",
        path: at,
      });
    }
    break;
  }
  for (const dir of missing.reverse()) {
    try {
      mkdirSync(dir);
    } catch (error) {
      // Made meanwhile by someone else: fine, if it is a folder.
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || !statSync(dir).isDirectory())
        throw error;
    }
  }
}

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
  makeDirs(dirname(path));
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
  makeDirs(dirname(path));
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
