/**
 * `wiki_distill_skills` (working memory, opt-in): hands the agent the
 * undistilled trajectories with the skill/case page schema, and marks a
 * trajectory distilled once the agent names the pages it wrote from it.
 * The agent's own model writes the pages, through `wiki_ensure_page`.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { DistillBatchResult, MarkDistilledResult } from "../lib/trajectories/distill.ts";
import { renderDistillBatch, renderMarkDistilled } from "../lib/trajectories/render.ts";
import {
  DistillSkillsParams,
  TRAJECTORY_TOOL_DESCRIPTIONS,
} from "../lib/trajectories/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createDistillSkillsTool(
  host: WikiHost,
): ToolDefinition<typeof DistillSkillsParams, DistillBatchResult | MarkDistilledResult> {
  return {
    name: "wiki_distill_skills",
    label: "Wiki distill skills",
    description: TRAJECTORY_TOOL_DESCRIPTIONS.wiki_distill_skills,
    promptSnippet: "Turn recorded trajectories into reusable skill and case pages",
    promptGuidelines: [
      "With wiki_distill_skills, write skill/case pages with wiki_ensure_page citing [[trajectories/TRJ-…]], then call wiki_distill_skills with mark_distilled and pages.",
    ],
    parameters: DistillSkillsParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const service = host.service(ctx);
      await host.indexed();
      if (params.mark_distilled !== undefined) {
        const marked = await service.markDistilled({
          trajectory: params.mark_distilled,
          pages: params.pages ?? [],
        });
        return toolResult(marked, renderMarkDistilled(marked));
      }
      const batch = service.distillBatch({
        ...(params.trajectory !== undefined ? { trajectory: params.trajectory } : {}),
        ...(params.batch_size !== undefined ? { batchSize: params.batch_size } : {}),
      });
      return toolResult(batch, renderDistillBatch(batch));
    },
  };
}
