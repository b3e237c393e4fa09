/**
 * A vault whose own layout holds a symbolic link is not opened. A project
 * vault arrives with a repository anyone can commit to, and a committed
 * link would make llm-wiki read or write where the link points: the index
 * and the registry's cache written into another folder, the event log
 * appended to a shell's start-up file (a logged title inside `$(…)` would
 * then run at the next login), pages indexed from outside the vault and
 * shown to the agent. So every entry of `.llm-wiki/` that llm-wiki itself
 * names — and, for a project vault, `.llm-wiki/` itself — must be what it
 * seems, not a link; page files are checked one by one where they are read
 * (`wiki-walk.ts`) and written (`fs-safe.ts`). A personal vault's own
 * folder may be a link: the user made it, in their home.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import type { VaultPaths } from "./paths.ts";

/** Entries under `.llm-wiki/` that llm-wiki reads, writes or appends to. */
const NAMED = [
  "config.json",
  "wiki",
  "raw",
  "raw/sources",
  "meta",
  "meta/cache",
  "meta/cache/registry",
  "meta/qmd",
  "meta/events.jsonl",
  "meta/events",
  "meta/backlinks.json",
  "meta/registry.json",
  "outputs",
  "templates",
  "templates/pages",
  "WIKI_SCHEMA.md",
] as const;

/** Folders whose direct children are folders llm-wiki writes into (page types, source packets). */
const PARENTS = ["wiki", "raw/sources"] as const;

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * The first entry of the vault's layout that is a symbolic link, relative
 * to the vault's root (`.llm-wiki/meta/events.jsonl`), or undefined.
 */
export function symlinkInLayout(paths: VaultPaths): string | undefined {
  const shown = (abs: string) => relative(paths.root, abs) || ".";
  if (paths.kind === "project" && isLink(paths.dir)) return shown(paths.dir);
  for (const rel of NAMED) {
    const abs = join(paths.dir, rel);
    if (isLink(abs)) return shown(abs);
  }
  for (const rel of PARENTS) {
    let names: string[];
    try {
      names = readdirSync(join(paths.dir, rel));
    } catch {
      continue;
    }
    for (const name of names) {
      const abs = join(paths.dir, rel, name);
      // A page file that is a link is refused where pages are read; a folder link is here.
      if (isLink(abs) && !name.endsWith(".md")) return shown(abs);
    }
  }
  return undefined;
}

/** Why the vault at `paths` is not opened, and what to do about it. */
export function symlinkedLayoutDiagnostic(paths: VaultPaths, link: string): Diagnostic {
  return diagnostic(
    "vault_layout_symlink",
    "error",
    `${paths.kind} vault at ${paths.root} not opened: ${link} is a symbolic link, and llm-wiki never reads or writes a vault through one (a link committed to a repository could send the index, the event log or pages anywhere)`,
    {
      path: link,
      repair: `replace the link ${link} with the folder or file itself (ls -l shows where it points), then run llm-wiki status`,
    },
  );
}
