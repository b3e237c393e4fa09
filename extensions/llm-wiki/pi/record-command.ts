/**
 * `/wiki-record [title]`: records the task just finished as a trajectory
 * page now, without a model turn: the steps are read from this session's
 * branch, and a mark in the session makes the next recording start after
 * this one.
 */
import type { ExtensionAPI, RegisteredCommand } from "@earendil-works/pi-coding-agent";
import { renderAnswer } from "../lib/render-text.ts";
import { terminalSafe } from "../lib/safety/text.ts";
import { renderCaptureTrajectory } from "../lib/trajectories/render.ts";
import { CAPTURE_MARK, trajectoryFromEntries } from "../lib/trajectories/session-steps.ts";
import type { CommandOutput } from "./command-output.ts";
import type { WikiHost } from "./wiki-host.ts";
import type { WorkingMemory } from "./working-memory.ts";

export function createRecordCommand(
  pi: Pick<ExtensionAPI, "appendEntry">,
  host: WikiHost,
  memory: WorkingMemory,
  output: CommandOutput,
): Omit<RegisteredCommand, "name" | "sourceInfo"> {
  return {
    description: "Record the task just finished (its tool calls) as an llm-wiki trajectory",
    async handler(args, ctx) {
      if (!memory.usable(ctx)) return;
      const { steps, task, model } = trajectoryFromEntries(ctx.sessionManager.getBranch());
      const title = args.trim();
      const result = await host.service(ctx).captureTrajectory({
        steps,
        ...(title !== "" ? { title } : {}),
        ...(task !== undefined ? { task } : {}),
        ...(model !== undefined ? { model } : {}),
      });
      if (result.ok && result.id) pi.appendEntry(CAPTURE_MARK, { id: result.id });
      const text = renderAnswer(result.ok, renderCaptureTrajectory(result), result.diagnostics);
      output.show(ctx, terminalSafe(`llm-wiki: ${text}`), result.ok ? "info" : "warning");
    },
  };
}
