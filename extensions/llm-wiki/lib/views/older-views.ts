/**
 * Views both this wiki and `@zosmaai/pi-llm-wiki` write: `meta/index.md`,
 * `meta/log.md`, `wiki/index.md` (and each folder's `index.md`) and
 * `wiki/log.md`, each in its own shape. In a vault the older system also
 * keeps (its own `meta/registry.json` is there), running one rebuild after
 * the other would rewrite them back and forth; so there an existing shared
 * view is left to it, and only a missing one is written. Views only this
 * wiki writes (`meta/lint-report.md`) are always written.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";

/** Whether `rel` (relative to `.llm-wiki/`) is a view the older system writes too. */
export function isSharedView(rel: string): boolean {
  if (rel === "meta/index.md" || rel === "meta/log.md") return true;
  return rel.startsWith("wiki/") && (rel === "wiki/log.md" || rel.endsWith("/index.md"));
}

export { olderSystemKeepsVault } from "../vault/older-system.ts";

/** The info saying which existing views were left to the older system. */
export function viewsLeftDiagnostic(left: readonly string[]): Diagnostic {
  return diagnostic(
    "views_left_to_older_system",
    "info",
    `@zosmaai/pi-llm-wiki keeps this vault too (meta/registry.json): ${left.length} view(s) it writes were left as it wrote them (${left.slice(0, 5).join(", ")}${left.length > 5 ? ", …" : ""}), so neither rebuild undoes the other's`,
    { path: "meta/registry.json" },
  );
}
