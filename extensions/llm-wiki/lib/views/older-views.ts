/**
 * Views both this wiki and `@zosmaai/pi-llm-wiki` write: `meta/index.md`,
 * `meta/log.md`, `wiki/index.md` (and each folder's `index.md`) and
 * `wiki/log.md`, each in its own shape. In a vault the older system also
 * keeps (its own `meta/registry.json` is there), running one rebuild after
 * the other would rewrite them back and forth; so there an existing shared
 * view is left to it, and only a missing one is written. Views only this
 * wiki writes (`meta/lint-report.md`) are always written.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import { olderSystemKeepsVault } from "../vault/older-system.ts";
import type { VaultPaths } from "../vault/paths.ts";

/** Whether `rel` (relative to `.llm-wiki/`) is a view the older system writes too. */
export function isSharedView(rel: string): boolean {
  if (rel === "meta/index.md" || rel === "meta/log.md") return true;
  return rel.startsWith("wiki/") && (rel === "wiki/log.md" || rel.endsWith("/index.md"));
}

export { olderSystemKeepsVault };

/** The info saying which existing views were left to the older system. */
export function viewsLeftDiagnostic(left: readonly string[]): Diagnostic {
  return diagnostic(
    "views_left_to_older_system",
    "info",
    `@zosmaai/pi-llm-wiki keeps this vault too (meta/registry.json): ${left.length} view(s) it writes were left as it wrote them (${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}), so neither rebuild undoes the other's`,
    { path: "meta/registry.json" },
  );
}

/**
 * What `status` says in a vault the older system uses too (its registry, or
 * its index's `meta/qmd/current/`): llm-wiki does not rewrite the older
 * system's `meta/registry.json`, so until its own rebuild runs it lists only
 * the pages it last saw; this names the step that hands the vault back.
 */
export function olderSystemHandback(vault: VaultPaths): Diagnostic[] {
  if (!olderSystemKeepsVault(vault) && !existsSync(join(vault.qmd, "current"))) return [];
  return [
    diagnostic(
      "older_system_handback",
      "info",
      "@zosmaai/pi-llm-wiki uses this vault too: llm-wiki keeps meta/backlinks.json and leaves its index alone, but does not rewrite its meta/registry.json, so it sees pages written here only after its wiki_rebuild_meta (or wiki_bootstrap) runs; run that before switching back",
      { path: "meta/registry.json" },
    ),
  ];
}
