/**
 * `wiki_retro`: records what a finished task taught as a retro page (never
 * overwriting one); a new page is indexed in the background.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderRetro } from "../lib/render-text.ts";
import { RetroParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { WrittenPageResult } from "../lib/writing/unique-page.ts";
import { pageHints } from "./page-hints.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createRetroTool(
  host: WikiHost,
): ToolDefinition<typeof RetroParams, WrittenPageResult> {
  return {
    name: "wiki_retro",
    label: "Wiki retro",
    description: TOOL_DESCRIPTIONS.wiki_retro,
    promptSnippet: "Record a retro (went well, went badly, lessons) of a finished task",
    promptGuidelines: ["At the end of a meaningful task, record its lessons with wiki_retro."],
    parameters: RetroParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      // Without lessons the service says what is missing (the schema leaves them optional for `body`).
      const result = service.retro({ ...params, lessons: params.lessons ?? [] });
      const [vault] = service.resolveVaults("active");
      if (result.ok && result.created && vault)
        host.scheduleReindex(ctx, vault.kind, undefined, pageHints([result.path]));
      return toolResult(result, renderRetro(result));
    },
  };
}
