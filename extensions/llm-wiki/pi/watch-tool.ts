/** `wiki_watch`: the crontab line for the full cycle (reindex, lint, digest); installs nothing. */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { TOOL_DESCRIPTIONS, WatchParams } from "../lib/tool-schemas.ts";
import { type CronLineResult, renderCronLine } from "../lib/watch/cron-line.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createWatchTool(
  host: WikiHost,
): ToolDefinition<typeof WatchParams, CronLineResult> {
  return {
    name: "wiki_watch",
    label: "Wiki watch",
    description: TOOL_DESCRIPTIONS.wiki_watch,
    promptSnippet: "Print a crontab line that keeps the llm-wiki up to date (installs nothing)",
    promptGuidelines: [
      "wiki_watch only prints a crontab line: show it to the user verbatim and never claim the schedule is active.",
    ],
    parameters: WatchParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const result = host.service(ctx).watchSchedule({
        interval: params.interval,
        ...(params.vault ? { vault: params.vault } : {}),
      });
      return toolResult(result, renderCronLine(result));
    },
  };
}
