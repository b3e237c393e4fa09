/**
 * `wiki_rebuild_meta`: regenerates the vault's readable views — the page
 * catalog, the activity log, the lint report, and in OKF mode
 * `wiki/index.md` and `wiki/log.md` — after bringing the index up to date.
 * Waits for a background index update first, so the two never queue on
 * the index lock.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { RebuildMetaParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { RebuildMetaResult } from "../lib/views/rebuild-meta.ts";
import { renderRebuildMeta } from "../lib/views/render-rebuild-meta.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createRebuildMetaTool(
  host: WikiHost,
): ToolDefinition<typeof RebuildMetaParams, RebuildMetaResult> {
  return {
    name: "wiki_rebuild_meta",
    label: "Wiki rebuild meta",
    description: TOOL_DESCRIPTIONS.wiki_rebuild_meta,
    promptSnippet: "Regenerate the llm-wiki's catalog, activity log and lint report",
    promptGuidelines: [
      "Use wiki_rebuild_meta instead of editing .llm-wiki/meta/*.md, wiki/index.md or wiki/log.md: they are generated.",
    ],
    parameters: RebuildMetaParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      await host.indexed();
      const result = await service.rebuildMeta(params.vault ? { vault: params.vault } : {});
      return toolResult(result, renderRebuildMeta(result));
    },
  };
}
