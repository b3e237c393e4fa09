/**
 * The older system's tool-call shapes (`@zosmaai/pi-llm-wiki` 0.12), accepted
 * so agents and prompts written for it keep working: each older parameter is
 * an alias in the shared schema, mapped here to ours with the same meaning
 * before any host runs the operation. An option without an equivalent is
 * accepted and the answer says what was done instead (a note), so nothing
 * meaningful is dropped silently. An alias given together with our own name
 * and a different value is refused: there is no telling which one was meant.
 */
import type { TSchema } from "typebox";
import type { ArgumentProblem } from "./tool-arguments.ts";

/** Marks a schema property as an older name, for clients and `docs/api.md`. */
export function LegacyAlias<S extends TSchema>(ours: string, schema: S, meaning?: string): S {
  const text = `Older tool-call shape: ${meaning ?? `same as ${ours}`}`;
  return { ...schema, description: text };
}

/** Older arguments mapped to ours, with what the caller should know about the mapping. */
export type MappedArguments<T> =
  | { ok: true; args: T; notes: string[] }
  | { ok: false; problems: ArgumentProblem[] };

type Args = Record<string, unknown>;

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** Moves `alias` to `ours` unless both are given with different values. */
function rename(args: Args, alias: string, ours: string, problems: ArgumentProblem[]): void {
  if (!(alias in args)) return;
  const value = args[alias];
  delete args[alias];
  if (value === undefined) return;
  if (ours in args && args[ours] !== undefined && !same(args[ours], value)) {
    problems.push({
      field: alias,
      message: `is the older name of ${JSON.stringify(ours)}, given with a different value: give one of them`,
    });
    return;
  }
  args[ours] = value;
}

function mapRetro(args: Args, notes: string[], problems: ArgumentProblem[]): void {
  const body = args.body;
  delete args.body;
  if (typeof body === "string") {
    // An older retro is one insight: its title states it and its body explains it.
    if (args.context !== undefined && !same(args.context, body)) {
      problems.push({
        field: "body",
        message: 'is the older name of "context", given with a different value: give one of them',
      });
    } else {
      args.context = body;
      if (args.lessons === undefined) {
        args.lessons = [args.title];
        notes.push("body: saved as the retro's context, and its title as its one lesson");
      } else notes.push("body: saved as the retro's context");
    }
  }
  if (args.lessons === undefined && problems.length === 0)
    problems.push({ field: "lessons", message: "is required (or body, the older shape)" });
  const category = args.category;
  delete args.category;
  if (typeof category === "string" && category.trim() !== "") {
    const tags = Array.isArray(args.tags) ? args.tags : [];
    if (!tags.includes(category)) args.tags = [...tags, category];
    notes.push(`category: added to the tags (${JSON.stringify(category)})`);
  }
  const slug = args.slug;
  delete args.slug;
  if (typeof slug === "string" && slug.trim() !== "") {
    const aliases = Array.isArray(args.aliases) ? args.aliases : [];
    if (!aliases.includes(slug)) args.aliases = [...aliases, slug];
    notes.push(
      `slug: the file name comes from the title; ${JSON.stringify(slug)} is the page's alias, so wiki_search finds it by it`,
    );
  }
}

function mapIngest(args: Args, notes: string[], problems: ArgumentProblem[]): void {
  rename(args, "source_id", "source", problems);
  const batch = args.batch_size;
  delete args.batch_size;
  if (batch !== undefined)
    notes.push(
      `batch_size: one source is ingested per call (asked for ${String(batch)}); call again for the next`,
    );
  const background = args.background;
  delete args.background;
  if (background === false) {
    if (args.model !== undefined)
      notes.push(
        "model: background false hands the text to you; no sub-agent ran, so no model was used",
      );
    if (args.mode === "subagent")
      problems.push({
        field: "background",
        message: 'false asks for the text back, but mode "subagent" was given: give one of them',
      });
    else args.mode = "handoff";
  } else if (background === true) {
    if (args.mode === "handoff")
      problems.push({
        field: "background",
        message: 'true asks for a background pass, but mode "handoff" was given: give one of them',
      });
    else
      notes.push(
        "background: a sub-agent writes the pages where this host has a model; without one the source's text is returned for you to write them",
      );
  }
}

function mapLint(args: Args, notes: string[], problems: ArgumentProblem[]): void {
  const asked = args.auto_fix === true;
  rename(args, "auto_fix", "fix", problems);
  if (asked)
    notes.push(
      "auto_fix: stub pages were created for missing pages linked from two or more pages; orphans are reported, never changed",
    );
}

/** The older `tags` shape, one string of space-separated tags, as our list; a list stays as it is. */
export function tagList<T extends string | readonly string[] | undefined>(
  tags: T,
): T extends string ? string[] : T {
  const list = typeof tags === "string" ? tags.split(/\s+/).filter((t) => t !== "") : tags;
  return list as T extends string ? string[] : T;
}

function mapObserve(args: Args, problems: ArgumentProblem[]): void {
  if (typeof args.tags === "string") args.tags = tagList(args.tags);
  rename(args, "source_context", "context", problems);
}

