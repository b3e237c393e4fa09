/**
 * The two files that let a team share a vault through git with a plain
 * `git pull` (docs/team.md), both committed with the vault:
 *
 * - `.llm-wiki/.gitignore`: what every clone derives for itself (index,
 *   caches, the generated views, digests), so no pull meets two versions;
 * - `.llm-wiki/.gitattributes`: the event log merges with git's own
 *   line-union merge, so both sides of a merge keep their events. Nothing
 *   is registered in `.git/config` and no hook is installed: a fresh clone
 *   merges right without running anything. In git each clone appends to
 *   its own files (clone-log.ts), which a teammate never changes; the union
 *   covers `meta/events.jsonl` (older vaults, `@zosmaai/pi-llm-wiki`) and a
 *   clone's file that two of its own branches both committed.
 *
 * A missing file is created; one this tool wrote (its first line is ours)
 * gets the lines a newer version added; anyone else's is left alone. In a
 * vault `@zosmaai/pi-llm-wiki` keeps too, the views it writes are not
 * ignored: they stay as that system has them.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createFileExclusive, writeFileAtomic } from "./fs-safe.ts";
import { olderSystemKeepsVault } from "./older-system.ts";
import type { VaultPaths } from "./paths.ts";

const IGNORE_HEADER = "# Derived by llm-wiki; rebuildable, never authoritative.";
const ATTRIBUTES_HEADER =
  "# Written by llm-wiki: both sides of a merge keep their events (docs/team.md).";

/**
 * Derived files a vault's git repository should not track (the event log
 * stays tracked). The generated views are among them: every clone writes
 * its own from the pages and the log, so teammates' pulls never meet two
 * versions of them.
 */
export const VAULT_GITIGNORE = [
  IGNORE_HEADER,
  "meta/qmd/",
  "meta/cache/",
  "meta/registry.json",
  "meta/backlinks.json",
  "meta/*.lock",
  "# Generated views and digests: each clone writes its own (llm-wiki rebuild-meta).",
  "meta/lint-report.md",
  "outputs/",
  "meta/index.md",
  "meta/log.md",
  "wiki/**/index.md",
  "wiki/**/log.md",
  "",
].join("\n");

/** The views `@zosmaai/pi-llm-wiki` writes too: in a vault it keeps, they stay as it has them. */
const SHARED_VIEW_LINES = new Set([
  "meta/index.md",
  "meta/log.md",
  "wiki/**/index.md",
  "wiki/**/log.md",
]);

/** The .gitignore for a vault the older system keeps too: its views stay tracked as it has them. */
const OLDER_SYSTEM_GITIGNORE = VAULT_GITIGNORE.split("\n")
  .filter((line) => !SHARED_VIEW_LINES.has(line))
  .join("\n");

/**
 * How git merges what the tool appends: the event log is a set of lines,
 * so a merge keeps both sides' lines; readers order events by time and
 * take a line seen twice once.
 */
export const VAULT_GITATTRIBUTES = `${ATTRIBUTES_HEADER}\nmeta/events.jsonl merge=union\nmeta/events/*.jsonl merge=union\n`;

/** What `ensureTeamFiles` did, by vault-relative path. */
export interface TeamFilesResult {
  created: string[];
  /** Files of ours that gained the lines of a newer version. */
  completed: string[];
}

/** `text` with the lines of `wanted` it lacks appended, or undefined when it lacks none. */
function completed(text: string, wanted: string): string | undefined {
  const have = new Set(text.split(/\r?\n/).map((line) => line.trim()));
  const missing = wanted.split("\n").filter((line) => line !== "" && !have.has(line));
  if (missing.length === 0) return undefined;
  return `${text}${text.endsWith("\n") || text === "" ? "" : "\n"}${missing.join("\n")}\n`;
}

function ensureOne(
  vault: VaultPaths,
  rel: string,
  content: string,
  header: string,
  result: TeamFilesResult,
): void {
  const abs = join(vault.dir, rel);
  if (createFileExclusive(abs, content)) {
    result.created.push(rel);
    return;
  }
  let text: string;
  try {
    text = readFileSync(abs, "utf8");
  } catch {
    return;
  }
  if (text.split(/\r?\n/, 1)[0] !== header) return;
  const next = completed(text, content);
  if (next === undefined) return;
  writeFileAtomic(abs, next, vault.dir);
  result.completed.push(rel);
}

/** Creates or completes `.llm-wiki/.gitignore` and `.llm-wiki/.gitattributes`. */
export function ensureTeamFiles(vault: VaultPaths): TeamFilesResult {
  const result: TeamFilesResult = { created: [], completed: [] };
  const ignore = olderSystemKeepsVault(vault) ? OLDER_SYSTEM_GITIGNORE : VAULT_GITIGNORE;
  ensureOne(vault, ".gitignore", ignore, IGNORE_HEADER, result);
  ensureOne(vault, ".gitattributes", VAULT_GITATTRIBUTES, ATTRIBUTES_HEADER, result);
  return result;
}
