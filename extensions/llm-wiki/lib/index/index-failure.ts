/**
 * What a failed index write tells its user, for the failures a person must
 * act on: a full disk (`index_no_space`, with the free and the needed space
 * when they can be measured) and an index folder this process may not write
 * (`index_read_only`, with the command that gives the permission back).
 * Also the removal of temporary files a killed writer left in the index folder.
 */
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  rmSync,
  statfsSync,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { generationPaths, type IndexLayout, readCurrent } from "./layout.ts";

const NO_SPACE_CODES = new Set(["ENOSPC", "EDQUOT", "SQLITE_FULL"]);
const READ_ONLY_CODES = new Set([
  "EACCES",
  "EPERM",
  "EROFS",
  "SQLITE_READONLY",
  "SQLITE_READONLY_DIRECTORY",
  "SQLITE_CANTOPEN",
]);

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === "string" ? code : undefined;
}

/** True for a failure to write because the disk (or the user's quota) is full. */
export function isNoSpace(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && NO_SPACE_CODES.has(code);
}

/** True for a failure to write because the place is read-only or not ours. */
export function isReadOnly(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && READ_ONLY_CODES.has(code);
}

/** Bytes of the files under `dir` (0 when it cannot be read). */
function sizeOf(dir: string): number {
  let total = 0;
  try {
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      if (entry.isFile()) total += statSync(join(entry.parentPath, entry.name)).size;
    }
  } catch {
    // Unreadable: what could be counted.
  }
  return total;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

/**
 * A full index takes about this many times the bytes of its pages: the
 * mirror copy, QMD's content table and its full-text index (measured: 4.6
 * to 5.9 on the example vault and on 300 pages of random words).
 */
const INDEX_TO_PAGES = 5;

/** `index_no_space`: how much is free where the index lives, and about how much a rebuild needs. */
export function noSpaceDiagnostic(layout: IndexLayout, vault: VaultPaths): Diagnostic {
  const facts: string[] = [];
  try {
    const fs = statfsSync(layout.root);
    facts.push(`${megabytes(fs.bavail * fs.bsize)} free`);
  } catch {
    // The folder may be gone; the rest still says what to do.
  }
  const live = readCurrent(layout);
  const needed = Math.max(
    live ? sizeOf(generationPaths(layout, live).dir) : 0,
    INDEX_TO_PAGES * sizeOf(vault.wiki),
  );
  // A rebuild writes a whole new generation beside the live one before swapping.
  if (needed > 0) facts.push(`a rebuild needs about ${megabytes(needed)}`);
  return diagnostic(
    "index_no_space",
    "error",
    `no space left on the disk for the index in ${layout.root}${facts.length ? ` (${facts.join("; ")})` : ""}; the partial index was removed and the previous index stays in use`,
    { path: layout.root, repair: "free disk space, then run: llm-wiki reindex" },
  );
}

/** Quotes `path` for a POSIX shell. */
function shellQuote(path: string): string {
  return /^[\w./@:+-]+$/.test(path) ? path : `'${path.replace(/'/g, "'\\''")}'`;
}

/**
 * `index_read_only`: this process may not write the vault's `meta/` folder.
 * Searches still answer from a readable index; `severity` is the caller's
 * (information for a recall, an error for a reindex that cannot run).
 */
export function readOnlyDiagnostic(
  vault: VaultPaths,
  severity: Diagnostic["severity"],
  cause?: unknown,
): Diagnostic {
  const why = cause === undefined ? "" : ` (${errorMessage(cause)})`;
  return diagnostic(
    "index_read_only",
    severity,
    `the index folder ${vault.meta} is not writable by this user${why}; searches answer from the existing index as it is, and it cannot be updated`,
    {
      path: vault.meta,
      repair: `chmod -R u+w ${shellQuote(vault.meta)} && llm-wiki reindex --vault ${shellQuote(vault.root)}`,
    },
  );
}

/** The diagnostic of a write failure a person must act on, or undefined for any other. */
export function indexWriteFailure(
  error: unknown,
  layout: IndexLayout,
  vault: VaultPaths,
): Diagnostic | undefined {
  if (isNoSpace(error)) return noSpaceDiagnostic(layout, vault);
  if (isReadOnly(error)) return readOnlyDiagnostic(vault, "error", error);
  return undefined;
}

/**
 * True when this process may write the vault's index: `meta/` (the lock),
 * `meta/qmd/` and the live generation, or, where they do not exist yet, the
 * folder they would be made in. `access` asks the kernel, so a read-only
 * mount refuses even root.
 */
export function canWriteIndex(vault: VaultPaths, layout: IndexLayout): boolean {
  const live = readCurrent(layout);
  const wanted = existsSync(vault.meta)
    ? [vault.meta, layout.root, ...(live ? [generationPaths(layout, live).dir] : [])]
    : [vault.dir];
  return wanted.every((dir) => {
    try {
      accessSync(dir, constants.W_OK);
      return true;
    } catch (error) {
      return codeOf(error) === "ENOENT";
    }
  });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return codeOf(error) === "EPERM";
  }
}

/**
 * Removes `<file>.tmp-<pid>-<hex>` files of writers that are gone (killed
 * between writing and renaming): `LIVE.tmp-…` and the like would
 * otherwise stay forever. A live process's file is left alone.
 */
export function removeTempLeftovers(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const match = /\.tmp-(\d+)-[0-9a-f]+$/.exec(name);
    if (!match) continue;
    const pid = Number(match[1]);
    if (pid !== process.pid && alive(pid)) continue;
    rmSync(join(dir, name), { force: true });
  }
}
