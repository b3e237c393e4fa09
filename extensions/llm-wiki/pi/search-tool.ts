/** `wiki_search`: exact lookup of pages by id, title, alias or tag. */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderSearch } from "../lib/render-text.ts";
import { SearchParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { SearchResult } from "../lib/wiki-service.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createSearchTool(
  host: WikiHost,
): ToolDefinition<typeof SearchParams, SearchResult> {
  return {
    name: "wiki_search",
    label: "Wiki search",
    description: TOOL_DESCRIPTIONS.wiki_search,
    promptSnippet: "Look up llm-wiki pages by exact id, title, alias or tag",
    parameters: SearchParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      const result = service.search({
        query: params.query,
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(params.type !== undefined ? { type: params.type } : {}),
        ...(params.vault ? { vault: params.vault } : {}),
      });
      return toolResult(
        result,
        renderSearch(result),
        result.diagnostics,
        service.settings.recallMaxChars,
      );
    },
  };
}
