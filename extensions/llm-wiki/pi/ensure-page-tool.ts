/**
 * `wiki_ensure_page`: creates a page unless one with the same title exists
 * (never overwrites), or adds relations and sources to that page; a new or
 * added-to page is indexed in the background.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderEnsurePage } from "../lib/render-text.ts";
import { EnsurePageParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { EnsurePageOpResult } from "../lib/wiki-service.ts";
import { pageHints } from "./page-hints.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createEnsurePageTool(
  host: WikiHost,
): ToolDefinition<typeof EnsurePageParams, EnsurePageOpResult> {
  return {
    name: "wiki_ensure_page",
    label: "Wiki ensure page",
    description: TOOL_DESCRIPTIONS.wiki_ensure_page,
    promptSnippet: "Create an llm-wiki page (no-op when a page with that title exists)",
    promptGuidelines: [
      "When you learn something durable about this project (a decision, a root cause, a procedure), record it with wiki_ensure_page.",
      "When a page replaces, contradicts, supports or is derived from another, say so with wiki_ensure_page relations ({type, target}); on an existing page this adds them without rewriting it.",
    ],
    parameters: EnsurePageParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      const result = service.ensurePage(params);
      const [vault] = service.resolveVaults("active");
      if (result.ok && (result.created || result.updated) && vault)
        host.scheduleReindex(ctx, vault.kind, undefined, pageHints([result.path]));
      return toolResult(result, renderEnsurePage(result));
    },
  };
}
