/**
 * Text rendering of service results for people. JSON output is the result
 * object itself; these functions only make it readable.
 */
import type { Diagnostic } from "../extensions/llm-wiki/lib/diagnostics.ts";
import type { SearchResult, StatusResult } from "../extensions/llm-wiki/lib/wiki-service.ts";

/** One line per diagnostic, with its repair command when there is one. */
export function renderDiagnostics(diagnostics: Diagnostic[]): string {
  return diagnostics
    .map((d) => `${d.severity}: ${d.message}${d.repair ? `\n  fix: ${d.repair}` : ""}`)
    .join("\n");
}

export function renderStatus(result: StatusResult): string {
  const v = result.vault;
  if (!v) return "";
  const lines = [
    `vault   ${v.name ?? "(unnamed)"} (${v.kind}) at ${v.root}`,
    v.config.topic ? `topic   ${v.config.topic}` : undefined,
    `pages   ${v.pages} (${v.byRole.canonical} canonical, ${v.byRole.evidence} evidence)${v.malformed ? `, ${v.malformed} malformed` : ""}`,
    `types   ${
      Object.entries(v.byType)
        .map(([t, n]) => `${t} ${n}`)
        .join(", ") || "none"
    }`,
    `links   ${v.links.resolved} resolved, ${v.links.missing} missing, ${v.links.ambiguous} ambiguous`,
  ];
  return lines.filter((l) => l !== undefined).join("\n");
}

export function renderSearch(result: SearchResult): string {
  if (result.hits.length === 0) return `no page matches "${result.query}"`;
  return result.hits
    .map((h) => `${h.id}  ${h.title}  [${h.match}${h.vault === "personal" ? ", personal" : ""}]`)
    .join("\n");
}
