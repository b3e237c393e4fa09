/**
 * `wiki_recall_skill` (working memory, opt-in): "have I done this before?"
 * — skill and case pages for the task at hand, through the one retrieval
 * service. The pages shown can be judged with `wiki_recall_feedback`.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { RecallResult } from "../lib/recall-operation.ts";
import { renderRecallSkills } from "../lib/trajectories/render.ts";
import {
  RecallSkillParams,
  TRAJECTORY_TOOL_DESCRIPTIONS,
} from "../lib/trajectories/tool-schemas.ts";
import { recordShown } from "./recall-feedback-capture.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createRecallSkillTool(
  host: WikiHost,
): ToolDefinition<typeof RecallSkillParams, RecallResult> {
  return {
    name: "wiki_recall_skill",
    label: "Wiki recall skill",
    description: TRAJECTORY_TOOL_DESCRIPTIONS.wiki_recall_skill,
    promptSnippet: "Recall skills and past cases for the task at hand from the llm-wiki",
    promptGuidelines: [
      "At the start of a task that may have been done before, call wiki_recall_skill with the task in a few words, and follow a matching skill's steps.",
    ],
    parameters: RecallSkillParams,
    async execute(_toolCallId, params, signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      await host.indexed();
      const result = await service.recallSkills({
        query: params.query,
        ...(params.kind ? { kind: params.kind } : {}),
        ...(params.max_results !== undefined ? { maxResults: params.max_results } : {}),
        ...(params.mode ? { mode: params.mode } : {}),
        ...(signal ? { signal } : {}),
      });
      recordShown(host, ctx, result);
      return toolResult(result, renderRecallSkills(result));
    },
  };
}
