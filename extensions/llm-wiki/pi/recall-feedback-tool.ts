/**
 * `wiki_recall_feedback`: the user's explicit judgment of a page recall
 * showed in this session — relevant, irrelevant, or corrected with the
 * user's words (saved as an observation page). The session's own recorder
 * judges, so only a page this session was shown can be judged, and the
 * judgment joins the query it was shown for without the query being given.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { JudgeResult } from "../lib/feedback/feedback-session.ts";
import { renderRecallFeedback } from "../lib/render-text.ts";
import { RecallFeedbackParams, TOOL_DESCRIPTIONS } from "../lib/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

/** The Pi tool; the same schema, service call and text as MCP's `wiki_recall_feedback`. */
export function createRecallFeedbackTool(
  host: WikiHost,
): ToolDefinition<typeof RecallFeedbackParams, JudgeResult & { indexed?: boolean }> {
  return {
    name: "wiki_recall_feedback",
    label: "Wiki recall feedback",
    description: TOOL_DESCRIPTIONS.wiki_recall_feedback,
    promptSnippet:
      "Record the user's explicit judgment (relevant, irrelevant, corrected) of a page recall showed",
    promptGuidelines: [
      "Use wiki_recall_feedback only when the user explicitly says a page recall showed in this session was relevant, irrelevant or wrong (then pass their correction); never judge pages on your own.",
    ],
    parameters: RecallFeedbackParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      const result = await service.recallFeedback(host.feedback(ctx), {
        page: params.page_id,
        judgment: params.judgment,
        ...(params.correction !== undefined ? { correction: params.correction } : {}),
        ...(params.vault ? { vault: params.vault } : {}),
      });
      return toolResult(result, renderRecallFeedback(result));
    },
  };
}
