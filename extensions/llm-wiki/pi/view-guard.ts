/**
 * In an OKF vault, `wiki/index.md` (and every folder's `index.md`) and
 * `wiki/log.md` are generated views: an agent's edit would be replaced by
 * the next rebuild and could hide pages from OKF readers. The file tools
 * are refused there with a pointer to `wiki_rebuild_meta`. In a legacy
 * vault those files may be the user's own and stay writable.
 */
import { join } from "node:path";
import { readVaultConfig } from "../lib/vault/config.ts";
import { VAULT_DIR, vaultPaths } from "../lib/vault/paths.ts";
import { knowledgeFormatOf } from "../lib/views/knowledge-format.ts";

/**
 * The vault-relative path (`wiki/index.md`) of the generated OKF view that
 * `abs` names, when its vault is in OKF mode; undefined otherwise.
 */
export function generatedViewOf(abs: string): string | undefined {
  const parts = abs.split(/[\\/]+/);
  for (let i = parts.length - 3; i >= 0; i -= 1) {
    if (parts[i] !== VAULT_DIR || parts[i + 1] !== "wiki") continue;
    const rest = parts.slice(i + 2);
    const name = (rest.at(-1) ?? "").toLowerCase();
    if (name !== "index.md" && !(name === "log.md" && rest.length === 1)) return undefined;
    const root = parts.slice(0, i).join("/") || "/";
    const { config } = readVaultConfig(vaultPaths(root, "project"));
    if (knowledgeFormatOf(config).format !== "okf") return undefined;
    return join("wiki", ...rest)
      .split("\\")
      .join("/");
  }
  return undefined;
}

/** The refusal for a write into a generated view. */
export function viewRefusal(tool: string, shown: string, view: string): string {
  return `llm-wiki: ${tool} refused for ${shown}: .llm-wiki/${view} is generated from the pages and the event log in this OKF vault. Edit the pages themselves, then run wiki_rebuild_meta to regenerate it. Nothing was changed.`;
}
