/**
 * What a host that hands the model only a recall's rendered block
 * (automatic recall, session priming, the MCP `prime` prompt) delivered:
 * the results whose pages the block holds. Bundles cut to fit the
 * character budget never reached the model, so they were not shown.
 */
import type { RecallResult } from "../recall-operation.ts";

/** `result` with only the results its rendered block holds, in their order (ranks unchanged). */
export function renderedOnly<T extends Pick<RecallResult, "results" | "renderedPages">>(
  result: T,
): T {
  const kept = new Set(result.renderedPages);
  return { ...result, results: result.results.filter((r) => kept.has(`${r.vault}:${r.id}`)) };
}
