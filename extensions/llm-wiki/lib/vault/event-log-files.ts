/**
 * The files of a vault's event log, for readers: `meta/events.jsonl` (a
 * vault outside git, an older vault's log, `@zosmaai/pi-llm-wiki`'s) and
 * every clone's log under `meta/events/` (clone-log.ts), in a fixed order.
 * Readers take them as one log ordered by time, a line seen twice once.
 * Only regular files count: a link committed in their place is not read.
 */
import { type Dirent, lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { CLONE_LOGS_DIR } from "./clone-log.ts";
import type { VaultPaths } from "./paths.ts";

function isFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** The per-clone logs' folder (absolute). */
export function cloneLogsDir(paths: VaultPaths): string {
  return join(paths.meta, CLONE_LOGS_DIR);
}

/**
 * The log files that exist (absolute): `meta/events.jsonl` first, then the
 * clones' logs by name. Never throws.
 */
export function eventLogFiles(paths: VaultPaths): string[] {
  const out: string[] = [];
  if (isFile(paths.events)) out.push(paths.events);
  const dir = cloneLogsDir(paths);
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  // The entry's own type (no call per file): a link is not a file here.
  const names = entries.filter((e) => e.isFile() && e.name.endsWith(".jsonl")).map((e) => e.name);
  for (const name of names.sort()) out.push(join(dir, name));
  return out;
}

/** `file` relative to the vault's `.llm-wiki/`, with forward slashes (for diagnostics). */
export function logRel(paths: VaultPaths, file: string): string {
  return relative(paths.dir, file).split("\\").join("/");
}
