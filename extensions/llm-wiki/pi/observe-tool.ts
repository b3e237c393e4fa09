/**
 * `wiki_observe`: records one observation as an evidence page (never
 * overwriting one); a new page is indexed in the background.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { tagList } from "../lib/legacy-arguments.ts";
import { renderObservation } from "../lib/render-text.ts";
import { ObserveParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { WrittenPageResult } from "../lib/writing/unique-page.ts";
import { pageHints } from "./page-hints.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createObserveTool(
  host: WikiHost,
): ToolDefinition<typeof ObserveParams, WrittenPageResult> {
  return {
    name: "wiki_observe",
    label: "Wiki observe",
    description: TOOL_DESCRIPTIONS.wiki_observe,
    promptSnippet: "Record an observation (decision, root cause, constraint) in the llm-wiki",
    promptGuidelines: [
      "After non-trivial work, record what a later session should know with wiki_observe: one observation per call, with the specifics (paths, names, error messages).",
    ],
    parameters: ObserveParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      // Older shapes (tags as one string, source_context) were mapped by legacy-arguments.ts.
      const result = service.observe({ ...params, tags: tagList(params.tags) });
      const [vault] = service.resolveVaults("active");
      if (result.ok && result.created && vault)
        host.scheduleReindex(ctx, vault.kind, undefined, pageHints([result.path]));
      return toolResult(result, renderObservation(result));
    },
  };
}
