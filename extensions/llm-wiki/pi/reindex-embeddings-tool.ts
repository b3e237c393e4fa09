/**
 * `wiki_reindex_embeddings`: deprecated alias kept for agents and prompts
 * written against older versions; it is `wiki_reindex` with vectors, and says so.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import {
  DEPRECATED_EMBEDDINGS,
  ReindexEmbeddingsParams,
  TOOL_DESCRIPTIONS,
} from "../lib/tool-schemas.ts";
import type { ReindexResult } from "../lib/wiki-service.ts";
import { runReindex } from "./reindex-tool.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createReindexEmbeddingsTool(
  host: WikiHost,
): ToolDefinition<typeof ReindexEmbeddingsParams, ReindexResult> {
  return {
    name: "wiki_reindex_embeddings",
    label: "Wiki reindex embeddings (deprecated)",
    description: TOOL_DESCRIPTIONS.wiki_reindex_embeddings,
    parameters: ReindexEmbeddingsParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      return runReindex(
        host,
        ctx,
        {
          scope: params.scope ?? "changed",
          components: ["lexical", "vectors"],
          ...(params.force !== undefined ? { force: params.force } : {}),
          ...(params.vault ? { vault: params.vault } : {}),
          ...(signal ? { signal } : {}),
        },
        DEPRECATED_EMBEDDINGS,
      );
    },
  };
}
