/**
 * `captureTrajectory`: records how a finished task was solved as an
 * evidence page of type `trajectory` at `wiki/trajectories/TRJ-<day>-<nnn>.md`
 * (the id scheme and folder `@zosmaai/pi-llm-wiki` used for its packets, so
 * its `[[trajectories/TRJ-…]]` citations keep their shape). The page is
 * created, never overwritten; its steps are trimmed, redacted and
 * neutralised (see `steps.ts`) and shown as code spans, so text a tool
 * printed never becomes a heading, a link or an instruction-looking line.
 * The page goes down the shared write path (write-page-pipeline.ts).
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { diagnostic } from "../diagnostics.ts";
import { neutraliseLine } from "../safety/text.ts";
import type { VaultPaths } from "../vault/paths.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";
import { cleanList, cleanTitle, invalid } from "../writing/input.ts";
import type { WrittenPageResult } from "../writing/unique-page.ts";
import { writePage } from "../writing/write-page-pipeline.ts";
import {
  cleanSteps,
  cut,
  inertStructure,
  OUTCOMES,
  type Outcome,
  outcomeOfSteps,
  type TrajectoryStep,
  type TrajectoryStepInput,
  toolCallCounts,
  visibleOnly,
} from "./steps.ts";

export { OUTCOMES, type Outcome } from "./steps.ts";

/** Folder under `wiki/` (and, in older vaults, under `raw/`) of trajectories. */
export const TRAJECTORY_FOLDER = "trajectories";
export const TRAJECTORY_TYPE = "trajectory";

const TASK_CHARS = 1_000;
const TITLE_FROM_TASK_CHARS = 60;
/** Enough numbers for a busy day; past it a taken slug gets `-2`, `-3`, never a replaced file. */
const MAX_SLUG_ATTEMPTS = 50;

export interface CaptureTrajectoryInput {
  /** Short name of the task; default: the start of the task's prompt. */
  title?: string;
  /** The prompt that started the task; default: the first user step. */
  task?: string;
  /** Kept as given; default: what the tool calls show (`outcomeOfSteps`). */
  outcome?: Outcome;
  /** `provider/model` that did the work, when known. */
  model?: string;
  steps: readonly TrajectoryStepInput[];
  tags?: string[];
  /**
   * A whole agent session's record (`llm-wiki hook stop`): the hashed session
   * key and the client, kept in the frontmatter so the session finds its page.
   */
  session?: { key: string; client: string; captured?: string; created?: string };
}

/** A trajectory page before it is placed: what `captureTrajectory` writes. */
export interface TrajectoryDraft {
  title: string;
  outcome: Outcome;
  data: Record<string, unknown>;
  body: string;
  stepCount: number;
  toolCallCount: number;
  omitted: number;
  redacted: RedactionCounts;
}

export interface CaptureTrajectoryResult extends WrittenPageResult {
  /** Steps kept on the page, and those left out of a long task's middle. */
  stepCount?: number;
  toolCallCount?: number;
  omitted?: number;
}

/** A code span that holds any text: backticks become quotes, so the span cannot end early. */
function span(text: string): string {
  return `\`${text.replace(/`/g, "'")}\``;
}

function stepLine(step: TrajectoryStep): string {
  if (step.role === "tool") {
    const args = step.args ? ` ${span(step.args)}` : "";
    const outcome = step.error ? "error" : "ok";
    const output = step.text ? `: ${span(step.text)}` : "";
    return `**${span(step.tool ?? "unknown")}**${args} → ${outcome}${output}`;
  }
  return `${step.role === "user" ? "User" : "Agent"}: ${span(step.text ?? "")}`;
}

/** How a title made here starts for an outcome that is not a success. */
const TITLE_LABEL: Record<Exclude<Outcome, "success">, string> = {
  failure: "Failed",
  partial: "Partly failed",
};

/**
 * What a page says of a task that did not succeed, in its description and
 * at the top of its body: recall shows the title and the description, so a
 * model reading a failed attempt is told it is one before taking it as a recipe.
 */
function outcomeNote(outcome: Outcome, calls: number, failed: number): string | undefined {
  const counted = `${failed} of ${calls} tool calls failed`;
  if (outcome === "failure") return `Failed attempt (${counted}): what did not work, not a recipe.`;
  if (outcome === "partial")
    return `Partly failed (${counted}): check which steps worked before following it.`;
  return undefined;
}

/** The next free `TRJ-<day>-<nnn>` number, counting pages and an older vault's packets. */
function nextNumber(vault: VaultPaths, day: string): number {
  const prefix = `TRJ-${day}-`;
  let max = 0;
  for (const dir of [join(vault.wiki, TRAJECTORY_FOLDER), join(vault.raw, TRAJECTORY_FOLDER)]) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) {
      if (!name.startsWith(prefix)) continue;
      const n = Number.parseInt(name.slice(prefix.length, prefix.length + 3), 10);
      if (Number.isFinite(n)) max = Math.max(max, n);
    }
  }
  return max + 1;
}

