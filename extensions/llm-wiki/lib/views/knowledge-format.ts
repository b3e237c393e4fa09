/**
 * The vault's knowledge format (`config.json` `knowledge_format`), which
 * decides whether OKF's reserved views `wiki/index.md` and `wiki/log.md`
 * are generated. `okf-0.2` (written by `init`, and by `@zosmaai/pi-llm-wiki`)
 * and `okf` (written by our earlier versions) mean OKF v0.2; a missing field
 * or `legacy` means an older vault whose `wiki/index.md` may be the user's
 * own; anything else fails closed: no file under `wiki/` is written.
 */
import { type Diagnostic, diagnostic } from "../diagnostics.ts";
import type { VaultConfig } from "../vault/config.ts";

export type KnowledgeFormat = "okf" | "legacy";

const OKF_VALUES: ReadonlySet<string> = new Set(["okf", "okf-0.2"]);

/** The format `config` declares, or a diagnostic when it declares one this version does not know. */
export function knowledgeFormatOf(
  config: VaultConfig,
): { format: KnowledgeFormat } | { format: undefined; diagnostic: Diagnostic } {
  const value = config.knowledge_format;
  if (value === undefined || value === "legacy") return { format: "legacy" };
  if (OKF_VALUES.has(value)) return { format: "okf" };
  return {
    format: undefined,
    diagnostic: diagnostic(
      "config_invalid_knowledge_format",
      "error",
      `config.json: knowledge_format ${JSON.stringify(value).slice(0, 80)} is not "okf", "okf-0.2" or "legacy"; wiki/index.md and wiki/log.md were not written`,
      { path: ".llm-wiki/config.json" },
    ),
  };
}
