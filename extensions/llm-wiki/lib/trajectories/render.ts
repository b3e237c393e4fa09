/**
 * Text renderings of the working-memory results, shared by every host (a
 * Pi tool result, an MCP tool's text, the CLI's output).
 */

import type { RecallResult } from "../recall-operation.ts";
import { redactedLine, renderRecallResult } from "../render-text.ts";
import { neutraliseLine } from "../safety/text.ts";
import type { CaptureTrajectoryResult } from "./capture.ts";
import type { DistillBatchResult, MarkDistilledResult } from "./distill.ts";
import { inertStructure } from "./steps.ts";

/** What a capture wrote. */
export function renderCaptureTrajectory(result: CaptureTrajectoryResult): string {
  if (!result.ok || !result.id) return "No trajectory recorded.";
  const lines = [
    `Trajectory recorded: [[${result.id}]] (${result.path}), ${result.toolCallCount ?? 0} tool calls in ${result.stepCount ?? 0} steps.`,
  ];
  const redacted = redactedLine(result.redactions);
  if (redacted) lines.push(redacted);
  lines.push("Distill it into skill or case pages later with wiki_distill_skills.");
  return lines.join("\n");
}

/** The batch handed out, each trajectory's text fenced as data, then the schema. */
export function renderDistillBatch(result: DistillBatchResult): string {
  if (!result.ok) return "No trajectories handed out.";
  if (result.batch.length === 0) {
    return "Every trajectory is distilled. Capture finished tasks with wiki_capture_trajectory.";
  }
  const parts = [
    `${result.batch.length} trajectories to distill (${result.remaining} more waiting):`,
    "",
  ];
  for (const t of result.batch) {
    parts.push(
      `<trajectory id="${attribute(t.id)}" outcome="${attribute(t.outcome ?? "unknown")}">`,
      handoffText(t.text),
      "</trajectory>",
      "",
    );
  }
  if (result.schema) parts.push(result.schema);
  return parts.join("\n");
}

/** An attribute value of the hand-off's tag: one line, no quote or bracket. */
function attribute(value: string): string {
  return neutraliseLine(value).replace(/["<>&]/g, "_");
}

/**
 * A trajectory page's text as handed out to be distilled: no `<trajectory>`
 * tag can open or close inside it, and each step stays one line. Pages
 * written now hold one-line steps already; an older page's step that ran
 * over several lines (`\n## Outcome`, `\n# SYSTEM:`) is joined back into
 * its step, and its wiki links made inert, so it reads as the data it is.
 */
export function handoffText(text: string): string {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const steps = lines.indexOf("## Steps");
  const outcome = lines.lastIndexOf("## Outcome");
  const out: string[] = [];
  for (const [i, line] of lines.entries()) {
    const inSteps = steps !== -1 && i > steps && (outcome === -1 || i < outcome);
    const own = /^\d+\. /.test(line) || line === "" || /^_\d+ steps /.test(line);
    if (!inSteps) out.push(line);
    else if (own || out.length === 0) out.push(inertStructure(line));
    else out[out.length - 1] = `${out[out.length - 1]} ${inertStructure(line.trim())}`;
  }
  return out.join("\n").replace(/<(\s*\/?\s*trajectory)/giu, "\u2039$1");
}

/** What marking did. */
export function renderMarkDistilled(result: MarkDistilledResult): string {
  if (!result.ok || !result.trajectory) return "Nothing marked.";
  const pages = (result.pages ?? []).map((p) => `[[${p}]]`).join(", ");
  return result.changed
    ? `Marked [[${result.trajectory}]] distilled into ${pages}.`
    : `[[${result.trajectory}]] was already marked distilled into ${pages}.`;
}

/** A skill recall: the recall rendering, or a pointer to how skills come to exist. */
export function renderRecallSkills(result: RecallResult): string {
  if (result.ok && result.results.length === 0) {
    return "No skill or case page matches. After the task, record it with wiki_capture_trajectory and distill it with wiki_distill_skills.";
  }
  return renderRecallResult(result);
}