/** The page a trajectory becomes: steps cleaned and redacted. Throws `WikiError` on bad input. */
export function draftTrajectory(input: CaptureTrajectoryInput, now: Date): TrajectoryDraft {
  if (!Array.isArray(input.steps)) invalid("steps", "must be a list of steps");
  const outcome = input.outcome ?? outcomeOfSteps(input.steps);
  if (!OUTCOMES.includes(outcome)) invalid("outcome", `must be one of ${OUTCOMES.join(", ")}`);
  const redacted: RedactionCounts = {};
  const { steps, omitted } = cleanSteps(input.steps, redacted);
  const toolSteps = steps.filter((s) => s.role === "tool");
  if (toolSteps.length === 0) {
    invalid("steps", "no tool call to record: a trajectory is how a task was solved");
  }
  const rawTask = input.task ?? input.steps.find((s) => s.role === "user")?.text ?? "";
  // Neutralised first: what is stored is what is redacted.
  const task = cut(
    inertStructure(redactText(neutraliseLine(visibleOnly(rawTask)), redacted)),
    TASK_CHARS,
  );
  const derived =
    task !== ""
      ? cut(task, TITLE_FROM_TASK_CHARS).replace(/ …\[cut\]$/, "…")
      : `Task of ${now.toISOString().slice(0, 10)}`;
  // A caller's title is kept as given; one made here says a task did not succeed.
  const title =
    input.title !== undefined
      ? redactText(cleanTitle(input.title), redacted)
      : outcome === "success"
        ? derived
        : `${TITLE_LABEL[outcome]}: ${derived}`;
  const tags = cleanList(input.tags, "tags");
  const model =
    input.model === undefined ? undefined : redactText(neutraliseLine(input.model), redacted);
  const tools = [...new Set(toolSteps.map((s) => s.tool ?? "unknown"))];
  // Counted over every call given, the middle of a long task too.
  const { calls, failed } = toolCallCounts(input.steps);
  const note = outcomeNote(outcome, calls, failed);
  const description = [note, task !== "" ? cut(task, 200) : undefined]
    .filter((part) => part !== undefined)
    .join(" Task: ");
  const body = [
    `# ${title}`,
    "",
    ...(note !== undefined ? [`_${note}_`, ""] : []),
    "## Task",
    "",
    task === "" ? "_No prompt recorded._" : span(task),
    "",
    "## Steps",
    "",
    ...steps.map((s, i) => `${i + 1}. ${stepLine(s)}`),
    ...(omitted > 0 ? ["", `_${omitted} steps in the middle of the task were left out._`] : []),
    "",
    "## Outcome",
    "",
    `${outcome}: ${calls} tool calls (${failed} failed) with ${tools.map(span).join(", ")}.`,
    "",
  ].join("\n");
  const day = now.toISOString().slice(0, 10);
  const data: Record<string, unknown> = {
    type: TRAJECTORY_TYPE,
    title,
    ...(description !== "" ? { description } : {}),
    tags: tags.length > 0 ? tags : ["trajectory"],
    outcome,
    ...(model ? { model } : {}),
    step_count: steps.length,
    tool_call_count: toolSteps.length,
    tools,
    ...(input.session ? { session: input.session.key, client: input.session.client } : {}),
    captured: input.session?.captured ?? now.toISOString(),
    created: input.session?.created ?? day,
    updated: day,
  };
  return {
    title,
    outcome,
    data,
    body,
    stepCount: steps.length,
    toolCallCount: toolSteps.length,
    omitted,
    redacted,
  };
}

/** Writes the trajectory page and logs `trajectory_captured`. Throws `WikiError` on bad input. */
export function captureTrajectory(
  vault: VaultPaths,
  input: CaptureTrajectoryInput,
  now: Date = new Date(),
): CaptureTrajectoryResult {
  return placeTrajectory(vault, draftTrajectory(input, now), now);
}

/** Writes a drafted trajectory page at the next free number and logs `trajectory_captured`. */
export function placeTrajectory(
  vault: VaultPaths,
  draft: TrajectoryDraft,
  now: Date,
): CaptureTrajectoryResult {
  const { title, outcome, data, body, redacted, omitted } = draft;
  const day = now.toISOString().slice(0, 10);
  const stepCount = draft.stepCount;
  const toolCallCount = draft.toolCallCount;
  const number = String(nextNumber(vault, day)).padStart(3, "0");
  const place = writePage(
    vault,
    {
      folder: TRAJECTORY_FOLDER,
      base: `TRJ-${day}-${number}`,
      data,
      body,
      maxAttempts: MAX_SLUG_ATTEMPTS,
      // A trajectory is one moment's record: a taken number is never "the same".
      isSame: () => false,
      redacted,
      events: ({ id, redactions }) => [
        {
          kind: "trajectory_captured",
          id,
          title,
          outcome,
          step_count: stepCount,
          tool_call_count: toolCallCount,
          ...(redactions ? { redactions } : {}),
        },
      ],
    },
    now,
  );
  const diagnostics = [
    ...place.diagnostics,
    ...(omitted > 0
      ? [
          diagnostic(
            "trajectory_trimmed",
            "info",
            `${omitted} steps in the middle of a long task were left out`,
          ),
        ]
      : []),
  ];
  return {
    ok: true,
    ...place,
    stepCount,
    toolCallCount,
    omitted,
    diagnostics,
  };
}
