/**
 * File writes that never lose data: atomic replacement (temporary file, then
 * rename) and exclusive creation (fails when the target exists), plus the
 * containment check that keeps every path inside its vault.
 *
 * None of them writes through a symbolic link. A repository can commit a
 * link anywhere llm-wiki writes (`.pi` to `~/.pi/agent`, `.llm-wiki/outputs`
 * to a shell's start-up folder), and a write through it lands in a file the
 * project never owned. So the file written and, below the folder the caller
 * names as the area it owns (`within`: a project's root, a vault's folder,
 * an export's destination), every folder on the way must be what it seems;
 * a link is refused with `write_through_link`, naming it. The area itself
 * may be a link: the user made it (a personal vault kept elsewhere).
 */
import { randomBytes } from "node:crypto";
import {
  linkSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { diagnostic, WikiError } from "../diagnostics.ts";
import type { VaultPaths } from "./paths.ts";

/**
 * The area of `vault` its writes stay below: a project vault's repository
 * root, so a committed `.llm-wiki` link is refused too; a personal vault's
 * own folder, which may be the user's link.
 */
export function vaultArea(vault: Pick<VaultPaths, "kind" | "root" | "dir">): string {
  return vault.kind === "project" ? vault.root : vault.dir;
}

/**
 * The first symbolic link on the way to `path`, outermost first: a folder
 * below `within` (when given, and when `path` lies below it) or `path`
 * itself; undefined when there is none. Missing entries are not links: the
 * write makes them as real folders.
 */
export function linkOnTheWay(path: string, within?: string): string | undefined {
  const target = resolve(path);
  const steps = [target];
  if (within !== undefined) {
    const root = resolve(within);
    if (target === root) return undefined;
    for (let at = dirname(target); at !== root && isInside(root, at); at = dirname(at)) {
      steps.push(at);
    }
  }
  for (const step of steps.reverse()) {
    try {
      if (lstatSync(step).isSymbolicLink()) return step;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") return undefined;
      throw error;
    }
  }
  return undefined;
}

/** The refusal of a write to `path` through the link `link`, naming both and where it points. */
export function writeThroughLinkError(path: string, link: string): WikiError {
  let points = "";
  try {
    points = ` (it points to ${readlinkSync(link)})`;
  } catch {
    // Gone meanwhile: the refusal stands, without the target.
  }
  return new WikiError(
    diagnostic(
      "write_through_link",
      "error",
      `${path} was not written: ${link} is a symbolic link${points}, and llm-wiki never writes through one (a link committed to a repository could send the write into any file the user owns)`,
      {
        path: link,
        repair: `replace the link ${link} with the folder or file itself (or remove it), then run the command again`,
      },
    ),
  );
}

/** Throws `write_through_link` when a link lies on the way to `path` (see `linkOnTheWay`). */
export function refuseLinkOnTheWay(path: string, within?: string): void {
  const link = linkOnTheWay(path, within);
  if (link !== undefined) throw writeThroughLinkError(path, link);
}

/**
 * Creates the folder `path` and any missing parents, each with one mkdir.
 * Node's recursive mkdir retries forever where a parent exists but refuses a
 * child with ENOENT (`/proc/self`); here such a refusal is the error it is, and
 * a file in the way is ENOTDIR. With `within`, a link on the way is refused
 * first (see `linkOnTheWay`).
 */
export function makeDirs(path: string, within?: string): void {
  if (within !== undefined) refuseLinkOnTheWay(path, within);
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

/**
 * Replaces `path` atomically: readers see the old or the new file, never half
 * of one. A link at `path` (which the rename would silently replace) or on
 * the way below `within` is refused.
 */
export function writeFileAtomic(path: string, content: string | Uint8Array, within?: string): void {
  refuseLinkOnTheWay(path, within);
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
 * exclusive and atomic: a concurrent reader never sees a partial page. A
 * link on the way below `within` is refused; a link at `path` is something
 * there, so nothing is written (the hard link never follows it).
 */
export function createFileExclusive(
  path: string,
  content: string | Uint8Array,
  within?: string,
): boolean {
  if (within !== undefined) refuseLinkOnTheWay(dirname(path), within);
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
