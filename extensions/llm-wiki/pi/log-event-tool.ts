/** `wiki_log_event`: appends a validated event to the vault's append-only log. */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { renderLogEvent } from "../lib/render-text.ts";
import { LogEventParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import type { LogEventResult } from "../lib/writing/log-event.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createLogEventTool(
  host: WikiHost,
): ToolDefinition<typeof LogEventParams, LogEventResult> {
  return {
    name: "wiki_log_event",
    label: "Wiki log event",
    description: TOOL_DESCRIPTIONS.wiki_log_event,
    promptSnippet: "Append an event to the llm-wiki's log (meta/events.jsonl)",
    promptGuidelines: [
      "Never write .llm-wiki/meta/events.jsonl yourself; append to it with wiki_log_event.",
    ],
    parameters: LogEventParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = host.service(ctx).logEvent(params);
      return toolResult(result, renderLogEvent(result));
    },
  };
}
