/**
 * `llm-wiki rebuild-meta [--which W]`: regenerates the vault's readable
 * views (catalog, activity log, lint report; OKF's wiki/index.md and
 * wiki/log.md) after bringing its index up to date.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import type { RebuildMetaResult } from "../extensions/llm-wiki/lib/views/rebuild-meta.ts";
import { renderRebuildMeta } from "../extensions/llm-wiki/lib/views/render-rebuild-meta.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { type OptionSpec, type Parsed, selectorOption, UsageError } from "./args.ts";

/** Options of `rebuild-meta` beyond the common ones. */
export const REBUILD_META_OPTIONS: Record<string, OptionSpec> = {
  which: { type: "string" },
};

/** Usage line(s) for the CLI's help text. */
export const REBUILD_META_USAGE = `  rebuild-meta [--which W]                 regenerate meta/index.md, meta/log.md, meta/lint-report.md
                                           (and wiki/index.md, wiki/log.md in OKF mode)
`;

/** Runs `rebuild-meta` and shapes the outcome the CLI prints. */
export async function rebuildMetaCommand(
  service: WikiService,
  { positionals, values }: Parsed,
): Promise<{ ok: boolean; result: RebuildMetaResult; text: string; diagnostics: Diagnostic[] }> {
  if (positionals.length > 0) throw new UsageError("rebuild-meta takes no arguments");
  const result = await service.rebuildMeta({ vault: selectorOption(values.which) });
  return {
    ok: result.ok,
    result,
    text: renderRebuildMeta(result),
    diagnostics: result.diagnostics,
  };
}
