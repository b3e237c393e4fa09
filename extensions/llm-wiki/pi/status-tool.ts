/** `wiki_status`: pages, link health, index state, retrieval mode and models of a vault. */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderStatus } from "../lib/render-text.ts";
import { StatusParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { StatusResult } from "../lib/wiki-service.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createStatusTool(
  host: WikiHost,
): ToolDefinition<typeof StatusParams, StatusResult> {
  return {
    name: "wiki_status",
    label: "Wiki status",
    description: TOOL_DESCRIPTIONS.wiki_status,
    promptSnippet: "Show the llm-wiki vault's pages, link health and index state",
    parameters: StatusParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = host.service(ctx).status(params.vault ? { vault: params.vault } : {});
      return toolResult(result, renderStatus(result));
    },
  };
}
