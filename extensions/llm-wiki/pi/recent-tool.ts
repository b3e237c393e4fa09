/** `wiki_recent`: what changed in the vault in a window of days, from its event log. */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { type RecentResult, renderRecent } from "../lib/temporal/recent.ts";
import { RecentParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createRecentTool(
  host: WikiHost,
): ToolDefinition<typeof RecentParams, RecentResult> {
  return {
    name: "wiki_recent",
    label: "Wiki recent",
    description: TOOL_DESCRIPTIONS.wiki_recent,
    promptSnippet: "List what changed in the llm-wiki recently (pages created, sources ingested…)",
    parameters: RecentParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = host.service(ctx).recent({
        ...(params.since !== undefined ? { since: params.since } : {}),
        ...(params.until !== undefined ? { until: params.until } : {}),
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(params.vault ? { vault: params.vault } : {}),
      });
      return toolResult(result, renderRecent(result));
    },
  };
}
