/**
 * `wiki_okf_export`: writes the vault's pages as an OKF v0.2 bundle. The
 * model names the folder, so it must lie inside the project (see
 * okf-confine.ts); the user's `llm-wiki export --okf` takes any folder.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { OkfExportResult } from "../lib/okf/okf-export.ts";
import { renderOkfExport } from "../lib/okf/okf-render.ts";
import { OkfExportParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createOkfExportTool(
  host: WikiHost,
): ToolDefinition<typeof OkfExportParams, OkfExportResult> {
  return {
    name: "wiki_okf_export",
    label: "Wiki OKF export",
    description: TOOL_DESCRIPTIONS.wiki_okf_export,
    promptSnippet: "Export the llm-wiki as an Open Knowledge Format bundle inside the project",
    promptGuidelines: [
      "Use wiki_okf_export only when the user asks to export or share the wiki as an OKF bundle; the folder must be inside the project.",
    ],
    parameters: OkfExportParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      // Sliced, so the agent stays responsive; an aborted turn cancels it, the folder as it was.
      const result = await host.service(ctx).okfExport({
        dir: params.dir,
        confined: true,
        ...(signal ? { signal } : {}),
        ...(params.with_raw !== undefined ? { withRaw: params.with_raw } : {}),
        ...(params.vault ? { vault: params.vault } : {}),
      });
      return toolResult(result, renderOkfExport(result));
    },
  };
}
