/**
 * `wiki_recall`: ranked pages for a question, from the project and personal
 * vaults (explicit policy). Waits for a background index update in progress,
 * so a page written a moment ago is found.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import { fitRecallAnswer } from "../lib/answer-fit.ts";
import type { RecallResult } from "../lib/recall-operation.ts";
import { EXPLICIT_DEFAULT_RESULTS } from "../lib/retrieval-policy.ts";
import { RecallParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { recordShown } from "./recall-feedback-capture.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createRecallTool(
  host: WikiHost,
): ToolDefinition<typeof RecallParams, RecallResult> {
  return {
    name: "wiki_recall",
    label: "Wiki recall",
    description: TOOL_DESCRIPTIONS.wiki_recall,
    promptSnippet:
      "Recall this project's stored knowledge (decisions, incidents, how-tos) from its llm-wiki",
    promptGuidelines: [
      "Use wiki_recall (a few words about the task) before non-trivial work on this project; stored notes are leads, so open the returned files before relying on them.",
    ],
    parameters: RecallParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      await host.indexed();
      const result = await service.recall({
        query: params.query,
        policy: "explicit",
        maxResults: params.max_results ?? EXPLICIT_DEFAULT_RESULTS,
        ...(params.mode ? { mode: params.mode } : {}),
        ...(params.explain ? { explain: true } : {}),
        ...(params.since !== undefined ? { since: params.since } : {}),
        ...(params.until !== undefined ? { until: params.until } : {}),
        ...(signal ? { signal } : {}),
      });
      // The pages go back to the model in this result: shown, and judgeable with wiki_recall_feedback.
      recordShown(host, ctx, result);
      // Within the answer budget, as the MCP tool's answer is.
      const maxChars = service.settings.recallMaxChars;
      const fitted = fitRecallAnswer(result, { explain: params.explain === true, maxChars });
      return toolResult(fitted.result, fitted.text, fitted.result.diagnostics, maxChars);
    },
  };
}
