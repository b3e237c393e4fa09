/**
 * `wiki_capture_source`: captures text, a file or an http(s) URL into an
 * immutable packet with secrets redacted, plus a skeleton source page.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { CaptureSourceResult } from "../lib/capture/capture-source.ts";
import { renderCapture } from "../lib/render-text.ts";
import { CaptureSourceParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createCaptureTool(
  host: WikiHost,
): ToolDefinition<typeof CaptureSourceParams, CaptureSourceResult> {
  return {
    name: "wiki_capture_source",
    label: "Wiki capture source",
    description: TOOL_DESCRIPTIONS.wiki_capture_source,
    promptSnippet: "Capture a document, file or URL into the llm-wiki as an immutable source",
    promptGuidelines: [
      "Capture material worth keeping (a spec, an issue thread, a doc page) with wiki_capture_source, then turn it into pages with wiki_ingest.",
    ],
    parameters: CaptureSourceParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      const result = await service.captureSource({ ...params, ...(signal ? { signal } : {}) });
      const [vault] = service.resolveVaults("active");
      if (result.ok && vault) host.scheduleReindex(ctx, vault.kind);
      return toolResult(result, renderCapture(result));
    },
  };
}
