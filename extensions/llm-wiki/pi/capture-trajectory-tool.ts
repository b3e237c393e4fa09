/**
 * `wiki_capture_trajectory` (working memory, opt-in): records the task just
 * finished — read from this session's branch unless steps are given — as a
 * trajectory page. Registered only while the `trajectories` setting is on.
 */
import type { ToolDefinition } from "@earendil-works/pi-coding-agent";
import type { CaptureTrajectoryResult } from "../lib/trajectories/capture.ts";
import { renderCaptureTrajectory } from "../lib/trajectories/render.ts";
import { trajectoryFromEntries } from "../lib/trajectories/session-steps.ts";
import {
  CaptureTrajectoryParams,
  TRAJECTORY_TOOL_DESCRIPTIONS,
} from "../lib/trajectories/tool-schemas.ts";
import { toolResult } from "./tool-result.ts";
import type { WikiHost } from "./wiki-host.ts";

export function createCaptureTrajectoryTool(
  host: WikiHost,
): ToolDefinition<typeof CaptureTrajectoryParams, CaptureTrajectoryResult> {
  return {
    name: "wiki_capture_trajectory",
    label: "Wiki capture trajectory",
    description: TRAJECTORY_TOOL_DESCRIPTIONS.wiki_capture_trajectory,
    promptSnippet: "Record how the task just finished was solved (its tool calls) in the llm-wiki",
    promptGuidelines: [
      "After a non-trivial task worth repeating or avoiding, call wiki_capture_trajectory with a short title; the session's own tool calls are read, so do not pass steps.",
    ],
    parameters: CaptureTrajectoryParams,
    async execute(_toolCallId, params, _signal, _onUpdate, ctx) {
      const fromSession = trajectoryFromEntries(ctx.sessionManager.getBranch());
      const steps = params.steps && params.steps.length > 0 ? params.steps : fromSession.steps;
      const task = params.task ?? (params.steps ? undefined : fromSession.task);
      const result = await host.service(ctx).captureTrajectory({
        steps,
        ...(params.title !== undefined ? { title: params.title } : {}),
        ...(task !== undefined ? { task } : {}),
        ...(params.outcome ? { outcome: params.outcome } : {}),
        ...(params.tags ? { tags: params.tags } : {}),
        ...(params.model !== undefined
          ? { model: params.model }
          : fromSession.model && !params.steps
            ? { model: fromSession.model }
            : {}),
      });
      return toolResult(result, renderCaptureTrajectory(result));
    },
  };
}
