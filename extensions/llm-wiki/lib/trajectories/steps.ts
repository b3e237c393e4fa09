/**
 * A trajectory's steps: what the agent did to finish a task (its tool calls,
 * each with its outcome) and what it said along the way, in the compact
 * shape a trajectory page stores. Steps come from a host's transcript (Pi's
 * session entries, see `session-steps.ts`) or from a caller (MCP, CLI), and
 * every field is trimmed, redacted and neutralised here, before it reaches
 * a page: tool output is hostile text.
 */
import { neutraliseLine } from "../safety/text.ts";
import { type RedactionCounts, redactText } from "../vault/redaction.ts";

/** One step as given: a user prompt, the agent's prose, or a tool call with its outcome. */
export interface TrajectoryStepInput {
  role: "user" | "assistant" | "tool";
  /** Prose (user, assistant) or the tool's output (tool). */
  text?: string;
  /** Tool steps: the tool's name. */
  tool?: string;
  /** Tool steps: the call's arguments (any JSON). */
  args?: unknown;
  /** Tool steps: whether the tool reported an error. */
  error?: boolean;
}

/** How a task ended, as a trajectory page records it (`outcome:` in its front matter). */
export const OUTCOMES = ["success", "failure", "partial"] as const;
export type Outcome = (typeof OUTCOMES)[number];

/** The tool calls of `steps` and how many of them failed. */
export function toolCallCounts(steps: readonly TrajectoryStepInput[]): {
  calls: number;
  failed: number;
} {
  let calls = 0;
  let failed = 0;
  for (const step of steps) {
    if (step.role !== "tool") continue;
    calls += 1;
    if (step.error === true) failed += 1;
  }
  return { calls, failed };
}

/**
 * The outcome the tool calls show: `failure` when every call failed,
 * `partial` when some did, else `success`. A session whose calls all failed
 * is never recorded as a success, whatever the agent said after them.
 */
export function outcomeOfSteps(steps: readonly TrajectoryStepInput[]): Outcome {
  const { calls, failed } = toolCallCounts(steps);
  if (failed === 0) return "success";
  return failed === calls ? "failure" : "partial";
}

/** A step as stored: every string trimmed, redacted and safe to show. */
export interface TrajectoryStep {
  role: "user" | "assistant" | "tool";
  text?: string;
  tool?: string;
  /** The arguments as one line of JSON, cut to `ARGS_CHARS`. */
  args?: string;
  error?: boolean;
}

/** Longest kept prose of a user or assistant step. */
export const PROSE_CHARS = 600;
/** Longest kept output of one tool call: enough to see what happened, never a dump. */
export const OUTPUT_CHARS = 400;
/** Longest kept arguments of one tool call. */
export const ARGS_CHARS = 300;
/** Most steps one trajectory keeps: the first few (how it began) and the last ones (how it ended). */
export const MAX_STEPS = 120;
const HEAD_STEPS = 20;

/** `text` cut to `max` characters at a code point, marked when cut. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const chars = Array.from(text);
  if (chars.length <= max) return text;
  return `${chars.slice(0, max).join("").trimEnd()} …[cut]`;
}

function stringify(value: unknown): string {
  if (typeof value === "string") return value;
  try {
    return JSON.stringify(value) ?? "";
  } catch {
    return String(value);
  }
}

/**
 * The text as it will be stored is what is redacted: controls, colour codes
 * and bidi marks are neutralised first (taking them out can join a key and
 * its value, or the halves of a value), then secrets are redacted, before
 * the text is cut, so half a token never survives the cut unrecognised.
 */
function clean(text: string, max: number, counts: RedactionCounts): string {
  // Characters that show as nothing go first: made a space (U+FEFF is one to
  // `\s`), one would split a key such as `DB_PASS<U+FEFF>WORD` in two.
  return cut(inertStructure(redactText(neutraliseLine(visibleOnly(text)), counts)), max);
}

/** `text` without the characters that show as nothing (zero-width spaces and joiners, soft hyphens, BOM). */
export function visibleOnly(text: string): string {
  return text.replace(/[\u00ad\u200b-\u200d\u2060\ufeff]/gu, "");
}

/**
 * One line of recorded text that can open no structure of the page or of
 * the distill hand-off: a wiki link's brackets are spaced (`[ [x] ]`), and
 * a `<trajectory …>` tag's bracket becomes `‹`. Headings cannot start
 * inside one line; line breaks were already made spaces.
 */
export function inertStructure(line: string): string {
  return line
    .replace(/\[\[/g, "[ [")
    .replace(/\]\]/g, "] ]")
    .replace(/<(\s*\/?\s*trajectory)/giu, "\u2039$1");
}

/** The steps as stored; `omitted` counts the middle steps left out past `MAX_STEPS`. */
export function cleanSteps(
  steps: readonly TrajectoryStepInput[],
  counts: RedactionCounts,
): { steps: TrajectoryStep[]; omitted: number } {
  const kept =
    steps.length <= MAX_STEPS
      ? steps
      : [...steps.slice(0, HEAD_STEPS), ...steps.slice(steps.length - (MAX_STEPS - HEAD_STEPS))];
  const out: TrajectoryStep[] = [];
  for (const step of kept) {
    const s: TrajectoryStep = { role: step.role };
    if (step.tool !== undefined) s.tool = clean(step.tool, 80, counts) || "unknown";
    if (step.args !== undefined) {
      const args = clean(stringify(step.args), ARGS_CHARS, counts);
      if (args !== "" && args !== "{}") s.args = args;
    }
    if (step.text !== undefined) {
      const max = step.role === "tool" ? OUTPUT_CHARS : PROSE_CHARS;
      // Prose too: every step is one line, so no text can become a heading of the page.
      const text = clean(step.text, max, counts);
      if (text !== "") s.text = text;
    }
    if (step.error) s.error = true;
    if (s.text !== undefined || s.tool !== undefined) out.push(s);
  }
  return { steps: out, omitted: steps.length - kept.length };
}
