/**
 * Text renderings of the working-memory results, shared by every host (a
 * Pi tool result, an MCP tool's text, the CLI's output).
 */

import type { RecallResult } from "../recall-operation.ts";
import { redactedLine, renderRecallResult } from "../render-text.ts";
import type { CaptureTrajectoryResult } from "./capture.ts";
import type { DistillBatchResult, MarkDistilledResult } from "./distill.ts";

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
      `<trajectory id="${t.id}" outcome="${t.outcome ?? "unknown"}">`,
      t.text.replace(/<\/trajectory>/gi, "</ trajectory>"),
      "</trajectory>",
      "",
    );
  }
  if (result.schema) parts.push(result.schema);
  return parts.join("\n");
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
