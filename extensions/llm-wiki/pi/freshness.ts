/**
 * Keeps the index fresh while the agent works: a page the agent writes or
 * edits with Pi's own tools becomes recallable after a short background
 * lexical update, without anyone running a reindex.
 */
import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, relative, resolve } from "node:path";
import {
  type ExtensionContext,
  isEditToolResult,
  isWriteToolResult,
  type ToolResultEvent,
} from "@earendil-works/pi-coding-agent";
import type { VaultPaths } from "../lib/vault/paths.ts";
import type { WikiHost } from "./wiki-host.ts";

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function inside(file: string, dir: string): boolean {
  const rel = relative(dir, file);
  return rel !== "" && !rel.startsWith("..") && !isAbsolute(rel);
}

/** A path as Pi's file tools read it: `@` prefix dropped, `~` expanded, relative to `cwd`. */
export function toolPath(path: string, cwd: string): string {
  const bare = path.startsWith("@") ? path.slice(1) : path;
  if (bare === "~") return homedir();
  if (bare.startsWith("~/")) return resolve(homedir(), bare.slice(2));
  return resolve(cwd, bare);
}

/** The vault whose `wiki/` folder holds `file` (symlinks resolved on both sides), if any. */
function wikiVaultOf(file: string, vaults: VaultPaths[]): VaultPaths | undefined {
  const files = [file, realOrSelf(file)];
  return vaults.find((v) => {
    const dirs = [v.wiki, realOrSelf(v.wiki)];
    return files.some((f) => dirs.some((d) => inside(f, d)));
  });
}

/** `tool_result` handler: schedules an update when `write` or `edit` changed a wiki page. */
export function createPageChangeHandler(host: WikiHost) {
  return (event: ToolResultEvent, ctx: ExtensionContext): undefined => {
    if (event.isError || !(isWriteToolResult(event) || isEditToolResult(event))) return undefined;
    const path = event.input.path;
    if (typeof path !== "string") return undefined;
    const file = toolPath(path, ctx.cwd);
    const vault = wikiVaultOf(file, host.service(ctx).resolveVaults("all"));
    // The tool says which file changed: the pass looks at it alone, not at every page.
    if (vault) host.scheduleReindex(ctx, vault.kind, undefined, [file]);
    return undefined;
  };
}
