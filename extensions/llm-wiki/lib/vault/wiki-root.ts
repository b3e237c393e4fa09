/**
 * `WIKI_ROOT`, the variable the older system (`@zosmaai/pi-llm-wiki`) read
 * in its MCP server: the folder the server works from, whose `.llm-wiki/`
 * (or the nearest one above it) is the project vault, the personal vault
 * searched beside it, and where `wiki_bootstrap` creates a vault. Users set
 * it in their `.mcp.json`, so the MCP server honours it the same way. An
 * explicit `--vault DIR` (or `LLM_WIKI_VAULT`) wins over it. Either way
 * `status` says what chose the vault, so a server started elsewhere never
 * answers from another vault without saying so.
 */
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";

/** Where a server looks for its vault, and what status says about it. */
export interface ServerRoot {
  /** The folder discovery starts from (the server's working directory, or `WIKI_ROOT`). */
  cwd: string;
  /** Info (or a warning) naming `WIKI_ROOT` when it was set; empty otherwise. */
  notes: Diagnostic[];
}

function isDir(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The folder a server started in `cwd` works from: `WIKI_ROOT` when it is
 * set and no explicit vault was given, else `cwd`.
 */
export function serverRoot(
  cwd: string,
  env: { WIKI_ROOT?: string | undefined },
  explicitVault: string | undefined,
): ServerRoot {
  const raw = env.WIKI_ROOT?.trim();
  if (!raw) return { cwd, notes: [] };
  const root = resolve(cwd, raw);
  if (explicitVault !== undefined) {
    return {
      cwd,
      notes: [
        diagnostic(
          "wiki_root_ignored",
          "info",
          `WIKI_ROOT=${root} is not used: the vault was given explicitly (--vault or LLM_WIKI_VAULT)`,
        ),
      ],
    };
  }
  if (!isDir(root)) {
    return {
      cwd: root,
      notes: [
        diagnostic(
          "wiki_root_missing",
          "warning",
          `WIKI_ROOT=${root} (the older system's setting) names no folder; this server looks for the vault from there`,
          { repair: "set WIKI_ROOT to the project folder holding .llm-wiki/, or unset it" },
        ),
      ],
    };
  }
  return {
    cwd: root,
    notes: [
      diagnostic(
        "vault_root_from_wiki_root",
        "info",
        `WIKI_ROOT=${root} (the older system's setting) chose this server's folder: its .llm-wiki/ (or the nearest above it) is the project vault, and wiki_bootstrap creates one there`,
      ),
    ],
  };
}
