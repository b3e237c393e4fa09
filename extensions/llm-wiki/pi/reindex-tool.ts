/**
 * `wiki_reindex`: brings the search index up to date (changed pages or a
 * full rebuild, optionally vectors). Waits for a background update first, so
 * the two never queue on the index lock.
 */
import type {
  AgentToolResult,
  ExtensionContext,
  ToolDefinition,
} from "@earendil-works/pi-coding-agent";
import { reindexDiagnostics } from "../lib/reindex-diagnostics.ts";
import { renderReindex } from "../lib/render-text.ts";
import { ReindexParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { ReindexInput, ReindexResult } from "../lib/wiki-service.ts";
import { reindexStatus } from "./status-line.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

/** Runs one explicit reindex and renders it; shared with the deprecated alias. */
export async function runReindex(
  host: WikiHost,
  ctx: ExtensionContext,
  input: ReindexInput,
  preface?: string,
): Promise<AgentToolResult<ReindexResult>> {
  const service = host.service(ctx);
  await host.indexed();
  const result = await service.reindex(input);
  host.setStatus(reindexStatus(result));
  const text = renderReindex(result);
  return toolResult(result, preface ? `${preface}\n${text}` : text, reindexDiagnostics(result));
}

export function createReindexTool(
  host: WikiHost,
): ToolDefinition<typeof ReindexParams, ReindexResult> {
  return {
    name: "wiki_reindex",
    label: "Wiki reindex",
    description: TOOL_DESCRIPTIONS.wiki_reindex,
    promptSnippet: "Rebuild or update the llm-wiki search index",
    parameters: ReindexParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      return runReindex(host, ctx, {
        scope: params.scope ?? "changed",
        ...(params.components ? { components: params.components } : {}),
        ...(params.force !== undefined ? { force: params.force } : {}),
        ...(params.vault ? { vault: params.vault } : {}),
        ...(signal ? { signal } : {}),
      });
    },
  };
}
