/** `wiki_verify_page`: records that a page was checked against the code (its `verified:` date). */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderVerifyPage } from "../lib/render-text.ts";
import { TOOL_DESCRIPTIONS, VerifyPageParams } from "../lib/tool-schemas.ts";
import type { VerifyPageResult } from "../lib/writing/verify-page.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

/** The Pi tool; the same schema, service call and text as MCP's `wiki_verify_page`. */
export function createVerifyPageTool(
  host: WikiHost,
): ToolDefinition<typeof VerifyPageParams, VerifyPageResult & { indexed?: boolean }> {
  return {
    name: "wiki_verify_page",
    label: "Wiki verify page",
    description: TOOL_DESCRIPTIONS.wiki_verify_page,
    promptSnippet: "Mark a wiki page verified against the code (its verified: date)",
    promptGuidelines: [
      "When a recalled page is marked STALE because code it names moved on, check it against the code, update it if needed, then call wiki_verify_page.",
    ],
    parameters: VerifyPageParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = await host.service(ctx).verifyPage(params);
      return toolResult(result, renderVerifyPage(result));
    },
  };
}