/** One older step: an assistant turn's `tool_calls`, or a tool result naming its call by `tool_call_id`. */
interface OlderStep {
  role: "user" | "assistant" | "tool";
  text?: string;
  tool?: string;
  args?: unknown;
  error?: boolean;
  tool_calls?: Array<{ id: string; name: string; arguments?: unknown }>;
  tool_call_id?: string;
  tool_name?: string;
  is_error?: boolean;
}

/**
 * The older OpenAI-like steps (an assistant step's `tool_calls`, then one
 * `tool` step per result naming its call by `tool_call_id`) as ours: one tool
 * step per call holding its name, arguments, output and outcome. A call no
 * result answers stays a tool step without output; a result whose call is
 * not listed keeps its `tool_name`.
 */
function mapSteps(steps: OlderStep[], problems: ArgumentProblem[]): Args[] {
  const out: Args[] = [];
  // Where each older call's step sits in `out`, so its result lands on it.
  const callAt = new Map<string, number>();
  steps.forEach((step, i) => {
    const { tool_calls, tool_call_id, tool_name, is_error, ...ours } = step;
    if (tool_name !== undefined && ours.tool !== undefined && ours.tool !== tool_name)
      problems.push({
        field: `steps/${i}/tool_name`,
        message: 'is the older name of "tool", given with a different value: give one of them',
      });
    if (is_error !== undefined && ours.error !== undefined && ours.error !== is_error)
      problems.push({
        field: `steps/${i}/is_error`,
        message: 'is the older name of "error", given with a different value: give one of them',
      });
    if (step.role === "tool" && tool_call_id !== undefined && callAt.has(tool_call_id)) {
      const at = callAt.get(tool_call_id) as number;
      callAt.delete(tool_call_id);
      const call = out[at] as Args;
      if (ours.text !== undefined) call.text = ours.text;
      if ((ours.error ?? is_error) !== undefined) call.error = ours.error ?? is_error;
      if (tool_name !== undefined && call.tool === undefined) call.tool = tool_name;
      return;
    }
    if (step.role === "assistant" && (ours.text ?? "").trim() !== "") out.push({ ...ours });
    else if (step.role !== "assistant" || tool_calls === undefined) {
      const mapped: Args = { ...ours };
      if (mapped.tool === undefined && tool_name !== undefined) mapped.tool = tool_name;
      if (mapped.error === undefined && is_error !== undefined) mapped.error = is_error;
      out.push(mapped);
    }
    for (const call of tool_calls ?? []) {
      callAt.set(call.id, out.length);
      out.push({
        role: "tool",
        tool: call.name,
        ...(call.arguments !== undefined ? { args: call.arguments } : {}),
      });
    }
  });
  return out;
}

function mapCaptureTrajectory(args: Args, notes: string[], problems: ArgumentProblem[]): void {
  if (!Array.isArray(args.steps)) return;
  const steps = args.steps as OlderStep[];
  const older = steps.some(
    (s) =>
      s.tool_calls !== undefined ||
      s.tool_call_id !== undefined ||
      s.tool_name !== undefined ||
      s.is_error !== undefined,
  );
  if (!older) return;
  args.steps = mapSteps(steps, problems);
  notes.push(
    "steps: the older tool_calls / tool_call_id / tool_name / is_error were read as one tool step per call (tool, args, text, error)",
  );
}

function mapDistill(args: Args, problems: ArgumentProblem[]): void {
  rename(args, "trajectory_id", "trajectory", problems);
}

/**
 * Maps a call's older parameters to ours (see the table in `docs/api.md`).
 * `args` already passed the tool's schema, which lists the aliases; the
 * result holds our names only.
 */
export function mapLegacyArguments<T extends object>(tool: string, args: T): MappedArguments<T> {
  const out: Args = Object.fromEntries(Object.entries(args));
  const notes: string[] = [];
  const problems: ArgumentProblem[] = [];
  switch (tool) {
    case "wiki_retro":
      mapRetro(out, notes, problems);
      break;
    case "wiki_capture_source":
      rename(out, "file_path", "file", problems);
      break;
    case "wiki_lint":
      mapLint(out, notes, problems);
      break;
    case "wiki_ingest":
      mapIngest(out, notes, problems);
      break;
    case "wiki_log_event":
      rename(out, "details", "detail", problems);
      break;
    case "wiki_observe":
      mapObserve(out, problems);
      break;
    case "wiki_capture_trajectory":
      mapCaptureTrajectory(out, notes, problems);
      break;
    case "wiki_distill_skills":
      mapDistill(out, problems);
      break;
  }
  if (problems.length > 0) return { ok: false, problems };
  return { ok: true, args: out as T, notes };
}

/** A result's text followed by what the mapping of older parameters did instead. */
export function withMappingNotes(text: string, notes: readonly string[]): string {
  if (notes.length === 0) return text;
  return [text, "", "Older tool-call shape:", ...notes.map((n) => `- ${n}`)].join("\n");
}
