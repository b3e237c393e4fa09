/**
 * File writes into a folder this process has just created for itself and no
 * reader looks into yet (a rebuild's new generation, private until the
 * pointer swap). Each file is created exclusively (`wx`: O_CREAT|O_EXCL),
 * which never follows a symbolic link and never replaces anything, instead
 * of written to a temporary file and renamed over: no reader can see a
 * half-written file there, and a failed build removes the whole folder.
 */
import { lstatSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { makeDirs, writeThroughLinkError } from "../vault/fs-safe.ts";

/** A writer of new files below folders it makes once each. */
export function freshFileWriter(): (path: string, content: string) => void {
  const made = new Set<string>();
  return (path, content) => {
    const dir = dirname(path);
    if (!made.has(dir)) {
      makeDirs(dir);
      made.add(dir);
    }
    try {
      writeFileSync(path, content, { flag: "wx" });
    } catch (error) {
      // Something is there already: in a folder only this build wrote, a
      // planted link is refused as every write refuses one; anything else fails the build.
      if ((error as NodeJS.ErrnoException).code === "EEXIST" && isLink(path))
        throw writeThroughLinkError(path, path);
      throw error;
    }
  };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
