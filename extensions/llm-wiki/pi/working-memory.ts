/**
 * The working-memory switch in Pi: the three trajectory tools exist only
 * while the `trajectories` setting is on. Pi registers tools at any time,
 * so they are registered when a session starts with the setting on, or
 * when `/wiki-trajectories on` turns it on; turning it off takes them out
 * of the model's active tools at once.
 */
import type { ExtensionAPI, ExtensionContext } from "@earendil-works/pi-coding-agent";
import type { TrajectoryToolName } from "../lib/trajectories/tool-schemas.ts";
import { createCaptureTrajectoryTool } from "./capture-trajectory-tool.ts";
import type { CommandOutput } from "./command-output.ts";
import { createDistillSkillsTool } from "./distill-skills-tool.ts";
import { acceptingOlderArguments } from "./legacy-arguments-tool.ts";
import { createRecallSkillTool } from "./recall-skill-tool.ts";
import { loadPiSettings } from "./settings.ts";
import type { WikiHost } from "./wiki-host.ts";

export const TRAJECTORY_TOOLS: readonly TrajectoryToolName[] = [
  "wiki_capture_trajectory",
  "wiki_distill_skills",
  "wiki_recall_skill",
];

export interface WorkingMemory {
  /** Whether the setting is on now (read from the settings files, not the session's first read). */
  enabled(ctx: ExtensionContext): boolean;
  /** `enabled`, telling the user how to turn it on when it is off (for commands). */
  usable(ctx: ExtensionContext): boolean;
  /** Registers the tools (once) and makes them active. */
  enable(): void;
  /** Takes the tools out of the active set. */
  disable(): void;
  /** `session_start`: registers the tools when the setting is on. */
  onSessionStart(event: unknown, ctx: ExtensionContext): void;
}

export function createWorkingMemory(
  pi: ExtensionAPI,
  host: WikiHost,
  output: CommandOutput,
): WorkingMemory {
  let registered = false;
  const names = new Set<string>(TRAJECTORY_TOOLS);
  const memory: WorkingMemory = {
    enabled(ctx) {
      return loadPiSettings({ cwd: ctx.cwd, projectTrusted: ctx.isProjectTrusted() }).settings
        .trajectories;
    },
    usable(ctx) {
      if (memory.enabled(ctx)) return true;
      output.show(
        ctx,
        "llm-wiki working memory is off; turn it on with /wiki-trajectories on",
        "warning",
      );
      return false;
    },
    enable() {
      if (!registered) {
        registered = true;
        pi.registerTool(acceptingOlderArguments(createCaptureTrajectoryTool(host)));
        pi.registerTool(acceptingOlderArguments(createDistillSkillsTool(host)));
        pi.registerTool(createRecallSkillTool(host));
        return;
      }
      const active = pi.getActiveTools();
      pi.setActiveTools([...active, ...TRAJECTORY_TOOLS.filter((n) => !active.includes(n))]);
    },
    disable() {
      if (!registered) return;
      pi.setActiveTools(pi.getActiveTools().filter((n) => !names.has(n)));
    },
    onSessionStart(_event, ctx) {
      if (memory.enabled(ctx)) memory.enable();
    },
  };
  return memory;
}
