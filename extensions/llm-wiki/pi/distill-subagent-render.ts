/**
 * The text the main session reads after a distill sub-agent pass: which
 * trajectories ran and how each ended, the pages created and the titles
 * found taken, which trajectories were marked, and the sub-agent's short
 * notes. Never a trajectory's text: that stays in the sub-agent's context.
 * Titles, notes and ids are model- or page-written (a file name is an id),
 * so each is shown as one neutral line.
 */
import { neutraliseLine } from "../lib/safety/text.ts";
import type { DistillSubagentResult } from "./distill-subagent.ts";

/** One line per fact, pages one a line; diagnostics are added by the tool result. */
export function renderDistillSubagent(result: DistillSubagentResult): string {
  const done = result.runs.filter((r) => r.outcome === "done").length;
  const lines = [
    `runs    ${done} of ${result.runs.length + result.skipped.length} trajectories distilled by a sub-agent (${result.model})`,
    ...result.runs.map(
      (r) =>
        `run     ${neutraliseLine(r.trajectory)} "${neutraliseLine(r.title)}": ${r.outcome.replace("_", " ")}, ${r.created} created, ${r.conflicts} existing, ${r.turns} turn(s)`,
    ),
    ...result.created.map(
      (p) =>
        `created ${neutraliseLine(p.id)} (.llm-wiki/${neutraliseLine(p.path)}) "${neutraliseLine(p.title)}" [from ${neutraliseLine(p.trajectory)}]`,
    ),
    ...result.conflicts.map(
      (p) =>
        `exists  ${neutraliseLine(p.id)} (.llm-wiki/${neutraliseLine(p.path)}): a page titled "${neutraliseLine(p.title)}" exists; nothing overwritten [from ${neutraliseLine(p.trajectory)}]`,
    ),
  ];
  if (result.created.length === 0 && result.conflicts.length === 0)
    lines.push("pages   none written");
  for (const r of result.runs) {
    lines.push(
      r.marked
        ? `marked  ${neutraliseLine(r.trajectory)} distilled`
        : `marked  no: ${neutraliseLine(r.trajectory)} stays undistilled`,
    );
  }
  for (const id of result.skipped)
    lines.push(`skipped ${neutraliseLine(id)}: not run, stays undistilled`);
  for (const r of result.runs) {
    if (r.note) lines.push(`note    ${neutraliseLine(r.trajectory)}: ${neutraliseLine(r.note)}`);
  }
  if (result.remaining > 0) {
    lines.push(
      `waiting ${result.remaining} more undistilled trajectories: call wiki_distill_skills again`,
    );
  }
  return lines.join("\n");
}
