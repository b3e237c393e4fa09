/**
 * `wiki_bootstrap`: creates the project's vault (idempotent, never
 * overwrites) and indexes it in the background so recall works at once.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderBootstrap } from "../lib/render-text.ts";
import { BootstrapParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { WikiService } from "../lib/wiki-service.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

type BootstrapOpResult = ReturnType<WikiService["bootstrap"]>;

export function createBootstrapTool(
  host: WikiHost,
): ToolDefinition<typeof BootstrapParams, BootstrapOpResult> {
  return {
    name: "wiki_bootstrap",
    label: "Wiki bootstrap",
    description: TOOL_DESCRIPTIONS.wiki_bootstrap,
    promptSnippet: "Create an llm-wiki vault for this project (only when the user asks for one)",
    parameters: BootstrapParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = host.service(ctx).bootstrap({
        ...(params.name !== undefined ? { name: params.name } : {}),
        ...(params.topic !== undefined ? { topic: params.topic } : {}),
        ...(params.mode !== undefined ? { mode: params.mode } : {}),
        // A model named the folder: the service keeps it to the project.
        ...(params.root !== undefined ? { root: params.root, confined: true } : {}),
      });
      host.scheduleReindex(ctx, result.vault.kind, 0);
      return toolResult(result, renderBootstrap(result));
    },
  };
}
