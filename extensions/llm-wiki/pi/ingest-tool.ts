/**
 * `wiki_ingest`: in Pi the agent itself is the model that turns a source
 * into pages. The tool hands it the source's text part by part with the page
 * schema; marking the source ingested changes its page, which is then
 * indexed in the background.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderIngest } from "../lib/render-text.ts";
import { IngestParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { IngestResult } from "../lib/writing/ingest.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createIngestTool(
  host: WikiHost,
): ToolDefinition<typeof IngestParams, IngestResult> {
  return {
    name: "wiki_ingest",
    label: "Wiki ingest",
    description: TOOL_DESCRIPTIONS.wiki_ingest,
    promptSnippet: "Read a captured source part by part and write wiki pages from it",
    promptGuidelines: [
      "When wiki_ingest returns a source's text, write the knowledge it holds as pages: create each with wiki_ensure_page and cite the source id; read every part before marking the source with wiki_ingest mark_ingested: true.",
    ],
    parameters: IngestParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      const result = service.ingest({
        ...(params.source !== undefined ? { source: params.source } : {}),
        ...(params.part !== undefined ? { part: params.part } : {}),
        ...(params.mark_ingested !== undefined ? { markIngested: params.mark_ingested } : {}),
      });
      const [vault] = service.resolveVaults("active");
      if (result.ok && result.marked?.changed && vault) host.scheduleReindex(ctx, vault.kind);
      return toolResult(result, renderIngest(result));
    },
  };
}
