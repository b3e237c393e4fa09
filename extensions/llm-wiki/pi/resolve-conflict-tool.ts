/**
 * `wiki_resolve_conflict`: records the user's resolution of a conflict
 * between two pages as one immutable resolution page. The service indexes
 * the page itself, so nothing is scheduled here.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderResolveConflict } from "../lib/render-text.ts";
import { ResolveConflictParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { ResolveConflictResult } from "../lib/writing/record-resolution.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createResolveConflictTool(
  host: WikiHost,
): ToolDefinition<typeof ResolveConflictParams, ResolveConflictResult> {
  return {
    name: "wiki_resolve_conflict",
    label: "Wiki resolve conflict",
    description: TOOL_DESCRIPTIONS.wiki_resolve_conflict,
    promptSnippet: "Record the user's choice between two conflicting wiki pages",
    promptGuidelines: [
      "Call wiki_resolve_conflict only after the user has answered unambiguously which of two conflicting wiki claims holds; never decide for them. selected_page_id is the claim they endorsed.",
    ],
    parameters: ResolveConflictParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = await host.service(ctx).resolveConflict(params);
      return toolResult(result, renderResolveConflict(result));
    },
  };
}
