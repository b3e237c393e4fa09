/**
 * `wiki_okf_import`: reviews an OKF v0.2 bundle (a dry run by default) and,
 * with `apply: true`, creates its new pages, never overwriting one. The
 * model names the folder, so it must lie inside the project (see
 * okf-confine.ts). Waits for a background index update first: applying
 * indexes the created pages itself.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { OkfImportResult } from "../lib/okf/okf-import.ts";
import { renderOkfImport } from "../lib/okf/okf-render.ts";
import { OkfImportParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createOkfImportTool(
  host: WikiHost,
): ToolDefinition<typeof OkfImportParams, OkfImportResult> {
  return {
    name: "wiki_okf_import",
    label: "Wiki OKF import",
    description: TOOL_DESCRIPTIONS.wiki_okf_import,
    promptSnippet: "Review (then, once the user agrees, import) an OKF bundle inside the project",
    promptGuidelines: [
      "Call wiki_okf_import without apply first and show the user its review; pass apply: true only after the user agreed.",
    ],
    parameters: OkfImportParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      if (params.apply === true) await host.indexed();
      // Sliced, so the agent stays responsive; an aborted turn stops it between two files.
      const result = await service.okfImport({
        dir: params.dir,
        confined: true,
        apply: params.apply === true,
        ...(signal ? { signal } : {}),
        ...(params.with_raw !== undefined ? { withRaw: params.with_raw } : {}),
        ...(params.vault ? { vault: params.vault } : {}),
      });
      return toolResult(result, renderOkfImport(result, "apply: true"));
    },
  };
}
