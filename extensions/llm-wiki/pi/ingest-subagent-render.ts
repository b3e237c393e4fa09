/**
 * The text the main session reads after an ingest sub-agent pass: which
 * source, how many parts ran, the pages created and the titles found taken,
 * whether the source was marked, and the sub-agent's short notes. Never the
 * source's text: that stays in the sub-agent's context.
 */
import { sourceName, waitingLine } from "../lib/render-text.ts";
import { neutraliseLine } from "../lib/safety/text.ts";
import type { IngestSubagentResult } from "./ingest-subagent.ts";

/** One line per fact, pages one a line; diagnostics are added by the tool result. */
export function renderIngestSubagent(result: IngestSubagentResult): string {
  const ref = result.source;
  const done = result.parts.filter((p) => p.outcome === "done").length;
  const lines = [
    `source  ${sourceName(ref)} "${neutraliseLine(ref.title)}"${ref.page ? ` · page ${ref.page} (.llm-wiki/${ref.pagePath})` : ""}`,
    `parts   ${done} of ${result.partCount} processed by a sub-agent (${result.model})`,
    ...result.created.map(
      (p) => `created ${p.id} (.llm-wiki/${p.path}) "${neutraliseLine(p.title)}" [part ${p.part}]`,
    ),
    ...result.conflicts.map(
      (p) =>
        `exists  ${p.id} (.llm-wiki/${p.path}): a page titled "${neutraliseLine(p.title)}" exists; nothing overwritten [part ${p.part}]`,
    ),
  ];
  if (result.created.length === 0 && result.conflicts.length === 0)
    lines.push("pages   none written");
  if (result.marked) {
    lines.push(
      result.marked.changed
        ? `marked  ${result.marked.page} ingested (backup .llm-wiki/${result.marked.backup ?? "?"}); its "## Summary" is still the skeleton text: replace it with an edit if you want one`
        : `marked  ${result.marked.page} was already marked ingested`,
    );
  } else {
    lines.push(`marked  no: ${sourceName(ref)} stays as it was`);
  }
  for (const p of result.parts) {
    if (p.note) lines.push(`note    part ${p.index}: ${p.note.replace(/\s+/g, " ")}`);
  }
  const waiting = waitingLine(result.pending);
  if (waiting) lines.push(waiting);
  return lines.join("\n");
}
