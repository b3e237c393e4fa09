/**
 * Parameters and descriptions of the working-memory tools, shared by the Pi
 * tools and the MCP tools so both validate and document the same input.
 */
import { type Static, Type } from "typebox";
import { LegacyAlias } from "../legacy-arguments.ts";
import { EXPLICIT_DEFAULT_RESULTS, EXPLICIT_MAX_RESULTS } from "../retrieval-policy.ts";
import { literalUnion, RETRIEVAL_MODES } from "../settings.ts";
import { MAX_TITLE_CHARS } from "../writing/input.ts";
import { OUTCOMES } from "./capture.ts";
import { DISTILL_DEFAULT_BATCH, DISTILL_MAX_BATCH } from "./distill.ts";
import { SKILL_KINDS } from "./recall-skills.ts";

/** Most steps a caller may hand in; the page keeps at most `MAX_STEPS` of them. */
const MAX_INPUT_STEPS = 5_000;

const Step = Type.Object(
  {
    role: literalUnion(["user", "assistant", "tool"] as const),
    text: Type.Optional(
      Type.String({ maxLength: 200_000, description: "Prose, or the tool's output" }),
    ),
    tool: Type.Optional(
      Type.String({ maxLength: 200, description: "Tool steps: the tool's name" }),
    ),
    args: Type.Optional(Type.Unknown({ description: "Tool steps: the call's arguments" })),
    error: Type.Optional(Type.Boolean({ description: "Tool steps: whether the call failed" })),
    tool_calls: Type.Optional(
      LegacyAlias(
        "tool steps",
        Type.Array(
          Type.Object({
            id: Type.String({ maxLength: 300 }),
            name: Type.String({ maxLength: 200 }),
            arguments: Type.Optional(Type.Unknown()),
          }),
          { maxItems: 1_000 },
        ),
        "an assistant step's calls; each becomes a tool step (tool, args), its result joined by tool_call_id",
      ),
    ),
    tool_call_id: Type.Optional(
      LegacyAlias(
        "tool steps",
        Type.String({ maxLength: 300 }),
        "the call a tool step answers; its text and is_error join that call's step",
      ),
    ),
    tool_name: Type.Optional(LegacyAlias("tool", Type.String({ maxLength: 200 }))),
    is_error: Type.Optional(LegacyAlias("error", Type.Boolean())),
  },
  { additionalProperties: false },
);

export const CaptureTrajectoryParams = Type.Object(
  {
    title: Type.Optional(
      Type.String({
        maxLength: MAX_TITLE_CHARS,
        description: "Short name of the task; default: the start of its prompt",
      }),
    ),
    task: Type.Optional(
      Type.String({
        maxLength: 20_000,
        description: "The prompt that started the task; default: the first user step",
      }),
    ),
    outcome: Type.Optional(
      literalUnion(OUTCOMES, {
        description:
          "Default: what the tool calls show (failure when every call failed, partial when some did, else success)",
      }),
    ),
    steps: Type.Optional(
      Type.Array(Step, {
        maxItems: MAX_INPUT_STEPS,
        description:
          "The tool calls (role tool: tool, args, text = output, error) and prompts of the task, in order. In Pi, omit it: the session's own steps are read",
      }),
    ),
    tags: Type.Optional(Type.Array(Type.String({ maxLength: 300 }), { maxItems: 50 })),
    model: Type.Optional(
      Type.String({
        maxLength: 300,
        description:
          "The model that did the task (provider/id). In Pi, omit it: the session's model is read",
      }),
    ),
  },
  { additionalProperties: false },
);

export const DistillSkillsParams = Type.Object(
  {
    trajectory: Type.Optional(
      Type.String({
        maxLength: 300,
        description:
          "Distill this trajectory (trajectories/TRJ-…); default: the oldest undistilled",
      }),
    ),
    batch_size: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: DISTILL_MAX_BATCH,
        description: `Trajectories handed out at once; default ${DISTILL_DEFAULT_BATCH}`,
      }),
    ),
    mark_distilled: Type.Optional(
      Type.String({
        maxLength: 300,
        description:
          "After writing pages: the trajectory to mark distilled (with pages). Marks only when each page exists and cites it",
      }),
    ),
    pages: Type.Optional(
      Type.Array(Type.String({ maxLength: 300 }), {
        maxItems: 50,
        description: "With mark_distilled: ids of the skill and case pages written from it",
      }),
    ),
    trajectory_id: Type.Optional(
      LegacyAlias(
        "trajectory",
        Type.String({ maxLength: 300 }),
        "same as trajectory (TRJ-… or trajectories/TRJ-…)",
      ),
    ),
  },
  { additionalProperties: false },
);

export const RecallSkillParams = Type.Object(
  {
    query: Type.String({ maxLength: 20_000, description: "The task at hand, in words" }),
    kind: Type.Optional(literalUnion(SKILL_KINDS, { description: "skill, case or any (default)" })),
    max_results: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: EXPLICIT_MAX_RESULTS,
        description: `Default ${EXPLICIT_DEFAULT_RESULTS}`,
      }),
    ),
    mode: Type.Optional(literalUnion(RETRIEVAL_MODES)),
  },
  { additionalProperties: false },
);

export type CaptureTrajectoryParamsT = Static<typeof CaptureTrajectoryParams>;
export type DistillSkillsParamsT = Static<typeof DistillSkillsParams>;
export type RecallSkillParamsT = Static<typeof RecallSkillParams>;

/** Descriptions of the working-memory tools (off unless the `trajectories` setting is on). */
export const TRAJECTORY_TOOL_DESCRIPTIONS = {
  wiki_capture_trajectory:
    "Record how the task just finished was solved — its tool calls and their outcomes, trimmed and with secrets redacted — as a trajectory page (wiki/trajectories/TRJ-…), to be distilled into skills later. Use it after non-trivial work worth repeating or avoiding.",
  wiki_distill_skills:
    "Turn captured trajectories into reusable pages: hands out undistilled trajectories with the skill/case page schema; write pages with wiki_ensure_page citing the trajectory, then call again with mark_distilled and pages to mark it distilled.",
  wiki_recall_skill:
    "Have I done this before? Recall skill pages (how a kind of task is done) and case pages (a concrete past task) for a task description, through the wiki's retrieval.",
} as const;

export type TrajectoryToolName = keyof typeof TRAJECTORY_TOOL_DESCRIPTIONS;
