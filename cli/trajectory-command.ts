/**
 * `llm-wiki trajectory [on|off] [--pi]`, `trajectory capture --steps FILE|-`
 * and `trajectory distill [--mark ID --pages ID…]`: the working memory from
 * the command line. `on`/`off` write the `trajectories` setting (the file
 * the CLI and the MCP server read, or with `--pi` the Pi extension's own
 * file for the project, as `/wiki-trajectories` does); capture and distill are
 * refused while it is off (`trajectories_off`), as the MCP server offers no
 * trajectory tool then. Capture takes the steps as `wiki_capture_trajectory`
 * does over MCP, and distill is the same hand-off and marking.
 */
import { readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { Value } from "typebox/value";
import { type Diagnostic, diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import { piAgentDir, piProjectSettingsPath } from "../extensions/llm-wiki/lib/pi-settings-files.ts";
import { cliSettingsPath } from "../extensions/llm-wiki/lib/settings.ts";
import { writeSetting } from "../extensions/llm-wiki/lib/settings-write.ts";
// The MCP server's wording of a bad argument: the same steps are refused in the same words.
import { argumentProblems } from "../extensions/llm-wiki/lib/tool-arguments.ts";
import { OUTCOMES } from "../extensions/llm-wiki/lib/trajectories/capture.ts";
import {
  renderCaptureTrajectory,
  renderDistillBatch,
  renderMarkDistilled,
} from "../extensions/llm-wiki/lib/trajectories/render.ts";
import {
  CaptureTrajectoryParams,
  type CaptureTrajectoryParamsT,
} from "../extensions/llm-wiki/lib/trajectories/tool-schemas.ts";
import type { WikiService } from "../extensions/llm-wiki/lib/wiki-service.ts";
import { intOption, type OptionSpec, type Parsed, readStdin, UsageError } from "./args.ts";

/** Options of `trajectory` beyond the common ones. */
export const TRAJECTORY_OPTIONS: Record<string, OptionSpec> = {
  pi: { type: "boolean" },
  steps: { type: "string" },
  title: { type: "string" },
  task: { type: "string" },
  outcome: { type: "string" },
  tag: { type: "string", multiple: true },
  trajectory: { type: "string" },
  batch: { type: "string" },
  mark: { type: "string" },
  pages: { type: "string", multiple: true },
};

/** Usage lines for the CLI's help text. */
export const TRAJECTORY_USAGE = `  trajectory [on|off] [--pi]               show or set working memory (trajectories); --pi: for Pi
                                           sessions in this project instead of the CLI/MCP settings
  trajectory capture --steps FILE|-        record a finished task's steps (JSON, as wiki_capture_trajectory
         [--title T] [--task T]            takes them) as a trajectory page
         [--outcome success|failure|partial] [--tag T]…
                                           each step: {"role": "user"|"assistant"|"tool", "text"?,
                                           "tool"?, "args"?, "error"?} (tool: name, args, output, failed)
  trajectory distill [--trajectory ID]     hand out undistilled trajectories with the skill/case schema
         [--batch N]
         [--mark ID --pages ID…]           mark a trajectory distilled into the pages written from it
`;

/** Largest steps file read: MCP's own bounds (5,000 steps) fit well below. */
const MAX_STEPS_BYTES = 64 * 1024 * 1024;

interface Outcome {
  ok: boolean;
  result: object;
  text: string;
  diagnostics: Diagnostic[];
}

/** The refusal of a working-memory command while the setting is off. */
export function trajectoriesOff(): Outcome {
  const diagnostics = [
    diagnostic(
      "trajectories_off",
      "error",
      "working memory is off (setting trajectories: false); nothing done",
      { repair: "llm-wiki trajectory on" },
    ),
  ];
  return { ok: false, result: { ok: false, diagnostics }, text: "", diagnostics };
}

function settingState(service: WikiService): Outcome {
  const on = service.settings.trajectories;
  const path = cliSettingsPath();
  return {
    ok: true,
    result: { ok: true, trajectories: on, path, diagnostics: [] },
    text: `llm-wiki working memory is ${on ? "on" : "off"} (${path}; llm-wiki trajectory on|off)`,
    diagnostics: [],
  };
}

function setSetting(on: boolean, pi: boolean): Outcome {
  // The Pi extension's own file for this project, in Pi's agent folder (not gated by project trust).
  const agentDir = piAgentDir();
  const path = pi ? piProjectSettingsPath(agentDir, process.cwd()) : cliSettingsPath();
  const written = writeSetting(path, "trajectories", on, pi ? agentDir : undefined);
  const result = { ok: written.ok, trajectories: on, path, diagnostics: written.diagnostics };
  if (!written.ok) return { ok: false, result, text: "", diagnostics: written.diagnostics };
  const where = pi
    ? "Pi sessions in this project from their next start or /reload"
    : "the CLI's trajectory and skills commands, and the MCP server's trajectory tools from its next start";
  return {
    ok: true,
    result,
    text: `llm-wiki working memory ${on ? "on" : "off"} (written to ${path}): ${on ? "available to" : "removed from"} ${where}`,
    diagnostics: [],
  };
}

/** The steps document: a JSON array of steps, or `wiki_capture_trajectory`'s whole arguments. */
async function readSteps(value: string | boolean | undefined): Promise<unknown> {
  if (typeof value !== "string" || value === "")
    throw new UsageError("trajectory capture needs --steps FILE (or - for standard input)");
  let text: string;
  if (value === "-") text = await readStdin();
  else {
    const path = resolve(process.cwd(), value);
    let size: number;
    try {
      size = statSync(path).size;
    } catch {
      throw new UsageError(`--steps: cannot read ${path}`);
    }
    if (size > MAX_STEPS_BYTES)
      throw new UsageError(`--steps: ${path} is larger than ${MAX_STEPS_BYTES} bytes`);
    text = readFileSync(path, "utf8");
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`--steps: not JSON (${(error as Error).message})`);
  }
}

/** The capture's arguments, checked against the schema MCP checks them with. */
function captureArgs(doc: unknown, { values, lists }: Parsed): CaptureTrajectoryParamsT {
  if (doc === null || typeof doc !== "object")
    throw new UsageError("--steps: a JSON array of steps, or an object with steps");
  const args: Record<string, unknown> = Array.isArray(doc) ? { steps: doc } : { ...doc };
  if (typeof values.title === "string") args.title = values.title;
  if (typeof values.task === "string") args.task = values.task;
  if (typeof values.outcome === "string") {
    if (!OUTCOMES.some((o) => o === values.outcome))
      throw new UsageError(`--outcome takes one of ${OUTCOMES.join(", ")}`);
    args.outcome = values.outcome;
  }
  if ((lists.tag ?? []).length > 0) args.tags = lists.tag;
  if (!Value.Check(CaptureTrajectoryParams, args)) {
    const problems = argumentProblems(CaptureTrajectoryParams, args)
      .slice(0, 5)
      .map((p) => `${p.field} ${p.message}`);
    throw new UsageError(`--steps: ${problems.join("; ")}`);
  }
  return args;
}

async function capture(service: WikiService, args: Parsed): Promise<Outcome> {
  if (args.positionals.length > 1) throw new UsageError("trajectory capture takes no arguments");
  // Off: refused before the steps are even read, as MCP offers no tool to call.
  if (!service.settings.trajectories) return trajectoriesOff();
  const input = captureArgs(await readSteps(args.values.steps), args);
  const result = await service.captureTrajectory({ ...input, steps: input.steps ?? [] });
  return {
    ok: result.ok,
    result,
    text: renderCaptureTrajectory(result),
    diagnostics: result.diagnostics,
  };
}

async function distill(service: WikiService, { positionals, values, lists }: Parsed) {
  const mark = typeof values.mark === "string" ? values.mark : undefined;
  // `--pages a b c`: ids after the first land among the positionals.
  const pages = [...(lists.pages ?? []), ...positionals.slice(1)];
  if (mark === undefined && (pages.length > 0 || positionals.length > 1))
    throw new UsageError("trajectory distill: --pages goes with --mark ID");
  if (mark !== undefined && (values.trajectory !== undefined || values.batch !== undefined))
    throw new UsageError("trajectory distill: --mark takes no --trajectory or --batch");
  if (!service.settings.trajectories) return trajectoriesOff();
  if (mark !== undefined) {
    const marked = await service.markDistilled({ trajectory: mark, pages });
    return {
      ok: marked.ok,
      result: marked,
      text: renderMarkDistilled(marked),
      diagnostics: marked.diagnostics,
    };
  }
  const batch = service.distillBatch({
    ...(typeof values.trajectory === "string" ? { trajectory: values.trajectory } : {}),
    ...(values.batch !== undefined ? { batchSize: intOption(values.batch, "batch", 1) } : {}),
  });
  return {
    ok: batch.ok,
    result: batch,
    text: renderDistillBatch(batch),
    diagnostics: batch.diagnostics,
  };
}

/** Runs `trajectory` and its sub-commands. */
export async function trajectoryCommand(service: WikiService, args: Parsed): Promise<Outcome> {
  const [sub, ...rest] = args.positionals;
  if (sub === "capture") return capture(service, args);
  if (sub === "distill") return distill(service, args);
  if (sub !== undefined && sub !== "on" && sub !== "off")
    throw new UsageError(`trajectory: unknown sub-command "${sub}" (on, off, capture, distill)`);
  if (rest.length > 0) throw new UsageError(`trajectory ${sub} takes no further arguments`);
  if (sub === undefined) {
    if (args.values.pi) throw new UsageError("trajectory: --pi goes with on or off");
    return settingState(service);
  }
  return setSetting(sub === "on", args.values.pi === true);
}
