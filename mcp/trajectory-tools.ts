/**
 * The working-memory MCP tools (offered only while the `trajectories`
 * setting is on): `wiki_capture_trajectory` takes the steps from the client
 * (an MCP server sees no transcript), `wiki_distill_skills` hands the batch
 * and the page schema to the client's model, which writes pages with
 * `wiki_ensure_page` and then marks the trajectory, and `wiki_recall_skill`
 * recalls skill and case pages. Same schemas and renderings as Pi's tools.
 */
import type { Static, TSchema } from "typebox";
import { Value } from "typebox/value";
import {
  mapLegacyArguments,
  withMappingNotes,
} from "../extensions/llm-wiki/lib/legacy-arguments.ts";
import type { WikiSettings } from "../extensions/llm-wiki/lib/settings.ts";
import {
  argumentProblems,
  InvalidArgumentsError,
} from "../extensions/llm-wiki/lib/tool-arguments.ts";
import {
  renderCaptureTrajectory,
  renderDistillBatch,
  renderMarkDistilled,
  renderRecallSkills,
} from "../extensions/llm-wiki/lib/trajectories/render.ts";
import {
  CaptureTrajectoryParams,
  DistillSkillsParams,
  RecallSkillParams,
  TRAJECTORY_TOOL_DESCRIPTIONS,
  type TrajectoryToolName,
} from "../extensions/llm-wiki/lib/trajectories/tool-schemas.ts";
import { type McpTool, type ToolHints, type ToolOutput, toolOutput } from "./tools.ts";

/** An MCP tool of the working memory (its name is not in the always-on table). */
export type TrajectoryMcpTool = Omit<McpTool, "name"> & { name: TrajectoryToolName };

const READ: ToolHints = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};
/** Capture adds a page each call; distilling hands out text or marks once (idempotent). */
const APPEND: ToolHints = { ...READ, readOnlyHint: false, idempotentHint: false };
const WRITE: ToolHints = { ...READ, readOnlyHint: false };

/** Arguments that fit the schema, the older system's shapes mapped to ours (legacy-arguments.ts). */
function checked<S extends TSchema>(
  name: string,
  schema: S,
  args: unknown,
): { args: Static<S>; notes: string[] } {
  if (!Value.Check(schema, args))
    throw new InvalidArgumentsError(name, argumentProblems(schema, args));
  const mapped = mapLegacyArguments(name, args);
  if (!mapped.ok) throw new InvalidArgumentsError(name, mapped.problems);
  return { args: mapped.args, notes: mapped.notes };
}

/** The output with what the mapping of older parameters did instead. */
function noted(output: ToolOutput, notes: readonly string[]): ToolOutput {
  return notes.length === 0 ? output : { ...output, text: withMappingNotes(output.text, notes) };
}

export const TRAJECTORY_MCP_TOOLS: readonly TrajectoryMcpTool[] = [
  {
    name: "wiki_capture_trajectory",
    description: `${TRAJECTORY_TOOL_DESCRIPTIONS.wiki_capture_trajectory} Pass the task's steps: this server sees no transcript.`,
    inputSchema: CaptureTrajectoryParams,
    annotations: APPEND,
    async call(service, raw) {
      const { args, notes } = checked("wiki_capture_trajectory", CaptureTrajectoryParams, raw);
      const result = await service.captureTrajectory({ ...args, steps: args.steps ?? [] });
      return noted(toolOutput(result, renderCaptureTrajectory), notes);
    },
  },
  {
    name: "wiki_distill_skills",
    description: TRAJECTORY_TOOL_DESCRIPTIONS.wiki_distill_skills,
    inputSchema: DistillSkillsParams,
    annotations: WRITE,
    async call(service, raw) {
      const { args } = checked("wiki_distill_skills", DistillSkillsParams, raw);
      if (args.mark_distilled !== undefined) {
        const marked = await service.markDistilled({
          trajectory: args.mark_distilled,
          pages: args.pages ?? [],
        });
        return {
          ok: marked.ok,
          result: marked,
          text: renderMarkDistilled(marked),
          diagnostics: marked.diagnostics,
        };
      }
      const batch = service.distillBatch({
        ...(args.trajectory !== undefined ? { trajectory: args.trajectory } : {}),
        ...(args.batch_size !== undefined ? { batchSize: args.batch_size } : {}),
      });
      return {
        ok: batch.ok,
        result: batch,
        text: renderDistillBatch(batch),
        diagnostics: batch.diagnostics,
      };
    },
  },
  {
    name: "wiki_recall_skill",
    description: TRAJECTORY_TOOL_DESCRIPTIONS.wiki_recall_skill,
    inputSchema: RecallSkillParams,
    annotations: READ,
    async call(service, raw, context) {
      const { args } = checked("wiki_recall_skill", RecallSkillParams, raw);
      await context.indexReady();
      const result = await service.recallSkills({
        query: args.query,
        ...(args.kind ? { kind: args.kind } : {}),
        ...(args.max_results !== undefined ? { maxResults: args.max_results } : {}),
        ...(args.mode ? { mode: args.mode } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
      if (result.ok && !context.signal?.aborted) {
        try {
          context.feedback?.recordShown(result, service.handles.models.embed.uri);
        } catch {
          // A log that cannot be written loses the signal, not the answer.
        }
      }
      return toolOutput(result, renderRecallSkills);
    },
  },
];

/** The working-memory tools this server offers: none while the setting is off. */
export function trajectoryTools(settings: Pick<WikiSettings, "trajectories">) {
  return settings.trajectories ? TRAJECTORY_MCP_TOOLS : [];
}
