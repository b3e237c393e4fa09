/**
 * The walk of a vault's `wiki/` folder: every `.md` file with its size and
 * mtime, hidden folders skipped, symbolic links followed only when they stay
 * inside the vault; and each folder's stamp as the walk found it, which
 * tells a later process whether a page was added, removed or renamed since
 * without walking again (see vault/registry-saved.ts).
 */
import { type Dirent, lstatSync, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { type Diagnostic, diagnostic, errorMessage } from "../diagnostics.ts";
import { runWhole, type SliceClock, type Sliced } from "../sliced-work.ts";
import { isInside } from "./fs-safe.ts";
import type { VaultPaths } from "./paths.ts";
import { fileStamp } from "./registry-cache.ts";
import { isReservedWikiFile } from "./reserved-names.ts";

/** A file under `wiki/`: path relative to the vault's `.llm-wiki/` folder, size and mtime. */
export interface WikiFile {
  rel: string;
  abs: string;
  size: number;
  mtimeMs: number;
}

/** A page's id from its vault-relative path (`wiki/concepts/rag.md` → `concepts/rag`). */
export function idOf(rel: string): string {
  return rel.replace(/^wiki\//, "").replace(/\.md$/, "");
}

/**
 * `stat()`, or undefined when it fails: a page removed since its folder was
 * listed is simply not there any more; any other failure is reported.
 */
function statOrSkip(rel: string, stat: () => Stats, diagnostics: Diagnostic[]): Stats | undefined {
  try {
    return stat();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOENT" && code !== "ENOTDIR") {
      diagnostics.push(
        diagnostic("page_unreadable", "error", `${rel}: ${errorMessage(error)}`, { path: rel }),
      );
    }
    return undefined;
  }
}

/**
 * A folder under the vault (`wiki`, `wiki/concepts`) and its `fileStamp`
 * taken before its entries were read: a page added, removed or renamed in
 * it since changes the stamp.
 */
export type FolderStamp = [rel: string, stamp: string];

/** The folder's path relative to the vault's `.llm-wiki/` folder. */
function relOf(paths: VaultPaths, abs: string): string {
  return relative(paths.dir, abs).split(sep).join("/");
}

/**
 * A folder's stamp (taken first) and the pages a walk would list directly in
 * it, when every subfolder is one `known` from a walk; undefined otherwise.
 * A host that wrote pages itself vouches for their folder again with it,
 * without walking every page (see registry-summary-sync.ts).
 */
export function folderPages(
  paths: VaultPaths,
  rel: string,
  known: ReadonlySet<string>,
): { stamp: string; pages: Set<string> } | undefined {
  const abs = join(paths.dir, rel);
  const stamp = fileStamp(abs);
  let entries: Dirent[];
  try {
    entries = readdirSync(abs, { withFileTypes: true });
  } catch {
    return undefined;
  }
  const pages = new Set<string>();
  for (const entry of entries) {
    if (entry.name.startsWith(".")) continue;
    const child = `${rel}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!known.has(child)) return undefined;
    } else if (
      (entry.isFile() || entry.isSymbolicLink()) &&
      entry.name.endsWith(".md") &&
      !isReservedWikiFile(entry.name)
    ) {
      pages.add(child);
    }
  }
  return { stamp, pages };
}

/**
 * Every `.md` file under `wiki/`, in page id order; `folders`, when given,
 * receives the stamp of every folder walked (`wiki/` itself first, "" when
 * it does not exist).
 */
export function walkWiki(
  paths: VaultPaths,
  diagnostics: Diagnostic[],
  folders?: FolderStamp[],
): WikiFile[] {
  return runWhole((clock) => walkWikiSteps(paths, diagnostics, folders, clock));
}

/** `walkWiki` as sliced work: yields when `clock` is due (a stat per page: seconds at 100k pages). */
export function* walkWikiSteps(
  paths: VaultPaths,
  diagnostics: Diagnostic[],
  folders: FolderStamp[] | undefined,
  clock: SliceClock,
): Sliced<WikiFile[]> {
  const out: WikiFile[] = [];
  let vaultReal: string;
  try {
    vaultReal = realpathSync(paths.dir);
  } catch {
    folders?.push([relOf(paths, paths.wiki), ""]);
    return out;
  }
  // Paths are built by joining names, not by `relative()` for each of 100k
  // entries: a listed name holds no separator, so the result is the same.
  const visit = function* (dir: string, dirRel: string): Sliced<void> {
    // Before the listing: whatever changes in the folder after this bumps its stamp.
    folders?.push([dirRel, fileStamp(dir)]);
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      if (clock.due()) yield;
      if (entry.name.startsWith(".")) continue;
      const abs = `${dir}${sep}${entry.name}`;
      const rel = `${dirRel}/${entry.name}`;
      // `index.md` and `log.md` are views (OKF's reserved names), never pages.
      if (isReservedWikiFile(entry.name) && !entry.isDirectory()) continue;
      if (entry.isSymbolicLink()) {
        let target: string;
        try {
          target = realpathSync(abs);
        } catch {
          diagnostics.push(
            diagnostic("page_broken_symlink", "warning", `${rel}: broken symbolic link`, {
              path: rel,
            }),
          );
          continue;
        }
        if (!isInside(vaultReal, target)) {
          diagnostics.push(
            diagnostic(
              "page_path_escape",
              "error",
              `${rel}: symbolic link points outside the vault`,
              {
                path: rel,
              },
            ),
          );
          continue;
        }
        const st = statOrSkip(rel, () => statSync(target), diagnostics);
        // Linked folders inside the vault would list the same pages twice.
        if (st?.isFile() && entry.name.endsWith(".md")) {
          out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
        }
        continue;
      }
      if (entry.isDirectory()) yield* visit(abs, rel);
      else if (entry.isFile() && entry.name.endsWith(".md")) {
        const st = statOrSkip(rel, () => lstatSync(abs), diagnostics);
        if (st) out.push({ rel, abs, size: st.size, mtimeMs: st.mtimeMs });
      }
    }
  };
  yield* visit(paths.wiki, relOf(paths, paths.wiki));
  // By id, not path: `a.md` sorts after `a-b.md`, yet `a` comes before `a-b`.
  const keyed = out.map((file) => ({ file, id: idOf(file.rel) }));
  keyed.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return keyed.map(({ file }) => file);
}
